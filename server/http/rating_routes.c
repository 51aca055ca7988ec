/* rating_routes.c: the rating routes (issue 27; PROTOCOL.md "Ratings"):
 *   GET /api/players/NAME   a player's ratings per pool and their newest
 *                           points, and the statistics of its finished games
 *                           (a bot's rated identity too); 404
 *                           no_such_player for a name that is nobody's
 *   GET /api/ladder?pool=2p|multi&page=N
 *                           a page of 50 of a pool's ladder, players with at
 *                           least ladder-min-games games; 400 bad_pool
 * Both are read by the accounts service on its thread pool (players/
 * accounts.h): the reply is deferred, and api_reply_free cancels it. A
 * player's answer takes two requests, one after the other: its ratings
 * (accounts_player), then its statistics (accounts_stats, under the name the
 * first found); the JSON of the first waits in the call meanwhile. JSON
 * written by hand, names through protocol/json_str.h. Public: no cookie is
 * read, and the answers may be cached for a little while. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "json_str.h"
#include "players/accounts.h"
#include "util/mem.h"
#include "util/status.h"

#define PLAYERS_PREFIX "/api/players/"
#define CACHE "public, max-age=10"

struct rcall {
    struct api_reply *out;
    struct accounts *accounts;
    struct accounts_req *req; /* the request in flight */
    int ladder;               /* a ladder's: its min games (> 0); 0: a player's */
    int pool;
    char *player; /* a player's ratings as JSON without its closing brace, once read */
};

static void reply(struct api_reply *out, int status, char *json)
{
    api_reply_json(out, status, json, status == 200 ? CACHE : NULL);
}

/* printf into the growing text j (size bytes, *n used); it always fits: the
 * callers size it for the worst case. */
