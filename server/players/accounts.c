/* accounts.c: the accounts service on the loop (accounts.h): requests wait in
 * one FIFO and run on the thread pool, at most ACCOUNTS_RUNNING at once, each
 * on a database handle of its own (accounts_job.c does the work there).
 *
 * An answer known on the loop (a refused name, a closed registration, a
 * sign-in over its limit, a token that is no token) is not given from inside
 * the accounts_* call: the request goes to the ready list, which an idle
 * handle delivers on the loop's next turn. Ready requests count against
 * ACCOUNTS_QUEUE with the waiting ones, so the memory held is bounded either
 * way.
 *
 * A password change and a deletion run twice: first the session alone (its
 * account's name is only known then), then, back on the loop, the account's
 * sign-in limit is checked (and a new password's rule), and the same job goes
 * back to the pool on the same handle to check the password and do it.
 *
 * The admin's requests and invites are in accounts_admin.c, over the
 * request's life here (accounts_int.h). */
#include "players/accounts.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_int.h"
#include "metrics/metrics.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

#define ATTEMPT_SLOTS 4096 /* keys the sign-in limits remember, per table */

void accounts_config_defaults(struct accounts_config *c)
{
    memset(c, 0, sizeof *c);
    c->registration = ACCOUNTS_OPEN;
    c->session_days = 30;
    c->vacation_days = ACCOUNTS_VACATION_DAYS;
    c->hash_ops = ACCOUNT_HASH_OPS;
    c->hash_mem = ACCOUNT_HASH_MEM;
    c->fail_per_account = 5;
    c->fail_per_address = 20;
    c->fail_window_s = 900;
    c->invite_days = 7;
    c->member_invites = 0;
    c->invites_per_member = 10;
}

static long long wall_ms(void)
{
    return (long long)clock_wall_ms();
}

/* ---- the lists ---- */

static void list_push(struct accounts_list *q, struct accounts_req *r)
{
    r->next = NULL;
    r->prev = q->tail;
    if (q->tail != NULL)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
    q->n++;
}

static void list_unlink(struct accounts_list *q, struct accounts_req *r)
{
    if (r->prev != NULL)
        r->prev->next = r->next;
    else
        q->head = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    else
        q->tail = r->prev;
    r->prev = r->next = NULL;
    q->n--;
}

static struct accounts_req *list_pop(struct accounts_list *q)
{
    struct accounts_req *r = q->head;
    if (r != NULL)
        list_unlink(q, r);
    return r;
}

/* Passwords, tokens and all: nothing of a request stays in freed memory. */
static void req_free(struct accounts_req *r)
{
    free(r->list);
    free(r->ext);
    accounts__games_free(r);
    sodium_memzero(r, sizeof *r);
    free(r);
}

/* carcd_account_signins_total and the like (metrics.h). */
static void count(const struct accounts_req *r)
{
    int st = r->res.status;
    if (r->kind == ACCOUNTS__RATE && st != 0)
        metrics_rating_failure_count();
    if (r->kind != ACCOUNTS__SIGNIN && r->kind != ACCOUNTS__SIGNUP)
        return;
    int result = st == 0                    ? METRICS_ACCOUNT_OK
                 : st == ACCOUNTS_E_RATE    ? METRICS_ACCOUNT_LIMITED
                 : st == ACCOUNTS_E_STORAGE ? METRICS_ACCOUNT_FAILED
                                            : METRICS_ACCOUNT_WRONG;
    metrics_account_count(
        r->kind == ACCOUNTS__SIGNIN ? METRICS_ACCOUNT_SIGNIN : METRICS_ACCOUNT_SIGNUP, result);
}

static void deliver(struct accounts_req *r)
{
    count(r);
    if (r->cb != NULL)
        r->cb(r->arg, &r->res);
    req_free(r);
}

/* ---- new, close ---- */

static void handles_close(struct accounts *a)
{
    for (int i = 0; i < ACCOUNTS_RUNNING; i++) {
        store_accounts_close(a->db[i]);
        a->db[i] = NULL;
    }
}

static void accounts_free(struct accounts *a)
{
    handles_close(a);
    attempts_free(a->by_addr);
    attempts_free(a->by_account);
    sodium_memzero(a->dummy, sizeof a->dummy);
    free(a);
}

