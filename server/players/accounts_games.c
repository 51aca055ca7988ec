/* accounts_games.c: the games of a signed-in account (GET /api/me/games,
 * accounts.h accounts_games): on the loop, a request about the session of a
 * token; on the pool, the session read again, a page of the account's game
 * links (store_account_games_read, newest first, one more than a page to
 * know whether another follows) and, per game, its record's summary when the
 * store has one (store_account_game_record). Whether a game without a record
 * runs on this node is the caller's to find (the lobby is the loop's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_int.h"
#include "util/mem.h"
#include "util/status.h"

struct accounts_req *accounts_games(struct accounts *a, const char *token, int page, accounts_cb cb,
                                    void *arg)
{
    struct accounts_req *r =
        accounts__token_req(a, ACCOUNTS__GAMES, token, ACCOUNTS_E_SESSION, cb, arg);
    if (r == NULL || r->where == ACCOUNTS__READY)
        return r;
    if (page < 1)
        page = 1;
    if (page > 100000) /* no account has two million games: an empty page */
        page = 100000;
    r->offset = (page - 1) * ACCOUNTS_GAMES_PAGE;
    r->max = ACCOUNTS_GAMES_PAGE;
    return accounts__queue(r);
}

void accounts__games_free(struct accounts_req *r)
{
    for (int i = 0; i < r->ngames; i++) {
        free((char *)r->games[i].players);
        free((char *)r->games[i].scores);
    }
    free(r->games);
    r->games = NULL;
    r->ngames = 0;
}

/* The record of g->room, when there is one, into g: 0, or the store's failure. */
static int record_read(struct store_accounts *h, struct accounts_game *g)
{
    struct store_game_summary s;
    int rc = store_account_game_record(h, g->room, &s);
    if (rc == STORE_E_NOT_FOUND)
        return 0;
    if (rc != 0)
        return rc;
    snprintf(g->status, sizeof g->status, "%s", s.status);
    g->finished_ms = s.finished_ms;
    g->players = s.players; /* handed over */
    g->scores = s.scores;
    return 0;
}

void accounts__games_job_run(struct accounts_req *r, struct store_accounts *h)
{
    if (accounts__session_read(r, h) != 0)
        return;
    memset(r->res.csrf, 0, sizeof r->res.csrf); /* not part of this answer */
    struct store_account_game rows[ACCOUNTS_GAMES_PAGE + 1];
    int n = 0;
    int rc = store_account_games_read(h, r->res.account, r->offset, r->max + 1, rows, &n);
    if (rc != 0) {
        accounts__storage_failed(r, h, "the games of an account", rc);
        return;
    }
    r->res.more = n > r->max;
    if (n > r->max)
        n = r->max;
    r->games = n > 0 ? mem_zalloc((size_t)n, sizeof *r->games) : NULL;
    for (int i = 0; i < n && rc == 0; i++) {
        struct accounts_game *g = &r->games[i];
        snprintf(g->room, sizeof g->room, "%.*s", ACCOUNTS_ROOM_MAX, rows[i].game);
        g->seat = rows[i].seat;
        g->time_ms = rows[i].time_ms;
        r->ngames = i + 1;
        rc = record_read(h, g);
    }
    if (rc != 0) {
        accounts__storage_failed(r, h, "the record of an account's game", rc);
        return;
    }
    r->res.games = r->games;
    r->res.ngames = r->ngames;
    accounts__set(&r->res, 0);
}
