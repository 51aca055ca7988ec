/* mail.c: the mailer (mail.h): the digest's timer and runs, the reminders'
 * reads, and each message handed to the outbound client. */
#include "notify/mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

#define DAY_MS 86400000LL
/* The next batch of a digest is asked only while the outbound client holds
 * at most this many requests (its queue is 256: a claimed digest that found
 * it full would be lost for the day); else again after PACE_MS. */
#define MAIL_IN_FLIGHT 96
#define PACE_MS 500

/* A read of settings under way: the digest's (one at a time) or a reminder's. */
struct mail_ask {
    struct mailer *m;
    int used;
    int digest;                 /* 1: the digest's batch */
    struct notifier_notice low; /* a reminder's notice */
};

struct mailer {
    uv_loop_t *loop;
    struct outbound *out;
    struct mail_ops ops;
    char smtp_url[512], from[256], public_url[512];
    struct mail_config cfg; /* pointing at the copies above */
    uv_timer_t timer;
    uv_timer_t pace; /* a digest waiting for the outbound queue to drain */
    int closed;
    /* The digest run under way: its games sorted by account, the accounts
     * asked so far (next: the index of the first game not yet asked). */
    struct mail_game *games;
    int ngames, next, running;
    long long day;
    struct mail_ask digest_ask;
    struct mail_ask asks[MAIL_ASKS];
};

/* What one message is, for its answer (freed there). */
struct sent {
    int kind; /* METRICS_MAIL_DIGEST or _REMINDER */
    long long account;
};

static void on_sent(void *arg, const struct outbound_result *r)
{
    struct sent *s = arg;
    int ok = r->error == 0 && r->status >= 200 && r->status < 300;
    metrics_mail_count(s->kind, ok);
    if (!ok)
        log_warn("mail: a %s to account %lld was not sent: %s (relay status %ld)",
                 s->kind == METRICS_MAIL_DIGEST ? "digest" : "reminder", s->account,
                 r->error != 0 ? srv_status_name(r->error) : "refused", r->status);
    free(s);
}

/* text[0..len) to a's address. */
static void send_text(struct mailer *m, int kind, const struct mail_account *a, const char *text,
                      int len)
{
    if (len < 0) {
        log_warn("mail: a message to account %lld was too long", a->account);
        metrics_mail_count(kind, 0);
        return;
    }
    struct sent *s = mem_zalloc(1, sizeof *s);
    s->kind = kind;
    s->account = a->account;
    int rc = outbound_mail(m->out, m->smtp_url, m->from, a->address, text, (size_t)len, on_sent, s);
    if (rc != 0) {
        log_warn("mail: a message to account %lld was not queued: %s", a->account,
                 srv_status_name(rc));
        metrics_mail_count(kind, 0);
        free(s);
    }
}

static int by_account(const void *x, const void *y)
{
    const struct mail_game *a = x, *b = y;
    if (a->account != b->account)
        return a->account < b->account ? -1 : 1;
    /* The least time left first; games without a clock last. */
    long long da = a->deadline > 0 ? a->deadline : 1LL << 62;
    long long db = b->deadline > 0 ? b->deadline : 1LL << 62;
    return da < db ? -1 : da > db ? 1 : strcmp(a->room, b->room);
}

static void digest_end(struct mailer *m)
{
    free(m->games);
    m->games = NULL;
    m->ngames = m->next = m->running = 0;
}

static void digest_next(struct mailer *m);

static void on_pace(uv_timer_t *t)
{
    digest_next(t->data);
}

/* The next batch's accounts asked (once the outbound queue has room for
 * its mails); the run ends when none is left. */
static void digest_next(struct mailer *m)
{
    if (m->next < m->ngames && outbound_pending(m->out) > MAIL_IN_FLIGHT - MAIL_BATCH) {
        uv_timer_start(&m->pace, on_pace, PACE_MS, 0);
        return;
    }
    long long ids[MAIL_BATCH];
    int n = 0;
    while (m->next < m->ngames && n < MAIL_BATCH) {
        long long id = m->games[m->next].account;
        if (n == 0 || ids[n - 1] != id)
            ids[n++] = id;
        while (m->next < m->ngames && m->games[m->next].account == id)
            m->next++;
    }
    if (n == 0) {
        digest_end(m);
        return;
    }
    m->digest_ask.used = 1;
    if (m->ops.settings(m->ops.arg, ids, n, m->day, &m->digest_ask) != 0) {
        m->digest_ask.used = 0;
        log_warn("mail: the digest stopped (the accounts service is busy); the rest next day");
        digest_end(m);
    }
}

