/* outbound.c: see outbound.h. Two threads share a struct outbound: the
 * caller's loop (outbound_post, outbound_close, on_back) and the client's
 * thread (everything that touches libcurl). They meet only in the two lists
 * under `mu` (requests in, answers out) and the two uv_async handles. */
#include "notify/outbound.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

#define URL_MAX 2048
#define CA_MAX 16

struct req {
    struct req *next, *prev; /* in, out: singly; running (thread): doubly */
    char *url;
    struct curl_slist *headers;
    char *body;
    size_t len;
    outbound_cb cb;
    void *arg;
    outbound_prepare prepare; /* NULL: body and headers given */
    char *mail_from;          /* an e-mail (outbound_mail): the envelope; else NULL */
    struct curl_slist *rcpt;
    size_t sent;         /* bytes of body read by libcurl (an e-mail's upload) */
    int refused_private; /* on_open refused a private address */
    struct outbound *o;
    void *parg;
    CURL *easy;
    char errbuf[CURL_ERROR_SIZE];
    char *resp;
    size_t resp_len;
    struct outbound_result res;
};

struct sock {
    uv_poll_t poll;
    curl_socket_t fd;
    struct outbound *o;
};

struct outbound {
    struct outbound_config cfg;
    char *ua;
    X509 *ca[CA_MAX];
    int nca;
    int bundle_only; /* the system's CAs from libcurl's bundle alone, cached (outbound_new) */
    /* the caller's loop */
    uv_loop_t *main;
    uv_async_t back;
    int pending; /* posted and not yet answered */
    int closing;
    void (*done)(void *arg);
    void *done_arg;
    /* the client's thread */
    uv_thread_t thread;
    uv_loop_t loop;
    uv_async_t wake;
    uv_timer_t timer;
    CURLM *multi;
    struct req *running;
    /* shared, under mu */
    uv_mutex_t mu;
    struct req *in_head, *in_tail, *out_head, *out_tail;
    int stopping, thread_done;
};

void outbound_config_defaults(struct outbound_config *c)
{
    memset(c, 0, sizeof *c);
    c->queue_max = 256;
    c->timeout_ms = 10000;
    c->connect_timeout_ms = 5000;
    c->response_max = 4096;
}

static void req_free(struct req *r)
{
    free(r->mail_from);
    curl_slist_free_all(r->rcpt);
    free(r->url);
    curl_slist_free_all(r->headers);
    free(r->body);
    free(r->resp);
    free(r);
}

static void push(struct req **head, struct req **tail, struct req *r)
{
    r->next = NULL;
    if (*tail != NULL)
        (*tail)->next = r;
    else
        *head = r;
    *tail = r;
}

/* ---- the client's thread ---- */

/* r is answered: to the caller's loop. */
static void finish(struct outbound *o, struct req *r)
{
    r->res.body = r->resp != NULL ? r->resp : "";
    r->res.body_len = r->resp_len;
    uv_mutex_lock(&o->mu);
    /* Woken once per batch: on_back takes every answer queued. Fewer sends
     * matter beyond the syscall: libuv 1.44's loop spins (sched_yield) on an
     * async handle another thread is half-way through sending, so a sender
     * preempted there holds the caller's loop turn (perf under make
     * bench-push). */
    int wake = o->out_head == NULL;
    push(&o->out_head, &o->out_tail, r);
    uv_mutex_unlock(&o->mu);
    if (wake)
        uv_async_send(&o->back);
}

static void running_unlink(struct outbound *o, struct req *r)
{
    if (r->prev != NULL)
        r->prev->next = r->next;
    else
        o->running = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    r->next = r->prev = NULL;
}

/* Whether an address is one a user's URL may not reach (outbound.h private_ok). */
static int private_v4(uint32_t a)
{
    return (a >> 24) == 0 || (a >> 24) == 10 || (a >> 24) == 127 || (a >> 22) == (100u << 2 | 1) ||
           (a >> 16) == (169u << 8 | 254) || (a >> 20) == (172u << 4 | 1) ||
           (a >> 16) == (192u << 8 | 168) || (a >> 28) >= 14;
}

