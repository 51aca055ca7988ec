/* notifier.c: see notifier.h. */
#include "notify/notifier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "metrics/metrics.h"
#include "notify/mail.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

#define RECENT 64   /* turns remembered as told */
#define ATTEMPTS 4  /* a push tried at most this often */
#define TTL_S 86400 /* a push service keeps a turn's notice a day at most */
#define HOOK_MAX (WEBPUSH_PAYLOAD_MAX + 1200) /* a webhook's body: the payload and a line */

static const int backoff_s[ATTEMPTS - 1] = {30, 120, 600};

/* One push to one subscription, with its tries. */
struct job {
    struct job *prev, *next; /* the notifier's jobs */
    struct notifier *n;
    uv_timer_t timer;
    int attempt;
    int waiting;                  /* on the timer (counted in n->pending) */
    long long hook;               /* a webhook's post, for this account; 0: a push */
    struct push_subscription sub; /* a webhook's: only its endpoint (the URL) */
    size_t len;
    char payload[HOOK_MAX + 1];
};

/* A read of an account's subscriptions under way: a slot of the notifier. */
struct notifier_ask {
    struct notifier *n;
    int used;
    long long account;
    size_t len;
    char payload[WEBPUSH_PAYLOAD_MAX + 1];
    char line[900]; /* the notice as one line of chat (a webhook's) */
};

struct notifier {
    uv_loop_t *loop;
    const struct push_sender *sender;
    struct notifier_ops ops;
    int pending, closed, jobs; /* jobs: alive (sending or waiting) */
    struct job *head;
    struct {
        char room[NOTIFIER_ROOM_MAX];
        long long account;
        int moves, kind, last_hour;
    } recent[RECENT];
    int next_recent;
    struct notifier_ask asks[NOTIFIER_ASKS];
    char public_url[256];
    struct mailer *mailer; /* NULL: no e-mail */
};

struct notifier *notifier_new(uv_loop_t *loop, const struct push_sender *s,
                              const struct notifier_ops *ops, const char *public_url)
{
    struct notifier *n = mem_zalloc(1, sizeof *n);
    snprintf(n->public_url, sizeof n->public_url, "%s", public_url != NULL ? public_url : "");
    n->loop = loop;
    n->sender = s;
    n->ops = *ops;
    for (int i = 0; i < NOTIFIER_ASKS; i++)
        n->asks[i].n = n;
    return n;
}

static void job_closed(uv_handle_t *h)
{
    struct job *j = h->data;
    j->n->jobs--;
    free(j);
}

static void job_end(struct job *j)
{
    struct notifier *n = j->n;
    if (j->prev != NULL)
        j->prev->next = j->next;
    else
        n->head = j->next;
    if (j->next != NULL)
        j->next->prev = j->prev;
    if (j->waiting) {
        uv_timer_stop(&j->timer);
        j->waiting = 0;
        n->pending--;
    }
    uv_close((uv_handle_t *)&j->timer, job_closed);
}

static void job_send(struct job *j);
static void add(char *out, size_t size, size_t *len, const char *text);
static void add_str(char *out, size_t size, size_t *len, const char *text);

static void on_retry(uv_timer_t *t)
{
    struct job *j = t->data;
    j->waiting = 0;
    j->n->pending--;
    job_send(j);
}

static void on_result(void *arg, const struct push_result *r)
{
    struct job *j = arg;
    struct notifier *n = j->n;
    metrics_push_count(r->outcome);
    if (n->closed) {
        job_end(j);
        return;
    }
    if (r->outcome == PUSH_RETRY && j->attempt < ATTEMPTS && n->pending < NOTIFIER_PENDING) {
        long wait = backoff_s[j->attempt - 1];
        if (r->retry_after_s > wait)
            wait = r->retry_after_s > 86400 ? 86400 : r->retry_after_s;
        j->waiting = 1;
        n->pending++;
        uv_timer_start(&j->timer, on_retry, (uint64_t)wait * 1000, 0);
        return;
    }
    int o = r->outcome == PUSH_SENT   ? NOTIFIER_SENT
            : r->outcome == PUSH_GONE ? NOTIFIER_GONE
                                      : NOTIFIER_FAILED;
    if (j->hook != 0 && n->ops.hook_outcome != NULL)
        n->ops.hook_outcome(n->ops.arg, j->hook, o);
    else if (j->hook == 0 && n->ops.outcome != NULL)
        n->ops.outcome(n->ops.arg, j->sub.endpoint, o);
    job_end(j);
}

