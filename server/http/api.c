#include "http/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster/redis.h"
#include "game/lobby.h"
#include "http/admin.h"
#include "msg.h"
#include "players/attempts.h"
#include "replay_json.h"
#include "store/store.h"
#include "util/log.h"
#include "util/loopstat.h"
#include "util/mem.h"

int api_init(struct api *a, const struct lobby *lb, const char *web_root)
{
    memset(a, 0, sizeof *a);
    a->lobby = lb;
    char err[256];
    if (webroot_load(&a->web, web_root, err, sizeof err) != 0)
        log_warn("web root %s: %s; no static files are served", web_root, err);
    else
        log_info("web root %s: %d files, %zu bytes in memory", web_root, a->web.n, a->web.bytes);
    a->tiles = proto_encode_tiles();
    return a->tiles != NULL ? 0 : -1;
}

void api_fini(struct api *a)
{
    free(a->tiles);
    a->tiles = NULL;
    webroot_free(&a->web);
    attempts_free(a->push_tested);
    a->push_tested = NULL;
}

void api_reply_free(struct api_reply *r)
{
    if (r->rq != NULL) {
        store_read_cancel(r->rq);
        r->rq = NULL;
    }
    if (r->cancel != NULL && r->deferred)
        r->cancel(r->cancel_arg);
    r->cancel = NULL;
    r->deferred = 0;
    free(r->set_cookie);
    r->set_cookie = NULL;
    free(r->owned);
    r->owned = NULL;
    r->body = NULL;
}

static const struct {
    const char *ext;
    const char *type;
} mimes[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".json", "application/json"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".jpg", "image/jpeg"},
    {".jpeg", "image/jpeg"},
    {".webp", "image/webp"},
    {".gif", "image/gif"},
    {".ico", "image/x-icon"},
    {".txt", "text/plain; charset=utf-8"},
    {".woff2", "font/woff2"},
    {".woff", "font/woff"},
    {".wasm", "application/wasm"},
    {".webmanifest", "application/manifest+json"},
};

const char *api_mime(const char *name)
{
    const char *dot = strrchr(name, '.');
    const char *slash = strrchr(name, '/');
    if (dot != NULL && (slash == NULL || dot > slash))
        for (size_t i = 0; i < sizeof mimes / sizeof mimes[0]; i++)
            if (strcmp(dot, mimes[i].ext) == 0)
                return mimes[i].type;
    return "application/octet-stream";
}

int api_static_path(const char *root, const char *path, char *out, size_t size)
{
    if (path[0] != '/')
        return -1;
    for (const char *p = path; *p != '\0'; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch < 0x20 || ch == 0x7f || ch == '\\')
            return -1;
        /* No empty, hidden, "." or ".." segments. */
        if (ch == '/' && (p[1] == '/' || p[1] == '.'))
            return -1;
    }
    const char *index = path[strlen(path) - 1] == '/' ? "index.html" : "";
    int n = snprintf(out, size, "%s%s%s", root, path, index);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static void reply_text(struct api_reply *r, int status, const char *type, const char *text)
{
    r->status = status;
    r->content_type = type;
    r->len = strlen(text);
    r->owned = mem_alloc(r->len + 1);
    memcpy(r->owned, text, r->len + 1);
    r->body = r->owned;
}

/* Does the Accept-Encoding value list gzip, other than as "gzip;q=0"? */
static int accepts_gzip(const char *v)
{
    const char *p = v != NULL ? strstr(v, "gzip") : NULL;
    if (p == NULL)
        return 0;
    p += 4;
    p += strspn(p, " ");
    if (strncmp(p, ";q=0", 4) != 0)
        return 1;
    p += 4;
    size_t zeros = strspn(p, ".0");
    return p[zeros] != '\0' && p[zeros] != ',' && p[zeros] != ' ';
}

/* The player pages (clients/web/players.html, ladder.html; PROTOCOL.md
 * "Ratings"): /players/NAME, NAME one segment of 1 to 40 letters, digits, '_',
 * '-' or '.' not starting with '.' (an account's name, or a bot's identity
 * such as bot.strong), is players.html, which reads the name from its own
 * location; /ladder is ladder.html. Served in place, not redirected, so that a
 * cluster's /n/NODE/ prefix stays in the address bar and the pages' relative
 * links keep to that node. NULL for any other path. */