static int private_addr(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return private_v4(ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr));
    if (sa->sa_family != AF_INET6)
        return 1;
    const uint8_t *b = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(b, mapped, 12) == 0)
        return private_v4((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | b[14] << 8 | b[15]);
    static const uint8_t zero[15] = {0};
    if (memcmp(b, zero, 15) == 0) /* :: and ::1 */
        return 1;
    return (b[0] & 0xfe) == 0xfc || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) || b[0] == 0xff;
}

/* CURLOPT_OPENSOCKETFUNCTION of a user's URL: no private address. */
static curl_socket_t on_open(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
    struct req *r = arg;
    (void)purpose;
    if (!r->o->cfg.private_ok && private_addr(&a->addr)) {
        r->refused_private = 1;
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype, a->protocol);
}

static int error_of(CURLcode c)
{
    switch (c) {
    case CURLE_OPERATION_TIMEDOUT:
        return OUTBOUND_E_TIMEOUT;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
        return OUTBOUND_E_CONNECT;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
        return OUTBOUND_E_TLS;
    default:
        return OUTBOUND_E_FAILED;
    }
}

/* Retry-After as seconds from now (a number or an HTTP date), or -1. */
static long retry_after(CURL *e)
{
    struct curl_header *h = NULL;
    if (curl_easy_header(e, "Retry-After", 0, CURLH_HEADER, -1, &h) != CURLHE_OK)
        return -1;
    char *end = NULL;
    long s = strtol(h->value, &end, 10);
    if (end != h->value && *end == '\0')
        return s >= 0 ? s : -1;
    time_t at = curl_getdate(h->value, NULL);
    if (at < 0)
        return -1;
    time_t now = time(NULL);
    return at > now ? (long)(at - now) : 0;
}

static void done_one(struct outbound *o, CURL *e, CURLcode c)
{
    struct req *r = NULL;
    curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&r);
    r->res.retry_after_s = -1;
    /* the last reply's code, also of a failed exchange (an SMTP 550) */
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r->res.status);
    if (c == CURLE_OK) {
        r->res.retry_after_s = retry_after(e);
    } else if (r->refused_private) {
        r->res.error = OUTBOUND_E_PRIVATE;
        r->res.message = "the host is at a loopback, private or link-local address";
    } else {
        r->res.error = error_of(c);
        r->res.message = r->errbuf[0] != '\0' ? r->errbuf : curl_easy_strerror(c);
    }
    curl_multi_remove_handle(o->multi, e);
    curl_easy_cleanup(e);
    r->easy = NULL;
    running_unlink(o, r);
    finish(o, r);
}

static void check_done(struct outbound *o)
{
    CURLMsg *m;
    int left = 0;
    while ((m = curl_multi_info_read(o->multi, &left)) != NULL)
        if (m->msg == CURLMSG_DONE)
            done_one(o, m->easy_handle, m->data.result);
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    struct sock *k = h->data;
    struct outbound *o = k->o;
    int flags = status < 0 ? CURL_CSELECT_ERR : 0;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    int running = 0;
    curl_multi_socket_action(o->multi, k->fd, flags, &running);
    check_done(o);
}