/* The dummy hash: of a random password nobody knows, with the parameters of
 * new hashes, so that checking it costs what checking an account's does. */
static int dummy_make(struct accounts *a)
{
    unsigned char pw[32];
    randombytes_buf(pw, sizeof pw);
    int rc = account_hash(a->dummy, (const char *)pw, sizeof pw, a->cfg.hash_ops, a->cfg.hash_mem);
    sodium_memzero(pw, sizeof pw);
    return rc;
}

struct accounts *accounts_new(uv_loop_t *loop, struct store *st, const struct accounts_config *cfg,
                              long long (*now_ms)(void), char *err, size_t errlen)
{
    if (st == NULL) {
        snprintf(err, errlen, "accounts need storage (storage = sqlite or postgres)");
        return NULL;
    }
    if (account_crypto_init() != 0) {
        snprintf(err, errlen, "accounts: libsodium cannot start (no entropy source?)");
        return NULL;
    }
    struct accounts *a = mem_zalloc(1, sizeof *a);
    a->loop = loop;
    if (cfg != NULL)
        a->cfg = *cfg;
    else
        accounts_config_defaults(&a->cfg);
    a->now_ms = now_ms != NULL ? now_ms : wall_ms;
    for (int i = 0; i < ACCOUNTS_RUNNING; i++)
        if ((a->db[i] = store_accounts_open(st, err, errlen)) == NULL) {
            accounts_free(a);
            return NULL;
        }
    if (accounts__bots_ensure(a, a->db[0], err, errlen) != 0) {
        accounts_free(a);
        return NULL;
    }
    if (dummy_make(a) != 0) {
        snprintf(err, errlen, "accounts: cannot hash with %u passes and %zu bytes", a->cfg.hash_ops,
                 a->cfg.hash_mem);
        accounts_free(a);
        return NULL;
    }
    long long window = (long long)a->cfg.fail_window_s * 1000;
    a->by_addr = attempts_new(ATTEMPT_SLOTS, a->cfg.fail_per_address, window);
    a->by_account = attempts_new(ATTEMPT_SLOTS, a->cfg.fail_per_account, window);
    uv_idle_init(loop, &a->idle);
    a->idle.data = a;
    return a;
}

static void on_idle_closed(uv_handle_t *h)
{
    struct accounts *a = h->data;
    void (*done)(void *) = a->done;
    void *arg = a->done_arg;
    accounts_free(a);
    if (done != NULL)
        done(arg);
}

static void on_close_work(uv_work_t *w)
{
    handles_close(w->data);
}

static void on_close_after(uv_work_t *w, int status)
{
    (void)status;
    struct accounts *a = w->data;
    uv_close((uv_handle_t *)&a->idle, on_idle_closed);
}

/* Once nothing runs: the handles closed on the pool, then done on the loop. */
static void close_start(struct accounts *a)
{
    if (a->close_started)
        return;
    a->close_started = 1;
    a->closing.data = a;
    if (uv_queue_work(a->loop, &a->closing, on_close_work, on_close_after) != 0) {
        handles_close(a);
        uv_close((uv_handle_t *)&a->idle, on_idle_closed);
    }
}

void accounts_close(struct accounts *a, void (*done)(void *arg), void *arg)
{
    if (a == NULL || a->closed)
        return;
    a->closed = 1;
    a->done = done;
    a->done_arg = arg;
    struct accounts_req *r;
    while ((r = list_pop(&a->wait)) != NULL)
        req_free(r);
    while ((r = list_pop(&a->ready)) != NULL)
        req_free(r);
    uv_idle_stop(&a->idle);
    if (a->nrunning == 0)
        close_start(a);
}

/* ---- the loop's side of a request ---- */

static void on_idle(uv_idle_t *h)
{
    struct accounts *a = h->data;
    /* Those ready now: a callback's new requests wait for the next turn. */
    int n = a->ready.n;
    struct accounts_req *r;
    while (n-- > 0 && (r = list_pop(&a->ready)) != NULL)
        deliver(r);
    if (a->ready.n == 0)
        uv_idle_stop(&a->idle);
}