const char *api_page_alias(const char *path)
{
    if (strcmp(path, "/ladder") == 0)
        return "/ladder.html";
    static const char prefix[] = "/players/";
    if (strncmp(path, prefix, sizeof prefix - 1) != 0)
        return NULL;
    const char *name = path + sizeof prefix - 1;
    size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.");
    if (n == 0 || n > 40 || name[n] != '\0' || name[0] == '.')
        return NULL;
    return "/players.html";
}

static void reply_static(struct api *a, const char *path, const char *accept_encoding,
                         const char *if_none_match, struct api_reply *r)
{
    char url[WEBROOT_PATH_MAX + 16];
    const struct webroot_file *f = NULL;
    const char *page = api_page_alias(path);
    if (page != NULL)
        f = webroot_find(&a->web, page);
    else if (api_static_path("", path, url, sizeof url) == 0) {
        f = webroot_find(&a->web, url);
        /* A directory without the trailing slash: its index. */
        size_t n = strlen(url);
        if (f == NULL && n + sizeof "/index.html" <= sizeof url) {
            memcpy(url + n, "/index.html", sizeof "/index.html");
            f = webroot_find(&a->web, url);
        }
    }
    if (f == NULL) {
        reply_text(r, 404, "text/plain; charset=utf-8", "not found\n");
        return;
    }
    r->status = 200;
    r->content_type = api_mime(f->path);
    /* Cached, and checked again each time with the ETag: a new file shows after a restart. */
    r->cache_control = "no-cache";
    r->etag = f->etag;
    if (if_none_match != NULL && strstr(if_none_match, f->etag) != NULL) {
        r->status = 304;
        return;
    }
    if (f->gz != NULL && accepts_gzip(accept_encoding)) {
        r->content_encoding = "gzip";
        r->body = f->gz;
        r->len = f->gz_len;
        return;
    }
    r->body = f->data;
    r->len = f->len;
}

/* The value of name=V in query (without the name), or NULL. */
static const char *query_arg(const char *q, const char *name, char *out, size_t size)
{
    size_t k = strlen(name);
    for (const char *p = q; p != NULL && *p != '\0';) {
        if (strncmp(p, name, k) == 0 && p[k] == '=') {
            size_t n = strcspn(p + k + 1, "&");
            if (n >= size)
                n = size - 1;
            memcpy(out, p + k + 1, n);
            out[n] = '\0';
            return out;
        }
        p = strchr(p, '&');
        if (p != NULL)
            p++;
    }
    return NULL;
}

int api_query_page(const char *q)
{
    char v[24];
    if (query_arg(q, "page", v, sizeof v) == NULL)
        return 1;
    long n = strtol(v, NULL, 10);
    return n >= 1 && n <= 1000000 ? (int)n : 1;
}

static void reply_json_error(struct api_reply *r, int status, const char *text)
{
    char buf[160];
    snprintf(buf, sizeof buf, "{\"error\":\"%s\"}", text);
    reply_text(r, status, "application/json", buf);
    r->cache_control = "no-store";
}

/* A database read is back (store.h): fill the reply and hand it over. */
static void on_read(void *arg, int status, char *json)
{
    struct api_reply *r = arg;
    r->rq = NULL;
    r->deferred = 0;
    if (status == 200) {
        r->status = 200;
        r->content_type = "application/json"; /* cache_control: set with the read */
        r->owned = json;
        r->body = json;
        r->len = strlen(json);
    } else if (status == 404) {
        free(json);
        reply_json_error(r, 404, "no finished or abandoned game with that id");
    } else {
        free(json);
        reply_json_error(r, 503, "the game records cannot be read now; retry");
    }
    r->ready(r, r->ready_arg);
}

/* GET /api/games/{id}/replay: the record is back; play it through the engine
 * here on the loop (about 0.25 ms for a 72-tile game: tests/test_replay_json.c).
 * While the read was in flight r->owned held the game's id (a copy that
 * api_reply_free releases should the asker go away). */
