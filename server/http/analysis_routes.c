/* analysis_routes.c: POST and GET /api/games/{id}/analysis (PROTOCOL.md "Game
 * analysis"; api.h).
 *
 * The queue (analysis/analysis.h) answers for a game it holds: queued or
 * running (202 to a POST, 404 with the status to a GET), or analysed and
 * being written (200 and the document). Any other game is asked of the
 * database, on the store's reader queue: its stored analysis (200), else for
 * a POST its record, which is handed to the queue (202). Anyone may ask: no
 * session; a POST from another site's page (a bad Origin) is refused, so
 * that no page can spend the server's CPU through its visitors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "http/api.h"
#include "msg.h"
#include "store/store.h"
#include "util/mem.h"

#define RETRY_FULL_S 30 /* a full queue: about one analysis at the default budget */
#define RETRY_READ_S 5  /* the records cannot be read now */

/* A deferred request's own data, held in out->owned until the answer. */
struct ctx {
    struct api *a;
    int post;
    char id[PROTO_ROOM_MAX];
};

/* The {id} of "/api/games/{id}/analysis" into out (PROTO_ROOM_MAX + 1
 * bytes): 1, or 0 when path is not that route. An id too long for any room
 * is kept long enough for the caller to refuse it. */
static int analysis_id(const char *path, char *out)
{
    static const char prefix[] = "/api/games/", suffix[] = "/analysis";
    size_t n = strlen(path), p = sizeof prefix - 1, k = sizeof suffix - 1;
    if (n <= p + k || strncmp(path, prefix, p) != 0 || strcmp(path + n - k, suffix) != 0)
        return 0;
    size_t len = n - k - p;
    if (len > PROTO_ROOM_MAX)
        len = PROTO_ROOM_MAX;
    memcpy(out, path + p, len);
    out[len] = '\0';
    return strchr(out, '/') == NULL;
}

static void reply_body(struct api_reply *out, int status, char *json, const char *cache)
{
    api_reply_json(out, status, json, cache);
}

static void reply_error(struct api_reply *out, int status, const char *text, long long retry)
{
    char buf[200];
    snprintf(buf, sizeof buf, "{\"error\":\"%s\"}", text);
    reply_body(out, status, mem_strdup(buf), "no-store");
    out->retry_after = retry;
}

static const char *status_name(int status)
{
    return status == ANALYSIS_QUEUED ? "queued" : status == ANALYSIS_RUNNING ? "running" : "none";
}

/* The answer for a game the queue may hold: 1 when it did (out written). */
static int reply_state(struct api *a, const char *id, int post, struct api_reply *out)
{
    struct analysis_state s;
    analysis_state_get(a->analysis, id, &s);
    char buf[160];
    if (s.status == ANALYSIS_STORED) {
        reply_body(out, 200, mem_strdup(s.doc), "max-age=3600");
    } else if (s.status != ANALYSIS_NONE && post) {
        snprintf(buf, sizeof buf, "{\"status\":\"%s\",\"done\":%d,\"moves\":%d}",
                 status_name(s.status), s.done, s.moves);
        reply_body(out, 202, mem_strdup(buf), "no-store");
    } else if (s.status != ANALYSIS_NONE) {
        snprintf(buf, sizeof buf,
                 "{\"error\":\"no analysis of that game yet\",\"status\":\"%s\",\"done\":%d,"
                 "\"moves\":%d}",
                 status_name(s.status), s.done, s.moves);
        reply_body(out, 404, mem_strdup(buf), "no-store");
    } else {
        return 0;
    }
    return 1;
}

/* The context out of out->owned (the answer's body goes there next). */
static struct ctx *ctx_take(struct api_reply *out)
{
    struct ctx *c = (struct ctx *)(void *)out->owned;
    out->owned = NULL;
    out->rq = NULL;
    out->deferred = 0;
    return c;
}

static void answer(struct api_reply *out, struct ctx *c)
{
    free(c);
    out->ready(out, out->ready_arg);
}

/* POST: the record is back; the game goes to the queue. */
static void on_record(void *arg, int status, char *json)
{
    struct api_reply *out = arg;
    struct ctx *c = ctx_take(out);
    if (status == 200) {
        if (analysis_request(c->a->analysis, c->id, json, strlen(json)) != 0)
            reply_error(out, 503, "the analysis queue is full; retry later", RETRY_FULL_S);
        else if (!reply_state(c->a, c->id, 1, out)) /* the thread pool refused it */
            reply_error(out, 503, "the analysis could not be started; retry", RETRY_READ_S);
    } else if (status == 404)
        reply_error(out, 404, "no finished or abandoned game with that id", 0);
    else
        reply_error(out, 503, "the game records cannot be read now; retry", RETRY_READ_S);
    free(json);
    answer(out, c);
}

/* The stored analysis is back (or not). */
static void on_analysis(void *arg, int status, char *json)
{
    struct api_reply *out = arg;
    struct ctx *c = ctx_take(out);
    if (status == 200) {
        reply_body(out, 200, json, "max-age=3600");
        answer(out, c);
        return;
    }
    free(json);
    if (status != 404) {
        reply_error(out, 503, "the game records cannot be read now; retry", RETRY_READ_S);
    } else if (reply_state(c->a, c->id, c->post, out)) {
        /* queued meanwhile (another request, or `auto`) */
    } else if (!c->post) {
        reply_body(out, 404,
                   mem_strdup("{\"error\":\"no analysis of that game yet\",\"status\":\"none\","
                              "\"done\":0,\"moves\":0}"),
                   "no-store");
    } else {
        out->owned = (char *)(void *)c;
        out->rq = store_game_read(c->a->store, c->id, on_record, out);
        if (out->rq != NULL) {
            out->deferred = 1;
            return;
        }
        out->owned = NULL;
        reply_error(out, 503, "too many requests for game records; retry", RETRY_READ_S);
    }
    answer(out, c);
}

int api_analysis_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    char id[PROTO_ROOM_MAX + 1];
    if (!analysis_id(rq->path, id))
        return 0;
    int post = strcmp(rq->method, "POST") == 0;
    out->head = strcmp(rq->method, "HEAD") == 0;
    if (!post && !out->head && strcmp(rq->method, "GET") != 0) {
        reply_error(out, 405, "method not allowed: GET or POST", 0);
        return 1;
    }
    if (a->analysis == NULL || a->store == NULL) {
        reply_error(out, 404, "game analysis is off on this server", 0);
        return 1;
    }
    if (post && rq->origin == API_ORIGIN_BAD) {
        reply_error(out, 403, "a page of another site may not ask for an analysis", 0);
        return 1;
    }
    if (strlen(id) >= PROTO_ROOM_MAX) {
        reply_error(out, 404, "no finished or abandoned game with that id", 0);
        return 1;
    }
    if (reply_state(a, id, post, out))
        return 1;
    if (out->ready == NULL) {
        reply_error(out, 503, "the game records cannot be read now; retry", RETRY_READ_S);
        return 1;
    }
    struct ctx *c = mem_zalloc(1, sizeof *c);
    c->a = a;
    c->post = post;
    memcpy(c->id, id, strlen(id) + 1); /* shorter than PROTO_ROOM_MAX: checked above */
    out->owned = (char *)(void *)c;
    out->rq = store_analysis_read(a->store, id, on_analysis, out);
    if (out->rq == NULL) {
        out->owned = NULL;
        free(c);
        reply_error(out, 503, "too many requests for game records; retry", RETRY_READ_S);
        return 1;
    }
    out->deferred = 1;
    return 1;
}