/* r answered on the loop: delivered from the idle handle. */
struct accounts_req *accounts__answer_soon(struct accounts_req *r, int status, const char *message)
{
    struct accounts *a = r->a;
    sodium_memzero(r->pw, sizeof r->pw);
    sodium_memzero(r->pw2, sizeof r->pw2);
    accounts__set(&r->res, status);
    if (message != NULL)
        r->res.message = message;
    r->where = ACCOUNTS__READY;
    list_push(&a->ready, r);
    if (!uv_is_active((uv_handle_t *)&a->idle))
        uv_idle_start(&a->idle, on_idle);
    return r;
}

static void on_work(uv_work_t *w)
{
    struct accounts_req *r = w->data;
    accounts__job_run(r, r->a->db[r->handle]);
}

static void on_after_work(uv_work_t *w, int status);

/* Waiting requests to the pool while a handle is free. */
static void pump(struct accounts *a)
{
    while (a->nrunning < ACCOUNTS_RUNNING && a->wait.head != NULL) {
        struct accounts_req *r = list_pop(&a->wait);
        int i = 0;
        while (a->busy[i])
            i++;
        r->handle = i;
        r->now = a->now_ms();
        r->where = ACCOUNTS__RUNNING;
        r->work.data = r;
        if (uv_queue_work(a->loop, &r->work, on_work, on_after_work) != 0) {
            log_event(LOG_WARN, NULL, "accounts: the thread pool refused a job");
            accounts__answer_soon(r, ACCOUNTS_E_STORAGE, NULL);
            continue;
        }
        a->busy[i] = 1;
        a->nrunning++;
    }
    metrics_account_waiting_set(a->wait.n);
}

static int64_t max64(int64_t x, int64_t y)
{
    return x > y ? x : y;
}

/* The wait before r's address and account may try again (0: now). */
static int64_t limit_wait(struct accounts_req *r, int with_account)
{
    struct accounts *a = r->a;
    int64_t now = a->now_ms();
    int64_t w = attempts_wait_ms(a->by_addr, r->peer, now);
    if (with_account && r->key[0] != '\0')
        w = max64(w, attempts_wait_ms(a->by_account, r->key, now));
    return w;
}

static struct accounts_req *answer_rate(struct accounts_req *r, int64_t wait)
{
    r->res.retry_after_ms = wait;
    return accounts__answer_soon(r, ACCOUNTS_E_RATE, NULL);
}

/* A name's key for the limits and the lookup: the name checked, except that
 * a reserved name may still be an account's (the admin API makes them). 0, or
 * -1 when it is no name at all. */