/* A webhook's answer, sorted as a push's (push.h). */
static void on_hook_answer(void *arg, const struct outbound_result *r)
{
    int outcome = r->error == OUTBOUND_E_PRIVATE         ? PUSH_GONE
                  : r->error != 0                        ? PUSH_RETRY
                  : r->status >= 200 && r->status < 300  ? PUSH_SENT
                  : r->status == 404 || r->status == 410 ? PUSH_GONE
                  : r->status == 429 || r->status >= 500 ? PUSH_RETRY
                                                         : PUSH_FAILED;
    struct push_result res = {outcome, r->status, r->retry_after_s, r->error};
    on_result(arg, &res);
}

static void job_send(struct job *j)
{
    j->attempt++;
    static const char *const json[] = {"Content-Type: application/json"};
    int rc = j->hook != 0 ? outbound_post(j->n->sender->out, j->sub.endpoint, json, 1, j->payload,
                                          j->len, on_hook_answer, j)
                          : push_send(j->n->sender, &j->sub, j->payload, j->len, TTL_S, "high",
                                      on_result, j);
    if (rc != 0) { /* the outbound queue is full or closing: this notice is lost */
        log_warn("push: a notice was not sent: %s", srv_status_name(rc));
        job_end(j);
    }
}

static struct job *job_new(struct notifier *n)
{
    struct job *j = mem_zalloc(1, sizeof *j);
    j->n = n;
    uv_timer_init(n->loop, &j->timer);
    j->timer.data = j;
    j->next = n->head;
    if (n->head != NULL)
        n->head->prev = j;
    n->head = j;
    n->jobs++;
    return j;
}

/* The webhook's body: {"content","text","username","carcd"}. 0, or -1. */
static int hook_body(const struct notifier_ask *a, char *out, size_t size, size_t *len)
{
    *len = 0;
    out[0] = '\0';
    add(out, size, len, "{\"content\":");
    add_str(out, size, len, a->line);
    add(out, size, len, ",\"text\":");
    add_str(out, size, len, a->line);
    add(out, size, len, ",\"username\":\"carcd\",\"carcd\":");
    add(out, size, len, a->payload);
    add(out, size, len, "}");
    return *len < size ? 0 : -1;
}

void notifier_subs_answer(struct notifier_ask *a, const struct notifier_sub *subs, int count,
                          const char *webhook)
{
    struct notifier *n = a->n;
    a->used = 0;
    if (n->closed)
        return;
    if (webhook != NULL && webhook[0] != '\0' && strlen(webhook) <= PUSH_ENDPOINT_MAX) {
        struct job *j = job_new(n);
        j->hook = a->account;
        snprintf(j->sub.endpoint, sizeof j->sub.endpoint, "%s", webhook);
        if (hook_body(a, j->payload, sizeof j->payload, &j->len) == 0)
            job_send(j);
        else
            job_end(j);
    }
    for (int i = 0; i < count; i++) {
        struct push_subscription sub;
        const char *why = NULL;
        if (push_subscription_decode(subs[i].endpoint, subs[i].p256dh, subs[i].auth, &sub, &why) !=
            0) {
            /* stored before a stricter check: it can never be sent */
            if (n->ops.outcome != NULL)
                n->ops.outcome(n->ops.arg, subs[i].endpoint, NOTIFIER_GONE);
            continue;
        }
        struct job *j = job_new(n);
        j->sub = sub;
        j->len = a->len;
        memcpy(j->payload, a->payload, a->len + 1);
        job_send(j);
    }
}