static void on_timeout(uv_timer_t *t)
{
    struct outbound *o = t->data;
    int running = 0;
    curl_multi_socket_action(o->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_done(o);
}

static void sock_free(uv_handle_t *h)
{
    free(h->data);
}

/* CURLMOPT_SOCKETFUNCTION: watch fd for what curl wants. */
static int on_socket(CURL *e, curl_socket_t fd, int what, void *userp, void *socketp)
{
    (void)e;
    struct outbound *o = userp;
    struct sock *k = socketp;
    if (what == CURL_POLL_REMOVE) {
        if (k != NULL) {
            uv_poll_stop(&k->poll); /* out of epoll now: curl closes fd next */
            uv_close((uv_handle_t *)&k->poll, sock_free);
            curl_multi_assign(o->multi, fd, NULL);
        }
        return 0;
    }
    if (k == NULL) {
        k = mem_zalloc(1, sizeof *k);
        k->o = o;
        k->fd = fd;
        if (uv_poll_init_socket(&o->loop, &k->poll, fd) != 0) {
            free(k);
            return -1;
        }
        k->poll.data = k;
        curl_multi_assign(o->multi, fd, k);
    }
    int ev = (what & CURL_POLL_IN ? UV_READABLE : 0) | (what & CURL_POLL_OUT ? UV_WRITABLE : 0);
    return uv_poll_start(&k->poll, ev, on_poll) == 0 ? 0 : -1;
}

/* CURLMOPT_TIMERFUNCTION: never act from inside it; the timer calls back. */
static int on_timer_set(CURLM *m, long ms, void *userp)
{
    (void)m;
    struct outbound *o = userp;
    if (ms < 0)
        uv_timer_stop(&o->timer);
    else
        uv_timer_start(&o->timer, on_timeout, (uint64_t)ms, 0);
    return 0;
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
    struct req *r = arg;
    size_t len = size * n;
    size_t max = r->res.body_len; /* response_max, kept there until the end */
    size_t keep = r->resp_len < max ? max - r->resp_len : 0;
    if (keep > len)
        keep = len;
    if (keep > 0) {
        memcpy(r->resp + r->resp_len, p, keep);
        r->resp_len += keep;
        r->resp[r->resp_len] = '\0';
    }
    return len; /* the rest is read and dropped */
}

/* CURLOPT_SSL_CTX_FUNCTION: the extra CAs beside the system's. */
static CURLcode on_ssl_ctx(CURL *e, void *ctx, void *arg)
{
    (void)e;
    struct outbound *o = arg;
    X509_STORE *st = SSL_CTX_get_cert_store((SSL_CTX *)ctx);
    for (int i = 0; i < o->nca; i++)
        X509_STORE_add_cert(st, o->ca[i]); /* a second add of one certificate is harmless */
    ERR_clear_error();
    return CURLE_OK;
}

/* The caller's prepare, on this thread: body and headers into r. 0, or the
 * status that answers r. */
static int prepare(struct req *r)
{
    struct outbound_prep p;
    memset(&p, 0, sizeof p);
    int rc = r->prepare(r->parg, &p);
    struct curl_slist *l = curl_slist_append(NULL, "Expect:");
    for (int i = 0; i < p.nheaders && i < OUTBOUND_HEADERS_MAX; i++) {
        struct curl_slist *n = l != NULL && rc == 0 ? curl_slist_append(l, p.headers[i]) : NULL;
        if (n == NULL && rc == 0)
            rc = OUTBOUND_E_FAILED;
        if (n != NULL)
            l = n;
        free(p.headers[i]);
    }
    r->headers = l;
    r->body = p.body != NULL ? p.body : mem_strdup("");
    r->len = p.body != NULL ? p.len : 0;
    return l == NULL && rc == 0 ? OUTBOUND_E_FAILED : rc;
}

/* CURLOPT_READFUNCTION of an e-mail: its message, in pieces. */
static size_t on_read(char *p, size_t size, size_t n, void *arg)
{
    struct req *r = arg;
    size_t left = r->len - r->sent;
    size_t k = size * n < left ? size * n : left;
    memcpy(p, r->body + r->sent, k);
    r->sent += k;
    return k;
}

static void mail_options(CURL *e, struct req *r)
{
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    curl_easy_setopt(e, CURLOPT_USE_SSL, (long)CURLUSESSL_TRY);
    curl_easy_setopt(e, CURLOPT_MAIL_FROM, r->mail_from);
    curl_easy_setopt(e, CURLOPT_MAIL_RCPT, r->rcpt);
    curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(e, CURLOPT_READDATA, r);
    curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->len);
}