int accounts__name_key(const char *name, char key[ACCOUNT_NAME_MAX + 1])
{
    int rc = account_name_check(name, key);
    if (rc == ACCOUNT_NAME_RESERVED) {
        size_t i = 0;
        for (; name[i] != '\0'; i++)
            key[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
        key[i] = '\0';
        return 0;
    }
    return rc == ACCOUNT_OK ? 0 : -1;
}

/* After a password was checked (sign-in, change, deletion): failures count
 * for the address and the account, a success forgets the account's. */
static void limits_note(struct accounts_req *r)
{
    struct accounts *a = r->a;
    if (r->res.status == ACCOUNTS_E_CREDENTIALS) {
        int64_t now = a->now_ms();
        attempts_fail(a->by_addr, r->peer, now);
        if (r->key[0] != '\0')
            attempts_fail(a->by_account, r->key, now);
    } else if (r->res.status == 0 && r->key[0] != '\0') {
        attempts_clear(a->by_account, r->key);
    }
}

/* Between the two phases of a password change or deletion: 1 when r goes
 * back to the pool (on the same handle), 0 when its answer is known. */
static int phase_next(struct accounts_req *r)
{
    struct accounts *a = r->a;
    if (r->res.status != 0 || r->cb == NULL)
        return 0;
    if (accounts__name_key(r->res.name, r->key) != 0)
        r->key[0] = '\0';
    int64_t wait = limit_wait(r, 1);
    if (wait > 0) {
        r->res.retry_after_ms = wait;
        accounts__set(&r->res, ACCOUNTS_E_RATE);
        return 0;
    }
    if (r->kind == ACCOUNTS__PASSWORD) {
        int refusal = account_password_check(r->res.name, r->pw2, r->pw2_len);
        if (refusal != ACCOUNT_OK) {
            accounts__set(&r->res, ACCOUNTS_E_PASSWORD);
            r->res.message = account_refusal_text(refusal);
            return 0;
        }
    }
    r->phase = 1;
    r->now = a->now_ms();
    if (uv_queue_work(a->loop, &r->work, on_work, on_after_work) != 0) {
        log_event(LOG_WARN, NULL, "accounts: the thread pool refused a job");
        accounts__set(&r->res, ACCOUNTS_E_STORAGE);
        return 0;
    }
    return 1;
}

static void on_after_work(uv_work_t *w, int status)
{
    (void)status; /* nothing is ever cancelled with uv_cancel */
    struct accounts_req *r = w->data;
    struct accounts *a = r->a;
    int two = r->kind == ACCOUNTS__PASSWORD || r->kind == ACCOUNTS__DELETE;
    if (two && r->phase == 0 && phase_next(r))
        return; /* still running, on its handle */
    a->busy[r->handle] = 0;
    a->nrunning--;
    if (r->kind == ACCOUNTS__SIGNIN || (two && r->phase == 1))
        limits_note(r);
    deliver(r);
    if (a->closed) {
        if (a->nrunning == 0)
            close_start(a);
    } else {
        pump(a);
    }
}

/* ---- the requests ---- */

/* A new request of a, or NULL when the FIFO (with the ready list) is full or
 * a closed. */
struct accounts_req *accounts__req_new(struct accounts *a, int kind, accounts_cb cb, void *arg)
{
    if (a == NULL || a->closed)
        return NULL;
    if (a->wait.n + a->ready.n >= ACCOUNTS_QUEUE) {
        metrics_account_refused_count();
        return NULL;
    }
    struct accounts_req *r = mem_zalloc(1, sizeof *r);
    r->a = a;
    r->kind = kind;
    r->cb = cb;
    r->arg = arg;
    return r;
}

struct accounts_req *accounts__queue(struct accounts_req *r)
{
    r->where = ACCOUNTS__WAITING;
    list_push(&r->a->wait, r);
    pump(r->a);
    return r;
}

static void copy(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src != NULL ? src : "");
}

/* A password into dst (0), or -1 when it is longer than any can be (nothing
 * copied). */
static int pw_copy(char dst[ACCOUNT_PASSWORD_MAX], size_t *dlen, const char *pw, size_t len)
{
    *dlen = 0;
    if (pw == NULL || len > ACCOUNT_PASSWORD_MAX)
        return -1;
    memcpy(dst, pw, len);
    *dlen = len;
    return 0;
}

struct accounts_req *accounts_signup(struct accounts *a, const char *name, const char *password,
                                     size_t len, const char *invite, const char *peer,
                                     accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__SIGNUP, cb, arg);
    if (r == NULL)
        return NULL;
    copy(r->peer, sizeof r->peer, peer);
    if (a->cfg.registration == ACCOUNTS_CLOSED)
        return accounts__answer_soon(r, ACCOUNTS_E_CLOSED, NULL);
    int refusal = account_name_check(name != NULL ? name : "", r->key);
    if (refusal == ACCOUNT_OK)
        refusal = account_password_check(name, password != NULL ? password : "",
                                         password != NULL ? len : 0);
    if (refusal != ACCOUNT_OK)
        return accounts__answer_soon(r,
                                     refusal == ACCOUNT_PASSWORD_LENGTH ||
                                             refusal == ACCOUNT_PASSWORD_NAME
                                         ? ACCOUNTS_E_PASSWORD
                                         : ACCOUNTS_E_NAME,
                                     account_refusal_text(refusal));
    if (a->cfg.registration == ACCOUNTS_INVITE) {
        /* An invite is used only while one is needed. */
        if (invite == NULL || invite[0] == '\0' || strlen(invite) > STORE_INVITE_MAX)
            return accounts__answer_soon(r, ACCOUNTS_E_INVITE, NULL);
        copy(r->invite, sizeof r->invite, invite);
    }
    copy(r->name, sizeof r->name, name);
    pw_copy(r->pw, &r->pw_len, password, len);
    return accounts__queue(r);
}

