/* me_games.c: GET /api/me/games?page=N (PROTOCOL.md "Accounts (HTTP)"): the
 * games of the signed-in account, newest first, ACCOUNTS_GAMES_PAGE a page.
 * The accounts service reads the page and each game's record on the pool
 * (players/accounts.h accounts_games); back on the loop, a game without a
 * record is looked up in this node's lobby (whose turn, the clock). A room
 * of another cluster node is just "running". Deferred; no-store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account_json.h"
#include "game/lobby.h"
#include "game/room.h"
#include "http/api.h"
#include "json_str.h"
#include "players/accounts.h"
#include "players/token.h"
#include "game/turn.h"
#include "util/clock.h"
#include "util/mem.h"
#include "util/status.h"

struct games_call {
    struct api *a;
    struct api_reply *out;
    struct accounts_req *req;
    int page;
    int https;
};

/* A growing text. */
struct text {
    char *s;
    size_t len, cap;
};

static void text_need(struct text *t, size_t n)
{
    if (t->len + n + 1 <= t->cap)
        return;
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < t->len + n + 1)
        cap *= 2;
    t->s = mem_resize(t->s, cap);
    t->cap = cap;
}

static void text_add(struct text *t, const char *s)
{
    size_t n = strlen(s);
    text_need(t, n);
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

static void text_str(struct text *t, const char *s)
{
    text_need(t, PROTO_JSON_ESCAPE_MAX(strlen(s)) + 3);
    proto_json_str_append(t->s, t->cap, &t->len, s);
}

/* The score of seat in a record's scores (a JSON array of integers) and its
 * rank (1 + the scores above it): 0, or -1 when the array has no such seat. */
static int score_rank(const char *scores, int seat, long *score, int *rank)
{
    long v[16];
    int n = 0;
    const char *p = scores != NULL ? strchr(scores, '[') : NULL;
    while (p != NULL && n < 16) {
        char *end;
        long x = strtol(p + 1, &end, 10);
        if (end == p + 1)
            break;
        v[n++] = x;
        p = strchr(end, ',');
    }
    if (seat < 0 || seat >= n)
        return -1;
    *score = v[seat];
    *rank = 1;
    for (int i = 0; i < n; i++)
        *rank += v[i] > v[seat];
    return 0;
}

static void game_record(struct text *t, const struct accounts_game *g)
{
    char buf[128];
    long score;
    int rank;
    snprintf(buf, sizeof buf, ",\"finished\":%lld,\"players\":", g->finished_ms);
    text_add(t, buf);
    text_add(t, g->players != NULL && g->players[0] ? g->players : "[]");
    text_add(t, ",\"scores\":");
    text_add(t, g->scores != NULL && g->scores[0] ? g->scores : "[]");
    if (score_rank(g->scores, g->seat, &score, &rank) == 0) {
        snprintf(buf, sizeof buf, ",\"result\":{\"score\":%ld,\"rank\":%d}", score, rank);
        text_add(t, buf);
    }
    text_add(t, ",\"replay\":");
    char link[ACCOUNTS_ROOM_MAX + 16];
    snprintf(link, sizeof link, "/#replay=%s", g->room);
    text_str(t, link);
}

/* A game without a record: what this node's lobby knows of its room. */
static void game_running(struct text *t, const struct lobby *lb, const struct accounts_game *g,
                         long long account)
{
    const struct room *r = lb != NULL ? lobby_room_find(lb, g->room) : NULL;
    if (r == NULL || r->game == NULL || r->phase != PROTO_PHASE_PLAYING)
        return;
    int mine = room_account_seat(r, account);
    if (mine < 0)
        mine = g->seat;
    int turn = r->game->current;
    char buf[160];
    snprintf(buf, sizeof buf, ",\"turn\":%d,\"your_turn\":%s,\"turn_name\":", turn,
             turn == mine ? "true" : "false");
    text_add(t, buf);
    text_str(t, r->seats[turn].name);
    if (r->clock.initial > 0 && mine < r->nseats) {
        long long left = turn_time_left(r, mine, clock_wall_ms());
        snprintf(buf, sizeof buf, ",\"time_ms\":%lld", left > 0 ? left : 0);
        text_add(t, buf);
    }
}

static char *games_encode(const struct api *a, const struct accounts_result *r, int page)
{
    struct text t = {0};
    char buf[128];
    text_add(&t, "{\"games\":[");
    for (int i = 0; i < r->ngames; i++) {
        const struct accounts_game *g = &r->games[i];
        text_add(&t, i ? ",{\"room\":" : "{\"room\":");
        text_str(&t, g->room);
        snprintf(buf, sizeof buf, ",\"seat\":%d,\"time\":%lld,\"status\":\"%s\"", g->seat,
                 g->time_ms, g->status[0] ? g->status : "running");
        text_add(&t, buf);
        if (g->status[0])
            game_record(&t, g);
        else
            game_running(&t, a->lobby, g, r->account);
        text_add(&t, "}");
    }
    snprintf(buf, sizeof buf, "],\"page\":%d,\"per_page\":%d,\"more\":%s}", page,
             ACCOUNTS_GAMES_PAGE, r->more ? "true" : "false");
    text_add(&t, buf);
    return t.s;
}

static void on_games(void *arg, const struct accounts_result *r)
{
    struct games_call *c = arg;
    struct api_reply *out = c->out;
    if (r->status == 0) {
        api_reply_json(out, 200, games_encode(c->a, r, c->page), NULL);
    } else if (r->status == ACCOUNTS_E_SESSION) {
        api_reply_json_error(out, 401, "not_signed_in", "not signed in");
        api_session_cookie_clear(out, c->https);
    } else {
        api_reply_json_error(out, 503, "storage_error", "the accounts database failed; retry");
    }
    free(c);
    api_reply_ready(out);
}

static void on_cancel(void *arg)
{
    struct games_call *c = arg;
    if (c->req != NULL)
        accounts_cancel(c->req);
    free(c);
}

int api_me_games_route(struct api *a, const struct api_request *rq, struct api_reply *out)
{
    if (strcmp(rq->path, "/api/me/games") != 0)
        return 0;
    out->head = strcmp(rq->method, "HEAD") == 0;
    char token[TOKEN_LEN + 1];
    if (strcmp(rq->method, "GET") != 0 && !out->head)
        api_reply_json_error(out, 405, "method", "method not allowed on this route");
    else if (a->accounts == NULL)
        api_reply_json_error(out, 404, "accounts_off", "this server has no accounts (no storage)");
    else if (!api_cookie_session(rq->cookie, token))
        api_reply_json_error(out, 401, "not_signed_in", "not signed in");
    else {
        struct games_call *c = mem_zalloc(1, sizeof *c);
        c->a = a;
        c->out = out;
        c->page = api_query_page(rq->query);
        c->https = rq->https;
        c->req =
            out->ready != NULL ? accounts_games(a->accounts, token, c->page, on_games, c) : NULL;
        memset(token, 0, sizeof token);
        if (c->req == NULL) {
            free(c);
            api_reply_json_error(out, 503, "busy", "too many account requests; retry");
            return 1;
        }
        out->deferred = 1;
        out->cancel = on_cancel;
        out->cancel_arg = c;
    }
    return 1;
}