static int start(struct outbound *o, struct req *r)
{
    CURL *e = curl_easy_init();
    if (e == NULL)
        return -1;
    r->easy = e;
    r->o = o;
    r->resp = mem_alloc(o->cfg.response_max + 1);
    r->resp[0] = '\0';
    r->res.body_len = o->cfg.response_max; /* on_data's limit until the answer */
    curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)r);
    curl_easy_setopt(e, CURLOPT_URL, r->url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)o->cfg.timeout_ms);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)o->cfg.connect_timeout_ms);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    if (r->mail_from != NULL) {
        mail_options(e, r);
    } else {
        curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "https");
        curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, on_open);
        curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, r);
        curl_easy_setopt(e, CURLOPT_USERAGENT, o->ua);
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len);
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    }
    if (o->bundle_only)
        curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
    if (o->nca > 0) {
        curl_easy_setopt(e, CURLOPT_SSL_CTX_FUNCTION, on_ssl_ctx);
        curl_easy_setopt(e, CURLOPT_SSL_CTX_DATA, o);
    }
    if (curl_multi_add_handle(o->multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        r->easy = NULL;
        return -1;
    }
    r->prev = NULL;
    r->next = o->running;
    if (o->running != NULL)
        o->running->prev = r;
    o->running = r;
    return 0;
}

static void closed_answer(struct outbound *o, struct req *r, int error, const char *why)
{
    r->res.error = error;
    r->res.retry_after_s = -1;
    r->res.message = why;
    r->res.body_len = 0;
    finish(o, r);
}

static void close_any(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, h->type == UV_POLL ? sock_free : NULL);
}

/* Stop: every request answered OUTBOUND_E_CLOSED, libcurl let go, the
 * thread's handles closed (uv_run then returns). */
static void stop(struct outbound *o)
{
    while (o->running != NULL) {
        struct req *r = o->running;
        curl_multi_remove_handle(o->multi, r->easy);
        curl_easy_cleanup(r->easy);
        r->easy = NULL;
        running_unlink(o, r);
        closed_answer(o, r, OUTBOUND_E_CLOSED, "the outbound client closed");
    }
    curl_multi_cleanup(o->multi);
    o->multi = NULL;
    uv_walk(&o->loop, close_any, NULL);
}

static void on_wake(uv_async_t *h)
{
    struct outbound *o = h->data;
    uv_mutex_lock(&o->mu);
    struct req *r = o->in_head;
    o->in_head = o->in_tail = NULL;
    int stopping = o->stopping;
    uv_mutex_unlock(&o->mu);
    while (r != NULL) {
        struct req *next = r->next;
        int rc = stopping || r->prepare == NULL ? 0 : prepare(r);
        if (stopping)
            closed_answer(o, r, OUTBOUND_E_CLOSED, "the outbound client closed");
        else if (rc != 0)
            closed_answer(o, r, rc, "the request could not be made");
        else if (start(o, r) != 0)
            closed_answer(o, r, OUTBOUND_E_FAILED, "libcurl refused the request");
        r = next;
    }
    if (stopping && o->multi != NULL)
        stop(o);
}

static void thread_main(void *arg)
{
    struct outbound *o = arg;
    uv_run(&o->loop, UV_RUN_DEFAULT);
    uv_mutex_lock(&o->mu);
    o->thread_done = 1;
    uv_mutex_unlock(&o->mu);
    uv_async_send(&o->back);
}

/* ---- the caller's loop ---- */

static void outbound_free(struct outbound *o)
{
    for (int i = 0; i < o->nca; i++)
        X509_free(o->ca[i]);
    free(o->ua);
    uv_mutex_destroy(&o->mu);
    free(o);
    curl_global_cleanup();
}

static void on_back_closed(uv_handle_t *h)
{
    struct outbound *o = h->data;
    void (*done)(void *) = o->done;
    void *arg = o->done_arg;
    outbound_free(o);
    if (done != NULL)
        done(arg);
}

static void on_back(uv_async_t *h)
{
    struct outbound *o = h->data;
    uv_mutex_lock(&o->mu);
    struct req *r = o->out_head;
    o->out_head = o->out_tail = NULL;
    int ended = o->thread_done;
    uv_mutex_unlock(&o->mu);
    while (r != NULL) {
        struct req *next = r->next;
        o->pending--;
        r->cb(r->arg, &r->res);
        req_free(r);
        r = next;
    }
    if (ended && !uv_is_closing((uv_handle_t *)&o->back)) {
        uv_thread_join(&o->thread); /* it has returned: no wait */
        uv_loop_close(&o->loop);
        uv_close((uv_handle_t *)&o->back, on_back_closed);
    }
}

