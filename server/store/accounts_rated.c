/* store/accounts_rated.c: accounts.h's rated games: the mark that a game is
 * rated (rated_games, written in the transaction of its ratings), and the
 * finished rated games without one, read back from the store's own tables
 * (games, rooms, seats) so that a rating lost in a crash is done again. SQL
 * both backends run (accounts_int.h). Blocking; one thread at a time per
 * handle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_int.h"
#include "util/status.h"

int store_ratings_lock(struct store_accounts *a)
{
    if (!a->in_tx)
        return STORE_E_ARGS;
    if (a->be->ratings_lock_sql == NULL)
        return 0;
    return a->be->run(a, a->be->ratings_lock_sql, 0, NULL, NULL, NULL, NULL);
}

int store_rated_game_claim(struct store_accounts *a, const char *game, long long time_ms,
                           int *claimed)
{
    *claimed = 0;
    if (game == NULL || game[0] == '\0' || strlen(game) > STORE_GAME_ID_MAX)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_S(game), AV_I(time_ms)};
    long long changes = 0;
    int rc = a->be->run(a,
                        "INSERT INTO rated_games(room, time_ms) VALUES($1, $2)"
                        " ON CONFLICT(room) DO NOTHING",
                        2, v, NULL, NULL, &changes);
    if (rc == 0)
        *claimed = changes == 1;
    return rc;
}

/* games.scores as the store wrote them ("[12,30]"): 0 with the count in *n,
 * or -1 for anything else. */
static int scores_parse(const char *s, int *out, int max, int *n)
{
    *n = 0;
    while (*s == ' ')
        s++;
    if (*s++ != '[')
        return -1;
    while (*s == ' ')
        s++;
    if (*s == ']')
        return 0;
    for (;;) {
        char *end = NULL;
        long v = strtol(s, &end, 10);
        if (end == s || *n >= max)
            return -1;
        out[(*n)++] = (int)v;
        s = end;
        while (*s == ' ')
            s++;
        if (*s == ']')
            return 0;
        if (*s++ != ',')
            return -1;
    }
}

struct pending_rows {
    struct store_accounts *a;
    struct store_rated_game *out;
    int n, max;
};

static int pending_row(void *arg, const struct acc_row *r)
{
    struct pending_rows *p = arg;
    if (p->n >= p->max)
        return 0;
    struct store_rated_game *g = &p->out[p->n++];
    memset(g, 0, sizeof *g);
    snprintf(g->room, sizeof g->room, "%s", p->a->be->col_text(r, 0));
    g->time_ms = p->a->be->col_int(r, 1);
    int scores[STORE_RATED_SEATS], n = 0;
    if (scores_parse(p->a->be->col_text(r, 2), scores, STORE_RATED_SEATS, &n) != 0)
        n = 0;
    for (int i = 0; i < n; i++)
        g->seat[i].score = scores[i];
    g->n = n; /* until the seats say otherwise */
    return 0;
}

struct seat_rows {
    struct store_accounts *a;
    struct store_rated_game *g;
    int n, bad;
};

static int seat_row(void *arg, const struct acc_row *r)
{
    struct seat_rows *s = arg;
    int idx = (int)s->a->be->col_int(r, 0);
    if (idx != s->n || idx >= s->g->n) { /* a gap, or more seats than scores */
        s->bad = 1;
        return 0;
    }
    s->g->seat[idx].bot = (int)s->a->be->col_int(r, 1);
    s->g->seat[idx].account = s->a->be->col_int(r, 2);
    s->g->seat[idx].forfeited = s->a->be->col_int(r, 3) != 0;
    s->n++;
    return 0;
}

int store_rated_games_pending(struct store_accounts *a, long long since_ms, int max,
                              struct store_rated_game *out, int *n)
{
    *n = 0;
    if (max <= 0)
        return STORE_E_ARGS;
    /* games_status (status, finished, room) serves the scan on both backends. */
    struct acc_val v[] = {AV_I(max), AV_I(since_ms)};
    struct pending_rows p = {a, out, 0, max};
    int rc = a->be->run(a,
                        "SELECT g.room, g.finished, g.scores FROM games g"
                        " JOIN rooms r ON r.id = g.room"
                        " WHERE g.status = 'finished' AND g.finished >= $2"
                        " AND (r.variants & 16) <> 0"
                        " AND NOT EXISTS (SELECT 1 FROM rated_games x WHERE x.room = g.room)"
                        " ORDER BY g.finished, g.room LIMIT $1",
                        2, v, pending_row, &p, NULL);
    for (int i = 0; rc == 0 && i < p.n; i++) {
        struct seat_rows s = {a, &out[i], 0, 0};
        struct acc_val w[] = {AV_S(out[i].room)};
        rc = a->be->run(a,
                        "SELECT idx, bot, account, forfeited FROM seats WHERE room = $1"
                        " ORDER BY idx",
                        1, w, seat_row, &s, NULL);
        if (s.bad || s.n != out[i].n)
            out[i].n = 0; /* unratable: the caller marks it */
    }
    if (rc == 0)
        *n = p.n;
    return rc;
}