/* The digests of a batch's accounts that claimed today's. */
static void digest_answer(struct mailer *m, const struct mail_account *rows, int n)
{
    char *text = mem_alloc(MAIL_MESSAGE_MAX);
    long long now = clock_wall_ms();
    for (int i = 0; i < n; i++) {
        if (!rows[i].claimed || rows[i].address[0] == '\0')
            continue;
        int first = -1, count = 0;
        for (int k = 0; k < m->next; k++)
            if (m->games[k].account == rows[i].account) {
                first = first < 0 ? k : first;
                count++;
            }
        if (count == 0)
            continue;
        int len = mail_digest_text(&m->cfg, &rows[i], &m->games[first], count, now, text,
                                   MAIL_MESSAGE_MAX);
        send_text(m, METRICS_MAIL_DIGEST, &rows[i], text, len);
    }
    free(text);
    digest_next(m);
}

int mailer_digest_run(struct mailer *m)
{
    if (m->closed || m->running)
        return -1;
    m->games = mem_zalloc(MAIL_GAMES, sizeof *m->games);
    m->ngames = m->ops.waiting(m->ops.arg, m->games, MAIL_GAMES);
    if (m->ngames < 0)
        m->ngames = 0;
    m->next = 0;
    m->running = 1;
    m->day = clock_wall_ms() / DAY_MS;
    qsort(m->games, (size_t)m->ngames, sizeof *m->games, by_account);
    log_info("mail: the digest of day %lld: %d game(s) wait", m->day, m->ngames);
    digest_next(m);
    return 0;
}

static void on_timer(uv_timer_t *t)
{
    struct mailer *m = t->data;
    if (mailer_digest_run(m) != 0)
        log_warn("mail: the digest's hour came while the last run was still going: skipped");
    uv_timer_start(&m->timer, on_timer,
                   (uint64_t)mail_digest_wait(m->cfg.digest_hour, clock_wall_ms()), 0);
}

struct mailer *mailer_new(uv_loop_t *loop, struct outbound *o, const struct mail_config *c,
                          const struct mail_ops *ops)
{
    struct mailer *m = mem_zalloc(1, sizeof *m);
    m->loop = loop;
    m->out = o;
    m->ops = *ops;
    snprintf(m->smtp_url, sizeof m->smtp_url, "%s", c->smtp_url);
    snprintf(m->from, sizeof m->from, "%s", c->from);
    snprintf(m->public_url, sizeof m->public_url, "%s", c->public_url);
    m->cfg = (struct mail_config){m->smtp_url, m->from, m->public_url, c->digest_hour};
    m->digest_ask.m = m;
    m->digest_ask.digest = 1;
    for (int i = 0; i < MAIL_ASKS; i++)
        m->asks[i].m = m;
    uv_timer_init(loop, &m->timer);
    m->timer.data = m;
    uv_timer_init(loop, &m->pace);
    m->pace.data = m;
    /* Started after the hour (or down at it): today's digest soon, once the
     * rooms are back; the day's claim keeps it from going twice. */
    long long now = clock_wall_ms();
    long long wait = mail_digest_wait(c->digest_hour, now);
    int passed = now % DAY_MS >= (long long)c->digest_hour * 3600000LL;
    uv_timer_start(&m->timer, on_timer, (uint64_t)(passed ? MAIL_START_DELAY_MS : wait), 0);
    return m;
}

void mailer_reminder(struct mailer *m, const struct notifier_notice *t)
{
    if (m == NULL || m->closed || t->kind != NOTIFIER_LOW || t->account <= 0)
        return;
    struct mail_ask *a = NULL;
    for (int i = 0; i < MAIL_ASKS && a == NULL; i++)
        if (!m->asks[i].used)
            a = &m->asks[i];
    if (a == NULL) {
        log_warn("mail: a reminder of room %s was dropped (too many reads under way)", t->room);
        return;
    }
    a->used = 1;
    a->low = *t;
    if (m->ops.settings(m->ops.arg, &t->account, 1, 0, a) != 0) {
        a->used = 0;
        log_warn("mail: a reminder of room %s was dropped (the accounts service is busy)", t->room);
    }
}

void mail_settings_answer(struct mail_ask *ask, const struct mail_account *rows, int n)
{
    struct mailer *m = ask->m;
    ask->used = 0;
    if (m->closed)
        return;
    if (ask->digest) {
        digest_answer(m, rows, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (rows[i].account != ask->low.account || !rows[i].reminders || rows[i].address[0] == '\0')
            continue;
        char *text = mem_alloc(MAIL_MESSAGE_MAX);
        int len = mail_reminder_text(&m->cfg, &rows[i], &ask->low, clock_wall_ms(), text,
                                     MAIL_MESSAGE_MAX);
        send_text(m, METRICS_MAIL_REMINDER, &rows[i], text, len);
        free(text);
    }
}

static void timer_closed(uv_handle_t *h)
{
    (void)h;
}

void mailer_close(struct mailer *m)
{
    if (m == NULL || m->closed)
        return;
    m->closed = 1;
    uv_close((uv_handle_t *)&m->timer, timer_closed);
    uv_close((uv_handle_t *)&m->pace, timer_closed);
    digest_end(m);
}

void mailer_free(struct mailer *m)
{
    if (m == NULL)
        return;
    free(m->games);
    free(m);
}