static int ca_load(struct outbound *o, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "outbound-ca-file %s: cannot be read", path);
        return -1;
    }
    X509 *x;
    while (o->nca < CA_MAX && (x = PEM_read_X509(f, NULL, NULL, NULL)) != NULL)
        o->ca[o->nca++] = x;
    fclose(f);
    ERR_clear_error(); /* the read that ended the loop */
    if (o->nca == 0) {
        snprintf(err, errlen, "outbound-ca-file %s: no PEM certificate in it", path);
        return -1;
    }
    return 0;
}

struct outbound *outbound_new(uv_loop_t *loop, const struct outbound_config *cfg, char *err,
                              size_t errlen)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(err, errlen, "libcurl could not start");
        return NULL;
    }
    struct outbound *o = mem_zalloc(1, sizeof *o);
    o->cfg = *cfg;
    o->cfg.ca_file = NULL;
    o->cfg.user_agent = NULL;
    o->ua = mem_strdup(cfg->user_agent != NULL ? cfg->user_agent : "carcd");
    o->main = loop;
    uv_mutex_init(&o->mu);
    if (cfg->ca_file != NULL && cfg->ca_file[0] != '\0' && ca_load(o, cfg->ca_file, err, errlen)) {
        outbound_free(o);
        return NULL;
    }
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    if (!(v->features & CURL_VERSION_ASYNCHDNS))
        log_warn("libcurl resolves names synchronously: a slow DNS holds every outbound request");
    /* libcurl keeps one CA store per multi handle for a day (CURLOPT_CA_CACHE_TIMEOUT)
     * only when no CA directory is set, and Debian's has both a bundle and a directory
     * (/etc/ssl/certs) by default: every TLS connection parsed the whole bundle again,
     * milliseconds of CPU per try that a dead push endpoint made carcd spend 100 times a
     * second beside its loop (tests/bench/README.md "Dead push endpoints"). The bundle
     * holds the directory's certificates: with a bundle, the directory is left out. */
    o->bundle_only = v->version_num >= 0x075700 && v->cainfo != NULL && v->cainfo[0] != '\0' &&
                     v->capath != NULL;
    o->multi = curl_multi_init();
    if (o->multi == NULL || uv_loop_init(&o->loop) != 0) {
        snprintf(err, errlen, "libcurl or libuv could not start the outbound client");
        if (o->multi != NULL)
            curl_multi_cleanup(o->multi);
        outbound_free(o);
        return NULL;
    }
    curl_multi_setopt(o->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(o->multi, CURLMOPT_SOCKETDATA, o);
    curl_multi_setopt(o->multi, CURLMOPT_TIMERFUNCTION, on_timer_set);
    curl_multi_setopt(o->multi, CURLMOPT_TIMERDATA, o);
    uv_async_init(&o->loop, &o->wake, on_wake);
    o->wake.data = o;
    uv_timer_init(&o->loop, &o->timer);
    o->timer.data = o;
    uv_async_init(loop, &o->back, on_back);
    o->back.data = o;
    if (uv_thread_create(&o->thread, thread_main, o) != 0) {
        snprintf(err, errlen, "the outbound client's thread could not start");
        curl_multi_cleanup(o->multi);
        uv_close((uv_handle_t *)&o->wake, NULL);
        uv_close((uv_handle_t *)&o->timer, NULL);
        uv_run(&o->loop, UV_RUN_DEFAULT);
        uv_loop_close(&o->loop);
        o->done = NULL;
        uv_close((uv_handle_t *)&o->back, on_back_closed);
        return NULL;
    }
    return o;
}

/* Whether url starts with scheme (e.g. "https://") and has more after it. */
static int scheme_is(const char *url, const char *scheme)
{
    size_t n = strlen(scheme);
    return strncasecmp(url, scheme, n) == 0 && url[n] != '\0' && strlen(url) <= URL_MAX;
}