static void on_read_replay(void *arg, int status, char *json)
{
    struct api_reply *r = arg;
    char *id = r->owned;
    r->owned = NULL;
    if (status != 200) {
        free(id);
        on_read(arg, status, json);
        return;
    }
    r->rq = NULL;
    r->deferred = 0;
    char *doc = NULL;
    struct proto_error err;
    proto_error_init(&err);
    int rc = proto_replay_encode(id != NULL ? id : "", json, strlen(json), &doc, &err);
    if (rc == 0) {
        r->status = 200;
        r->content_type = "application/json"; /* cache_control: set with the read */
        r->owned = doc;
        r->body = doc;
        r->len = strlen(doc);
    } else if (rc == CARC_E_NOMEM) {
        reply_json_error(r, 503, "out of memory while replaying the game; retry");
    } else {
        log_event(LOG_ERROR, &(struct log_fields){.room = id, .code = carc_err_name(rc)},
                  "GET /api/games/{id}/replay: the stored record does not replay: %s%s: %s",
                  err.field[0] != '\0' ? "at " : "", err.field, err.text);
        reply_json_error(r, 500, "the stored game record is corrupt and cannot be replayed");
    }
    free(id);
    free(json);
    r->ready(r, r->ready_arg);
}

/* The {id} of "/api/games/{id}/replay" into out (size PROTO_ROOM_MAX + 1):
 * 1, or 0 when path is not such a route. An id too long for any room is
 * kept long enough (PROTO_ROOM_MAX bytes) for the caller to refuse it. */
static int replay_id(const char *path, char *out)
{
    static const char suffix[] = "/replay";
    size_t n = strlen(path), k = sizeof suffix - 1;
    if (n <= 11 + k || strcmp(path + n - k, suffix) != 0)
        return 0;
    size_t len = n - k - 11;
    if (len > PROTO_ROOM_MAX)
        len = PROTO_ROOM_MAX;
    memcpy(out, path + 11, len);
    out[len] = '\0';
    return 1;
}

static int reply_games(struct api *a, const char *path, const char *query, struct api_reply *out)
{
    int list = strcmp(path, "/api/games") == 0;
    if (!list && (strncmp(path, "/api/games/", 11) != 0 || path[11] == '\0'))
        return 0;
    char replay[PROTO_ROOM_MAX + 1];
    int is_replay = !list && replay_id(path, replay);
    const char *id = list ? "" : is_replay ? replay : path + 11;
    if (!list && strlen(id) >= PROTO_ROOM_MAX) {
        reply_json_error(out, 404, "no finished or abandoned game with that id");
        return 1;
    }
    char status[16] = STORE_FINISHED;
    if (list && query_arg(query, "status", status, sizeof status) != NULL &&
        strcmp(status, STORE_FINISHED) != 0 && strcmp(status, STORE_ABANDONED) != 0) {
        reply_json_error(out, 400, "status must be finished or abandoned");
        return 1;
    }
    if (a->store == NULL) {
        if (list) {
            char buf[96];
            snprintf(buf, sizeof buf, "{\"page\":%d,\"per_page\":%d,\"total\":0,\"games\":[]}",
                     api_query_page(query), STORE_PAGE);
            reply_text(out, 200, "application/json", buf);
            out->cache_control = "no-store";
        } else {
            reply_json_error(out, 404, "no finished or abandoned game with that id");
        }
        return 1;
    }
    if (out->ready != NULL) {
        /* A record never changes once written; a list does with each game. */
        out->cache_control = list ? "no-store" : "max-age=3600";
        if (list) {
            out->rq = store_games_read(a->store, api_query_page(query), status, on_read, out);
        } else if (is_replay) {
            out->owned = mem_strdup(id);
            out->rq = store_game_read(a->store, id, on_read_replay, out);
            if (out->rq == NULL) {
                free(out->owned);
                out->owned = NULL;
            }
        } else {
            out->rq = store_game_read(a->store, id, on_read, out);
        }
    }
    if (out->rq == NULL) {
        reply_json_error(out, 503, "too many requests for game records; retry");
        return 1;
    }
    out->deferred = 1;
    return 1;
}