struct accounts_req *accounts_signin(struct accounts *a, const char *name, const char *password,
                                     size_t len, const char *peer, accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__SIGNIN, cb, arg);
    if (r == NULL)
        return NULL;
    copy(r->peer, sizeof r->peer, peer);
    if (accounts__name_key(name != NULL ? name : "", r->key) == 0)
        copy(r->name, sizeof r->name, name);
    else
        r->bad = 1; /* no such account can be: a failure like a wrong password */
    int64_t wait = limit_wait(r, 1);
    if (wait > 0)
        return answer_rate(r, wait);
    if (pw_copy(r->pw, &r->pw_len, password, len) != 0)
        r->bad = 1;
    return accounts__queue(r);
}

/* A request about the session of token: its digest, or the answer at once
 * (status for a token that cannot be anyone's). */
struct accounts_req *accounts__token_req(struct accounts *a, int kind, const char *token,
                                         int status, accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__req_new(a, kind, cb, arg);
    if (r == NULL)
        return NULL;
    if (token == NULL || !token_valid(token) || token_digest(token, r->digest) != 0)
        return accounts__answer_soon(r, status, NULL);
    return r;
}

struct accounts_req *accounts_session(struct accounts *a, const char *token, accounts_cb cb,
                                      void *arg)
{
    struct accounts_req *r =
        accounts__token_req(a, ACCOUNTS__SESSION, token, ACCOUNTS_E_SESSION, cb, arg);
    return r == NULL || r->where == ACCOUNTS__READY ? r : accounts__queue(r);
}

struct accounts_req *accounts_signout(struct accounts *a, const char *token, accounts_cb cb,
                                      void *arg)
{
    struct accounts_req *r = accounts__token_req(a, ACCOUNTS__SIGNOUT, token, 0, cb, arg);
    return r == NULL || r->where == ACCOUNTS__READY ? r : accounts__queue(r);
}

/* A password change or a deletion: the address' limit now, the account's
 * once phase 0 has found whose session it is. */
static struct accounts_req *checked_req(struct accounts *a, int kind, const char *token,
                                        const char *pw, size_t len, const char *peer,
                                        accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__token_req(a, kind, token, ACCOUNTS_E_SESSION, cb, arg);
    if (r == NULL || r->where == ACCOUNTS__READY)
        return r;
    copy(r->peer, sizeof r->peer, peer);
    int64_t wait = limit_wait(r, 0);
    if (wait > 0)
        return answer_rate(r, wait);
    if (pw_copy(r->pw, &r->pw_len, pw, len) != 0)
        r->bad = 1;
    return r;
}

struct accounts_req *accounts_password(struct accounts *a, const char *token, const char *old_pw,
                                       size_t old_len, const char *new_pw, size_t new_len,
                                       const char *peer, accounts_cb cb, void *arg)
{
    struct accounts_req *r =
        checked_req(a, ACCOUNTS__PASSWORD, token, old_pw, old_len, peer, cb, arg);
    if (r == NULL || r->where == ACCOUNTS__READY)
        return r;
    if (pw_copy(r->pw2, &r->pw2_len, new_pw, new_len) != 0) {
        int refusal = ACCOUNT_PASSWORD_LENGTH;
        return accounts__answer_soon(r, ACCOUNTS_E_PASSWORD, account_refusal_text(refusal));
    }
    return accounts__queue(r);
}

struct accounts_req *accounts_delete(struct accounts *a, const char *token, const char *password,
                                     size_t len, const char *peer, accounts_cb cb, void *arg)
{
    struct accounts_req *r = checked_req(a, ACCOUNTS__DELETE, token, password, len, peer, cb, arg);
    return r == NULL || r->where == ACCOUNTS__READY ? r : accounts__queue(r);
}

void accounts_cancel(struct accounts_req *r)
{
    if (r == NULL)
        return;
    switch (r->where) {
    case ACCOUNTS__WAITING:
        list_unlink(&r->a->wait, r);
        req_free(r);
        break;
    case ACCOUNTS__READY:
        list_unlink(&r->a->ready, r);
        req_free(r);
        break;
    default: /* on the pool: dropped when it comes back */
        r->cb = NULL;
        break;
    }
}