int notifier_test_send(struct notifier *n, const struct notifier_sub *subs, int count)
{
    static const char payload[] = "{\"v\":1,\"type\":\"test\",\"url\":\"/\","
                                  "\"title\":\"Test notification\","
                                  "\"body\":\"Notifications from carcd reach this device\"}";
    int sent = 0;
    for (int i = 0; i < count && !n->closed; i++) {
        struct push_subscription sub;
        const char *why = NULL;
        if (push_subscription_decode(subs[i].endpoint, subs[i].p256dh, subs[i].auth, &sub, &why) !=
            0) {
            if (n->ops.outcome != NULL)
                n->ops.outcome(n->ops.arg, subs[i].endpoint, NOTIFIER_GONE);
            continue;
        }
        struct job *j = job_new(n);
        j->sub = sub;
        j->len = sizeof payload - 1;
        memcpy(j->payload, payload, sizeof payload);
        j->attempt = ATTEMPTS - 1; /* its one try is the last: on_result retries nothing */
        job_send(j);
        sent++;
    }
    return sent;
}

#define HOUR_MS 3600000LL

/* Whether this notice was told already (else it is remembered now). A turn
 * may run low twice (PROTOCOL.md "Time running low": at a quarter, and in
 * its last hour): a time_low within an hour of its deadline is another
 * notice than one before it. Both thresholds crossed at once (a turn of
 * exactly four hours) stay one notice. */
static int told(struct notifier *n, const struct notifier_notice *t)
{
    int last_hour = t->kind == NOTIFIER_LOW && t->deadline > 0 &&
                    t->deadline - (long long)clock_wall_ms() <= HOUR_MS;
    for (int i = 0; i < RECENT; i++)
        if (n->recent[i].account == t->account && n->recent[i].moves == t->moves &&
            n->recent[i].kind == t->kind && n->recent[i].last_hour == last_hour &&
            strcmp(n->recent[i].room, t->room) == 0)
            return 1;
    int k = n->next_recent++ % RECENT;
    snprintf(n->recent[k].room, sizeof n->recent[k].room, "%s", t->room);
    n->recent[k].account = t->account;
    n->recent[k].moves = t->moves;
    n->recent[k].kind = t->kind;
    n->recent[k].last_hour = last_hour;
    return 0;
}

static void add(char *out, size_t size, size_t *len, const char *text)
{
    size_t k = strlen(text);
    if (*len + k < size) {
        memcpy(out + *len, text, k + 1);
        *len += k;
    } else {
        *len = size; /* overflow: caught by the caller */
    }
}

static void add_str(char *out, size_t size, size_t *len, const char *text)
{
    if (*len < size)
        proto_json_str_append(out, size, len, text);
}

/* The English words of t (title, body), for a client that has none better. */
static void words(const struct notifier_notice *t, char *title, size_t tsize, char *body,
                  size_t bsize)
{
    static const char *const ord[] = {"", "1st", "2nd", "3rd", "4th", "5th", "6th"};
    if (t->kind == NOTIFIER_OVER) {
        snprintf(title, tsize, "Game over");
        snprintf(body, bsize, "Room %s: you finished %s with %d points", t->room,
                 t->rank >= 1 && t->rank <= 6 ? ord[t->rank] : "", t->scores[t->seat]);
        return;
    }
    if (t->kind == NOTIFIER_REMATCH) {
        snprintf(title, tsize, "Rematch");
        snprintf(body, bsize, "%s offers a rematch in room %s",
                 t->from >= 0 && t->from < t->n ? t->names[t->from] : "Your opponent", t->room);
        return;
    }
    if (t->kind == NOTIFIER_LOW) {
        snprintf(title, tsize, "Your time is running out");
        snprintf(body, bsize, "Room %s: it is your turn and your clock is running low", t->room);
        return;
    }
    snprintf(title, tsize, "Your turn");
    int k = snprintf(body, bsize, "It is your turn in room %s", t->room);
    for (int i = 0, first = 1; i < t->n && k > 0 && (size_t)k < bsize; i++) {
        if (i == t->seat)
            continue;
        k += snprintf(body + k, bsize - (size_t)k, "%s%s", first ? " against " : ", ", t->names[i]);
        first = 0;
    }
}