/* Is given the same as secret? Time depends on the lengths only, not on where
 * the first difference lies. */
static int secret_equal(const char *given, const char *secret)
{
    size_t n = strlen(given), m = strlen(secret);
    unsigned char diff = n != m;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)given[i] ^ (unsigned char)secret[m > 0 ? i % m : 0];
    return diff == 0;
}

static void reply_metrics(struct api *a, struct api_reply *out)
{
    out->status = 200;
    out->content_type = "text/plain; version=0.0.4; charset=utf-8";
    out->cache_control = "no-store";
    out->owned = api_metrics_render(a->lobby, a->stats);
    if (out->owned == NULL)
        mem_oom("metrics");
    out->body = out->owned;
    out->len = strlen(out->body);
}

static int route_start(const char *method, struct api_reply *out)
{
    out->head = strcmp(method, "HEAD") == 0;
    if (strcmp(method, "GET") != 0 && !out->head) {
        reply_text(out, 405, "text/plain; charset=utf-8", "method not allowed\n");
        return -1;
    }
    return 0;
}

void api_route_metrics(struct api *a, const char *method, const char *authorization,
                       struct api_reply *out)
{
    memset(out, 0, sizeof *out);
    if (route_start(method, out) != 0)
        return;
    if (a->metrics_token == NULL || a->metrics_token[0] == '\0') {
        reply_text(out, 404, "text/plain; charset=utf-8", "not found\n");
        return;
    }
    static const char bearer[] = "Bearer ";
    /* The scheme's name is case-insensitive (RFC 7235), the token is not. */
    if (authorization == NULL || strncasecmp(authorization, bearer, sizeof bearer - 1) != 0 ||
        !secret_equal(authorization + sizeof bearer - 1, a->metrics_token)) {
        reply_text(out, 401, "text/plain; charset=utf-8",
                   "GET /metrics needs Authorization: Bearer and the metrics token\n");
        out->www_authenticate = "Bearer realm=\"carcd metrics\"";
        out->cache_control = "no-store";
        return;
    }
    reply_metrics(a, out);
}

/* GET /healthz, on either listener: the first reason not to send players
 * here, or 200 "ok". The storage reason is the store's short one (struct
 * store_health), never the database's own message. */
static void reply_healthz(struct api *a, struct api_reply *out)
{
    struct store_health sh;
    store_health_get(a->store, &sh);
    if (a->lobby->shutting_down) {
        reply_text(out, 503, "text/plain; charset=utf-8", "shutting down");
    } else if (a->redis != NULL && !redis_up(a->redis)) {
        reply_text(out, 503, "text/plain; charset=utf-8", "redis unreachable");
    } else if (sh.failing) {
        char text[32 + STORE_REASON_MAX];
        snprintf(text, sizeof text, "storage failing: %s", sh.why);
        reply_text(out, 503, "text/plain; charset=utf-8", text);
    } else {
        reply_text(out, 200, "text/plain; charset=utf-8", "ok");
    }
    out->cache_control = "no-store";
}

void api_route_metrics_port(struct api *a, const char *method, const char *path,
                            struct api_reply *out)
{
    memset(out, 0, sizeof *out);
    if (route_start(method, out) != 0)
        return;
    if (strcmp(path, "/metrics") == 0) {
        reply_metrics(a, out);
    } else if (strcmp(path, "/healthz") == 0) {
        reply_healthz(a, out);
    } else {
        reply_text(out, 404, "text/plain; charset=utf-8",
                   "not found: this listener serves /metrics and /healthz\n");
    }
}

void api_route(struct api *a, const char *method, const char *path, struct api_reply *out)
{
    api_route_query(a, method, path, NULL, out, NULL, NULL);
}

void api_route_query(struct api *a, const char *method, const char *path, const char *query,
                     struct api_reply *out, api_ready_cb ready, void *arg)
{
    api_route_http(a, method, path, query, NULL, NULL, out, ready, arg);
}

void api_route_http(struct api *a, const char *method, const char *path, const char *query,
                    const char *accept_encoding, const char *if_none_match, struct api_reply *out,
                    api_ready_cb ready, void *arg)
{
    struct api_request rq = {.method = method,
                             .path = path,
                             .query = query,
                             .accept_encoding = accept_encoding,
                             .if_none_match = if_none_match};
    api_route_request(a, &rq, out, ready, arg);
}