static int refusal(const struct outbound *o, const char *url)
{
    if (o->closing)
        return OUTBOUND_E_CLOSED;
    if (!scheme_is(url, "https://"))
        return OUTBOUND_E_URL;
    if (o->pending >= o->cfg.queue_max)
        return OUTBOUND_E_FULL;
    return 0;
}

static void enqueue(struct outbound *o, struct req *r)
{
    uv_mutex_lock(&o->mu);
    push(&o->in_head, &o->in_tail, r);
    uv_mutex_unlock(&o->mu);
    o->pending++;
    uv_async_send(&o->wake);
}

int outbound_post_prepared(struct outbound *o, const char *url, outbound_prepare prep, void *parg,
                           outbound_cb cb, void *arg)
{
    int rc = refusal(o, url);
    if (rc != 0)
        return rc;
    struct req *r = mem_zalloc(1, sizeof *r);
    r->url = mem_strdup(url);
    r->prepare = prep;
    r->parg = parg;
    r->cb = cb;
    r->arg = arg;
    enqueue(o, r);
    return 0;
}

int outbound_post(struct outbound *o, const char *url, const char *const *headers, int nheaders,
                  const void *body, size_t len, outbound_cb cb, void *arg)
{
    int rc = refusal(o, url);
    if (rc != 0)
        return rc;
    struct req *r = mem_zalloc(1, sizeof *r);
    r->url = mem_strdup(url);
    /* No "Expect: 100-continue": a push service need not answer it. */
    struct curl_slist *l = curl_slist_append(NULL, "Expect:");
    for (int i = 0; l != NULL && i < nheaders; i++) {
        struct curl_slist *n = curl_slist_append(l, headers[i]);
        if (n == NULL) {
            curl_slist_free_all(l);
            l = NULL;
        } else {
            l = n;
        }
    }
    if (l == NULL)
        mem_oom("outbound_post");
    r->headers = l;
    r->body = mem_alloc(len + 1);
    if (len > 0)
        memcpy(r->body, body, len);
    r->len = len;
    r->cb = cb;
    r->arg = arg;
    enqueue(o, r);
    return 0;
}

/* An address for the envelope: printable ASCII, no spaces or angle brackets. */
static int address_ok(const char *a)
{
    if (a == NULL || a[0] == '\0' || strlen(a) > 254)
        return 0;
    for (; *a != '\0'; a++)
        if (*a <= ' ' || *a >= 0x7f || *a == '<' || *a == '>')
            return 0;
    return 1;
}

int outbound_mail(struct outbound *o, const char *smtp_url, const char *from, const char *to,
                  const char *message, size_t len, outbound_cb cb, void *arg)
{
    if (o->closing)
        return OUTBOUND_E_CLOSED;
    if ((!scheme_is(smtp_url, "smtp://") && !scheme_is(smtp_url, "smtps://")) ||
        !address_ok(from) || !address_ok(to))
        return OUTBOUND_E_URL;
    if (o->pending >= o->cfg.queue_max)
        return OUTBOUND_E_FULL;
    struct req *r = mem_zalloc(1, sizeof *r);
    r->url = mem_strdup(smtp_url);
    r->mail_from = mem_strdup(from);
    r->rcpt = curl_slist_append(NULL, to);
    if (r->rcpt == NULL)
        mem_oom("outbound_mail");
    r->body = mem_alloc(len + 1);
    memcpy(r->body, message, len);
    r->len = len;
    r->cb = cb;
    r->arg = arg;
    enqueue(o, r);
    return 0;
}

int outbound_pending(const struct outbound *o)
{
    return o->pending;
}

void outbound_close(struct outbound *o, void (*done)(void *arg), void *arg)
{
    o->closing = 1;
    o->done = done;
    o->done_arg = arg;
    uv_mutex_lock(&o->mu);
    o->stopping = 1;
    uv_mutex_unlock(&o->mu);
    uv_async_send(&o->wake);
}