int notifier_payload(const struct notifier_notice *t, char *out, size_t size)
{
    static const char *const type[] = {"your_turn", "time_low", "game_over", "rematch"};
    size_t len = 0;
    char buf[160];
    out[0] = '\0';
    if (t->kind < 0 || t->kind > NOTIFIER_REMATCH || t->seat < 0 || t->seat >= t->n)
        return -1;
    snprintf(buf, sizeof buf, "{\"v\":1,\"type\":\"%s\",\"room\":", type[t->kind]);
    add(out, size, &len, buf);
    add_str(out, size, &len, t->room);
    /* A finished game opens as its replay, a running one as its room. */
    snprintf(buf, sizeof buf, ",\"url\":\"/#%s=%s\",\"seat\":%d",
             t->kind == NOTIFIER_OVER ? "replay" : "room", t->room, t->seat);
    add(out, size, &len, buf);
    if (t->kind == NOTIFIER_OVER)
        snprintf(buf, sizeof buf, ",\"rank\":%d", t->rank);
    else if (t->kind == NOTIFIER_REMATCH)
        snprintf(buf, sizeof buf, ",\"from\":%d", t->from);
    else if (t->deadline > 0)
        snprintf(buf, sizeof buf, ",\"deadline\":%lld", t->deadline);
    else
        snprintf(buf, sizeof buf, ",\"deadline\":null");
    add(out, size, &len, buf);
    add(out, size, &len, ",\"players\":[");
    for (int i = 0; i < t->n; i++) {
        if (i > 0)
            add(out, size, &len, ",");
        add_str(out, size, &len, t->names[i]);
    }
    add(out, size, &len, "]");
    if (t->kind == NOTIFIER_OVER) {
        add(out, size, &len, ",\"scores\":[");
        for (int i = 0; i < t->n; i++) {
            snprintf(buf, sizeof buf, "%s%d", i > 0 ? "," : "", t->scores[i]);
            add(out, size, &len, buf);
        }
        add(out, size, &len, "]");
    }
    char title[64], body[NOTIFIER_PLAYERS * NOTIFIER_NAME_MAX + 96];
    words(t, title, sizeof title, body, sizeof body);
    add(out, size, &len, ",\"title\":");
    add_str(out, size, &len, title);
    add(out, size, &len, ",\"body\":");
    add_str(out, size, &len, body);
    add(out, size, &len, "}");
    return len < size ? (int)len : -1;
}

void notifier_notice_send(struct notifier *n, const struct notifier_notice *t)
{
    if (n->closed || told(n, t))
        return;
    mailer_reminder(n->mailer, t); /* NULL, or not time_low: nothing */
    struct notifier_ask *a = NULL;
    for (int i = 0; i < NOTIFIER_ASKS && a == NULL; i++)
        if (!n->asks[i].used)
            a = &n->asks[i];
    int len = a != NULL ? notifier_payload(t, a->payload, sizeof a->payload) : 0;
    if (a == NULL || len < 0) {
        log_warn("push: a notice of room %s was dropped (%s)", t->room,
                 a == NULL ? "too many reads under way" : "too long");
        return;
    }
    a->used = 1;
    a->len = (size_t)len;
    a->account = t->account;
    char title[64], body[NOTIFIER_PLAYERS * NOTIFIER_NAME_MAX + 96];
    words(t, title, sizeof title, body, sizeof body);
    if (n->public_url[0] != '\0')
        snprintf(a->line, sizeof a->line, "%s: %s %s/#%s=%s", title, body, n->public_url,
                 t->kind == NOTIFIER_OVER ? "replay" : "room", t->room);
    else
        snprintf(a->line, sizeof a->line, "%s: %s", title, body);
    if (n->ops.subs(n->ops.arg, t->account, a) != 0) {
        a->used = 0;
        log_warn("push: a notice of room %s was dropped (the accounts service is busy)", t->room);
    }
}

void notifier_mailer_set(struct notifier *n, struct mailer *m)
{
    n->mailer = m;
}

void notifier_close(struct notifier *n)
{
    if (n == NULL)
        return;
    n->closed = 1;
    /* Those waiting for a retry end now; those sending end with their answer
     * (the outbound client answers each once, closed or not). */
    struct job *j = n->head;
    while (j != NULL) {
        struct job *next = j->next;
        if (j->waiting)
            job_end(j);
        j = next;
    }
}

void notifier_free(struct notifier *n)
{
    if (n == NULL)
        return;
    if (n->jobs != 0)
        log_warn("push: %d notice(s) still under way at exit", n->jobs);
    free(n);
}