/* ---- the GET routes: one handler each, tried in the table's order ---- */

/* Each returns 1 when it answered, 0 when the request is not its own (the
 * next route is tried). */
typedef int (*route_fn)(struct api *a, const struct api_request *rq, struct api_reply *out);

/* 503 while shutting down, cut off from the cluster or unable to store a
 * move: a proxy's health check takes the node out of its rotation, so that
 * new players go where they can play. */
static int route_healthz(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    (void)rq;
    reply_healthz(a, out);
    return 1;
}

/* A JSON body the reply owns, never cached. */
static void reply_json_owned(struct api_reply *out, char *json)
{
    out->status = 200;
    out->content_type = "application/json";
    out->cache_control = "no-store";
    out->owned = json;
    out->body = out->owned;
    out->len = strlen(out->body);
}

static int route_rooms(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    (void)rq;
    reply_json_owned(out, lobby_rooms_encode(a->lobby, "", 0));
    return 1;
}

static int route_tiles(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    (void)rq;
    out->status = 200;
    out->content_type = "application/json";
    out->body = a->tiles;
    out->len = strlen(a->tiles);
    out->cache_control = "max-age=3600";
    return 1;
}

static int route_games(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    return reply_games(a, rq->path, rq->query, out);
}

static int route_metrics(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    api_route_metrics(a, rq->method, NULL, out); /* no Authorization header here */
    return 1;
}

static int route_stats(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    (void)rq;
    if (a->stats == NULL)
        return 0;
    reply_json_owned(out, loopstat_json(a->stats));
    return 1;
}

static int route_ws(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    (void)a;
    (void)rq;
    reply_text(out, 426, "text/plain; charset=utf-8",
               "this is the websocket endpoint: connect with a websocket client\n");
    return 1;
}

/* path: the whole path, or with prefix set a path that starts with it (the
 * handler checks the rest). */
static const struct {
    const char *path;
    int prefix;
    route_fn handle;
} routes[] = {
    {"/healthz", 0, route_healthz}, {"/api/rooms", 0, route_rooms}, {"/api/tiles", 0, route_tiles},
    {"/api/games", 1, route_games}, {"/metrics", 0, route_metrics}, {"/api/stats", 0, route_stats},
    {"/ws", 0, route_ws},
};

void api_route_request(struct api *a, const struct api_request *rq, struct api_reply *out,
                       api_ready_cb ready, void *arg)
{
    const char *path = rq->path;
    memset(out, 0, sizeof *out);
    out->ready = ready;
    out->ready_arg = arg;
    if (strncmp(path, "/admin/", 7) == 0 || strcmp(path, "/admin") == 0) {
        admin_route(a->admin, rq, out);
        return;
    }
    if (api_account_route(a, rq, out) || api_rating_route(a, rq, out) ||
        api_me_games_route(a, rq, out) || api_claim_route(a, rq, out) ||
        api_push_route(a, rq, out) || api_mail_route(a, rq, out) ||
        api_vacation_route(a, rq, out) ||
        api_analysis_route(a, rq, out)) /* before /api/games/{id} */
        return;
    /* HEAD is routed as GET; the transport then sends the headers alone. */
    out->head = strcmp(rq->method, "HEAD") == 0;
    if (strcmp(rq->method, "GET") != 0 && !out->head) {
        reply_text(out, 405, "text/plain; charset=utf-8", "method not allowed\n");
        return;
    }
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        int match = routes[i].prefix ? strncmp(path, routes[i].path, strlen(routes[i].path)) == 0
                                     : strcmp(path, routes[i].path) == 0;
        if (match && routes[i].handle(a, rq, out))
            return;
    }
    if (strncmp(path, "/api/", 5) == 0 || strcmp(path, "/api") == 0) {
        reply_text(out, 404, "application/json", "{\"error\":\"no such endpoint\"}");
        return;
    }
    reply_static(a, path, rq->accept_encoding, rq->if_none_match, out);
}
