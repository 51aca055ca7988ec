/* route.c: see route.h. */
#include "route.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "botlib.h"

#define ROUTE_READ_MS 10000 /* the longest wait for a welcome or an answer */
#define ROUTE_BASE_RETRY_MS 250

static void say(struct route *r, const char *fmt, ...)
{
    if (r->log == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(r->log, "%s: ", r->who ? r->who : "route");
    vfprintf(r->log, fmt, ap);
    fputc('\n', r->log);
    va_end(ap);
    fflush(r->log);
}

static long long now_ms(void)
{
    return (long long)(bot_now_ns() / 1000000u);
}

/* Sleep ms, but not past the deadline. */
static void nap(long long ms, long long deadline)
{
    long long left = deadline - now_ms();
    if (ms > left)
        ms = left;
    if (ms <= 0)
        return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Read from c until a message of one of the answer types (or any message when
 * welcome is set: the first must be the welcome). Returns WS_OK with *ev, or
 * the ws status of the failure (WS_AGAIN: nothing in time). */
static int read_answer(struct ws_conn *c, int welcome, struct proto_client_event *ev)
{
    for (;;) {
        const char *text;
        size_t len;
        int rc = ws_recv(c, &text, &len, ROUTE_READ_MS);
        if (rc < 0)
            return rc;
        if (rc != 1)
            continue;
        int hr = proto_client_handle(NULL, text, len, ev);
        if (welcome) {
            if (ev->type == PROTO_S_WELCOME)
                return WS_OK;
            snprintf(c->err, sizeof c->err, "the server did not start with a welcome");
            return WS_ERROR;
        }
        if (hr == 0 && (ev->type == PROTO_S_JOINED || ev->type == PROTO_S_WATCHING ||
                        ev->type == PROTO_S_ERROR || ev->type == PROTO_S_REDIRECT))
            return WS_OK;
        if (hr < 0 && ev->type == PROTO_S_REDIRECT) {
            snprintf(c->err, sizeof c->err, "unreadable redirect: %.80s", text);
            return WS_ERROR;
        }
        /* anything else before the answer (a notice) is not ours to handle */
    }
}

/* One connection to url: welcome, msg, its answer. Returns WS_OK with *ev, or
 * WS_ERROR with c closed and c->err set. */
static int attempt(struct route *r, struct ws_conn *c, const char *url, const char *msg,
                   struct proto_client_event *ev)
{
    if (ws_connect(c, url, r->source) < 0)
        return WS_ERROR;
    int rc = read_answer(c, 1, ev);
    if (rc == WS_OK)
        rc = ws_send_text(c, msg, strlen(msg));
    if (rc == WS_OK)
        rc = read_answer(c, 0, ev);
    if (rc == WS_OK)
        return WS_OK;
    if (rc == WS_AGAIN)
        snprintf(c->err, sizeof c->err, "no answer from %.60s in %d ms", url, ROUTE_READ_MS);
    else if (rc == WS_CLOSED)
        snprintf(c->err, sizeof c->err, "%.60s closed the connection (close code %d)", url,
                 c->close_code);
    ws_close(c, 0);
    return WS_ERROR;
}

int route_enter(struct route *r, struct ws_conn *c, const char *msg, struct proto_client_event *ev)
{
    long long deadline = now_ms() + (r->patience_ms > 0 ? r->patience_ms : ROUTE_PATIENCE_MS);
    long long base_wait = ROUTE_BASE_RETRY_MS;
    int first = 1;
    char why[128] = "";
    r->redirects = 0;
    for (;;) {
        /* From the base URL. */
        if (attempt(r, c, r->base, msg, ev) < 0) {
            if ((first && !r->retry_base) || now_ms() >= deadline)
                return WS_ERROR;
            say(r, "%s: trying again in %lld ms", c->err, base_wait);
            nap(base_wait, deadline);
            base_wait = base_wait * 2 < 2000 ? base_wait * 2 : 2000;
            continue;
        }
        first = 0;
        int hops = 0, retry_ms = ROUTE_DEFAULT_RETRY;
        while (ev->type == PROTO_S_REDIRECT && hops < ROUTE_MAX_HOPS) {
            char url[512];
            retry_ms = ev->retry_ms > 0 ? ev->retry_ms : ROUTE_DEFAULT_RETRY;
            ws_close(c, 1000);
            if (ws_url_with_path(r->base, ev->path, url, sizeof url) < 0) {
                snprintf(c->err, sizeof c->err, "redirect to a bad path %.80s", ev->path);
                return WS_ERROR;
            }
            hops++;
            r->redirects++;
            say(r, "room %s is on node %s: %s", ev->room, ev->node, url);
            if (attempt(r, c, url, msg, ev) < 0) {
                snprintf(why, sizeof why, "%s", c->err);
                ev->type = PROTO_S_UNKNOWN; /* go back to the base URL */
                break;
            }
        }
        if (ev->type == PROTO_S_ERROR && ev->code == CARC_E_STORAGE) {
            /* Nothing changed (PROTOCOL.md): the node cannot reach Redis or its
             * database now, or is handing over. Again from the base URL. */
            snprintf(why, sizeof why, "storage_error: %.80s", ev->message);
            ws_close(c, 1000);
            ev->type = PROTO_S_UNKNOWN;
        }
        if (ev->type != PROTO_S_REDIRECT && ev->type != PROTO_S_UNKNOWN)
            return WS_OK; /* joined, watching or an error: the answer */
        if (ev->type == PROTO_S_REDIRECT) {
            snprintf(why, sizeof why, "%d redirects in a row", ROUTE_MAX_HOPS);
            ws_close(c, 1000);
        }
        if (now_ms() + retry_ms >= deadline) {
            snprintf(c->err, sizeof c->err, "gave up after %d ms: %.80s",
                     r->patience_ms > 0 ? r->patience_ms : ROUTE_PATIENCE_MS, why);
            return WS_ERROR;
        }
        say(r, "%s: again from %s in %d ms", why, r->base, retry_ms);
        nap(retry_ms, deadline);
    }
}

int route_should_resume(int close_code)
{
    return close_code == 0 || close_code == 1001 || close_code == 1006 || close_code == 4003;
}