static void put(char *j, size_t size, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *j, size_t size, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(j + *n, size - *n, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n += (size_t)k < size - *n ? (size_t)k : size - *n - 1;
}

static const char *const pool_names[ACCOUNTS_POOLS] = {"2p", "multi"};

static void pool_json(char *j, size_t size, size_t *n, const struct accounts_pool_view *v, int pool)
{
    put(j, size, n, "\"%s\":{\"rating\":%.17g,\"deviation\":%.17g", pool_names[pool], v->rating,
        v->deviation);
    if (pool == 0)
        put(j, size, n, ",\"volatility\":%.17g", v->volatility);
    put(j, size, n, ",\"games\":%d,\"provisional\":%s,\"history\":[", v->games,
        v->provisional ? "true" : "false");
    for (int i = 0; i < v->nhistory; i++) {
        put(j, size, n, "%s{\"game\":", i ? "," : "");
        proto_json_str_append(j, size, n, v->history[i].game);
        put(j, size, n, ",\"time\":%lld,\"rating\":%.17g}", v->history[i].time_ms,
            v->history[i].rating);
    }
    put(j, size, n, "]}");
}

static char *player_json(const struct accounts_player *p)
{
    size_t size = 4096 + ACCOUNTS_POOLS * ACCOUNTS_HISTORY_MAX * 512, n = 0;
    char *j = mem_alloc(size);
    j[0] = '\0';
    put(j, size, &n, "{\"name\":");
    proto_json_str_append(j, size, &n, p->name);
    put(j, size, &n, ",\"created\":%lld,\"ratings\":{", p->created_ms);
    int first = 1;
    for (int i = 0; i < ACCOUNTS_POOLS; i++)
        if (p->pool[i].present) {
            if (!first)
                put(j, size, &n, ",");
            pool_json(j, size, &n, &p->pool[i], i);
            first = 0;
        }
    put(j, size, &n, "}"); /* the closing brace comes after the statistics */
    return j;
}

/* The player's JSON (player_json's) with ",\"stats\":{...}}" after it; frees
 * player. The averages have one decimal. */
static char *stats_json(char *player, const struct accounts_stats *st)
{
    size_t size = strlen(player) + 256 + ACCOUNTS_STATS_PLAYERS * 160 +
                  ACCOUNTS_STATS_SETS * (PROTO_JSON_ESCAPE_MAX(sizeof st->sets[0].set) + 64);
    size_t n = 0;
    char *j = mem_alloc(size);
    j[0] = '\0';
    put(j, size, &n, "%s,\"stats\":{\"played\":%lld,\"won\":%lld,\"by_players\":[", player,
        st->played, st->won);
    free(player);
    for (int i = 0; i < st->nby; i++)
        put(j, size, &n, "%s{\"players\":%d,\"played\":%lld,\"won\":%lld,\"average_score\":%.1f}",
            i ? "," : "", st->by[i].players, st->by[i].played, st->by[i].won,
            st->by[i].average_score);
    put(j, size, &n, "],\"sets\":[");
    for (int i = 0; i < st->nsets; i++) {
        put(j, size, &n, "%s{\"set\":", i ? "," : "");
        proto_json_str_append(j, size, &n, st->sets[i].set);
        put(j, size, &n, ",\"played\":%lld}", st->sets[i].played);
    }
    put(j, size, &n, "]}}");
    return j;
}

static char *ladder_json(int pool, int min_games, const struct accounts_ladder_row *rows, int nrows)
{
    size_t size = 256 + (size_t)nrows * 512, n = 0;
    char *j = mem_alloc(size);
    j[0] = '\0';
    put(j, size, &n, "{\"pool\":\"%s\",\"min_games\":%d,\"players\":[", pool_names[pool],
        min_games);
    for (int i = 0; i < nrows; i++) {
        const struct accounts_ladder_row *r = &rows[i];
        put(j, size, &n, "%s{\"rank\":%d,\"name\":", i ? "," : "", r->rank);
        proto_json_str_append(j, size, &n, r->name);
        put(j, size, &n, ",\"rating\":%.17g,\"deviation\":%.17g,\"games\":%d,\"provisional\":%s}",
            r->rating, r->deviation, r->games, r->provisional ? "true" : "false");
    }
    put(j, size, &n, "]}");
    return j;
}

static int min_games_of(const struct api *a)
{
    return a->ladder_min_games > 0 ? a->ladder_min_games : 5;
}

static void on_answer(void *arg, const struct accounts_result *r)
{
    struct rcall *c = arg;
    struct api_reply *out = c->out;
    c->req = NULL; /* answered: the service frees it */
    if (r->status == 0 && c->ladder == 0 && c->player == NULL) {
        /* The ratings are read: now the statistics, under the name found. */
        c->player = player_json(r->player);
        c->req = accounts_stats(c->accounts, r->player->name, on_answer, c);
        if (c->req != NULL)
            return;
        api_reply_json_error(out, 503, "busy", "too many account requests; retry");
    } else if (r->status == ACCOUNTS_E_UNKNOWN) /* or deleted since its ratings were read */
        api_reply_json_error(out, 404, "no_such_player", "no player has that name");
    else if (r->status != 0)
        api_reply_json_error(out, 503, "storage_error", "the accounts database failed; retry");
    else if (c->ladder > 0)
        reply(out, 200, ladder_json(c->pool, c->ladder, r->ladder, r->nlist));
    else {
        reply(out, 200, stats_json(c->player, r->stats));
        c->player = NULL;
    }
    free(c->player);
    free(c);
    api_reply_ready(out);
}

static void on_cancel(void *arg)
{
    struct rcall *c = arg;
    if (c->req != NULL)
        accounts_cancel(c->req);
    free(c->player);
    free(c);
}

/* A player's name in a path: a person's ([A-Za-z0-9_-]) or a bot's identity (a dot too). */
static int name_ok(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n <= ACCOUNT_NAME_MAX &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == n;
}

/* ?pool= (-1: none or unknown) and ?page= (1 .. 1000000, 1 when absent or bad). */
static void ladder_args(const char *q, int *pool, int *page)
{
    *pool = -1;
    *page = 1;
    for (const char *p = q; p != NULL && *p != '\0';) {
        size_t n = strcspn(p, "&");
        if (n == 7 && strncmp(p, "pool=2p", 7) == 0)
            *pool = 0;
        else if (n == 10 && strncmp(p, "pool=multi", 10) == 0)
            *pool = 1;
        else if (n > 5 && n < 16 && strncmp(p, "page=", 5) == 0) {
            long v = strtol(p + 5, NULL, 10);
            *page = v >= 1 && v <= 1000000 ? (int)v : 1;
        }
        p = p[n] == '&' ? p + n + 1 : NULL;
    }
}

int api_rating_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    int ladder = strcmp(rq->path, "/api/ladder") == 0;
    int player = strncmp(rq->path, PLAYERS_PREFIX, strlen(PLAYERS_PREFIX)) == 0;
    if (!ladder && !player)
        return 0;
    out->head = strcmp(rq->method, "HEAD") == 0;
    if (strcmp(rq->method, "GET") != 0 && !out->head) {
        api_reply_json_error(out, 405, "method", "method not allowed on this route");
        return 1;
    }
    if (a->accounts == NULL) {
        api_reply_json_error(out, 404, "accounts_off", "this server has no accounts (no storage)");
        return 1;
    }
    struct rcall *c = mem_zalloc(1, sizeof *c);
    c->out = out;
    c->accounts = a->accounts;
    c->ladder = ladder ? min_games_of(a) : 0;
    if (ladder) {
        int page;
        ladder_args(rq->query, &c->pool, &page);
        if (c->pool < 0) {
            free(c);
            api_reply_json_error(out, 400, "bad_pool", "pool must be 2p or multi");
            return 1;
        }
        if (out->ready != NULL)
            c->req = accounts_ladder(a->accounts, c->pool, page - 1, c->ladder, on_answer, c);
    } else {
        const char *name = rq->path + strlen(PLAYERS_PREFIX);
        if (!name_ok(name)) {
            free(c);
            api_reply_json_error(out, 404, "no_such_player", "no player has that name");
            return 1;
        }
        if (out->ready != NULL)
            c->req = accounts_player(a->accounts, name, on_answer, c);
    }
    if (c->req == NULL) {
        free(c);
        api_reply_json_error(out, 503, "busy", "too many account requests; retry");
        return 1;
    }
    out->deferred = 1;
    out->cancel = on_cancel;
    out->cancel_arg = c;
    return 1;
}
