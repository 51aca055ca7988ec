/* store/accounts_ratings.c: accounts.h's ratings, their history, the ladder
 * and the games of an account (with their records' summaries), as SQL both backends run
 * (accounts_int.h). Blocking; one thread at a time per handle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_int.h"
#include "util/mem.h"
#include "util/status.h"

static int pool_ok(const char *pool)
{
    return pool != NULL &&
           (strcmp(pool, STORE_POOL_2P) == 0 || strcmp(pool, STORE_POOL_MULTI) == 0);
}

static int game_ok(const char *game)
{
    return game != NULL && game[0] != '\0' && strlen(game) <= STORE_GAME_ID_MAX;
}

/* ---- ratings ---- */

#define RATING_COLS "rating, deviation, volatility, mu, sigma, display, games, updated_ms"

/* The columns of RATING_COLS from column k on. */
static void rating_read(struct store_accounts *a, const struct acc_row *r, int k,
                        struct store_rating *out)
{
    out->rating = a->be->col_real(r, k);
    out->deviation = a->be->col_real(r, k + 1);
    out->volatility = a->be->col_real(r, k + 2);
    out->mu = a->be->col_real(r, k + 3);
    out->sigma = a->be->col_real(r, k + 4);
    out->display = a->be->col_real(r, k + 5);
    out->games = (int)a->be->col_int(r, k + 6);
    out->updated_ms = a->be->col_int(r, k + 7);
}

struct rating_one {
    struct store_accounts *a;
    struct store_rating *out;
    int found;
};

static int rating_row(void *arg, const struct acc_row *r)
{
    struct rating_one *o = arg;
    rating_read(o->a, r, 0, o->out);
    o->found = 1;
    return 0;
}

int store_rating_get(struct store_accounts *a, long long account, const char *pool,
                     struct store_rating *out)
{
    if (account <= 0 || !pool_ok(pool))
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account), AV_S(pool)};
    struct rating_one o = {.a = a, .out = out};
    int rc = a->be->run(a, "SELECT " RATING_COLS " FROM ratings WHERE account = $1 AND pool = $2",
                        2, v, rating_row, &o, NULL);
    return rc != 0 ? rc : o.found ? 0 : STORE_E_NOT_FOUND;
}

int store_rating_put(struct store_accounts *a, long long account, const char *pool,
                     const struct store_rating *r)
{
    if (account <= 0 || !pool_ok(pool))
        return STORE_E_ARGS;
    struct acc_val v[] = {
        AV_I(account), AV_S(pool),     AV_D(r->rating),  AV_D(r->deviation), AV_D(r->volatility),
        AV_D(r->mu),   AV_D(r->sigma), AV_D(r->display), AV_I(r->games),     AV_I(r->updated_ms)};
    return a->be->run(a,
                      "INSERT INTO ratings(account, pool, " RATING_COLS ")"
                      " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
                      " ON CONFLICT(account, pool) DO UPDATE SET rating = excluded.rating,"
                      " deviation = excluded.deviation, volatility = excluded.volatility,"
                      " mu = excluded.mu, sigma = excluded.sigma, display = excluded.display,"
                      " games = excluded.games, updated_ms = excluded.updated_ms",
                      10, v, NULL, NULL, NULL);
}

/* ---- history ---- */

int store_rating_history_add(struct store_accounts *a, long long account, const char *pool,
                             const struct store_rating_point *p)
{
    if (account <= 0 || !pool_ok(pool) || !game_ok(p->game))
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account),    AV_S(pool),      AV_S(p->game),
                          AV_I(p->time_ms), AV_D(p->rating), AV_D(p->deviation)};
    return a->be->run(a,
                      "INSERT INTO rating_history(account, pool, game, time_ms, rating, deviation)"
                      " VALUES($1, $2, $3, $4, $5, $6)",
                      6, v, NULL, NULL, NULL);
}

struct points {
    struct store_accounts *a;
    struct store_rating_point *out;
    int n, max;
};

static int point_row(void *arg, const struct acc_row *r)
{
    struct points *ps = arg;
    if (ps->n >= ps->max)
        return 0;
    struct store_rating_point *p = &ps->out[ps->n++];
    snprintf(p->game, sizeof p->game, "%s", ps->a->be->col_text(r, 0));
    p->time_ms = ps->a->be->col_int(r, 1);
    p->rating = ps->a->be->col_real(r, 2);
    p->deviation = ps->a->be->col_real(r, 3);
    return 0;
}

int store_rating_history_read(struct store_accounts *a, long long account, const char *pool,
                              int max, struct store_rating_point *out, int *n)
{
    *n = 0;
    if (account <= 0 || !pool_ok(pool) || max < 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account), AV_S(pool), AV_I(max)};
    struct points ps = {.a = a, .out = out, .max = max};
    int rc = a->be->run(a,
                        "SELECT game, time_ms, rating, deviation FROM rating_history"
                        " WHERE account = $1 AND pool = $2 ORDER BY time_ms DESC, id DESC"
                        " LIMIT $3",
                        3, v, point_row, &ps, NULL);
    *n = ps.n;
    return rc;
}

/* ---- the ladder ---- */

struct ladder {
    struct store_accounts *a;
    struct store_ladder_row *out;
    int n, max;
};

static int ladder_row(void *arg, const struct acc_row *r)
{
    struct ladder *l = arg;
    if (l->n >= l->max)
        return 0;
    struct store_ladder_row *row = &l->out[l->n++];
    row->account = l->a->be->col_int(r, 0);
    snprintf(row->name, sizeof row->name, "%s", l->a->be->col_text(r, 1));
    rating_read(l->a, r, 2, &row->r);
    return 0;
}

int store_ladder_read(struct store_accounts *a, const char *pool, int min_games, int offset,
                      int max, struct store_ladder_row *out, int *n)
{
    *n = 0;
    if (!pool_ok(pool) || offset < 0 || max < 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_S(pool), AV_I(min_games), AV_I(max), AV_I(offset)};
    struct ladder l = {.a = a, .out = out, .max = max};
    int rc = a->be->run(a,
                        "SELECT r.account, a.name, r.rating, r.deviation, r.volatility, r.mu,"
                        " r.sigma, r.display, r.games, r.updated_ms FROM ratings r"
                        " JOIN accounts a ON a.id = r.account WHERE r.pool = $1"
                        " AND r.games >= $2 AND a.disabled = 0 AND a.deleted = 0"
                        " ORDER BY r.display DESC, r.account LIMIT $3 OFFSET $4",
                        4, v, ladder_row, &l, NULL);
    *n = l.n;
    return rc;
}

/* ---- the games of an account ---- */

int store_account_game_add(struct store_accounts *a, const char *game, int seat, long long account,
                           long long time_ms)
{
    if (!game_ok(game) || seat < 0 || account <= 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_S(game), AV_I(seat), AV_I(account), AV_I(time_ms)};
    return a->be->run(a,
                      "INSERT INTO account_games(game, seat, account, time_ms)"
                      " VALUES($1, $2, $3, $4) ON CONFLICT(game, seat) DO UPDATE"
                      " SET account = excluded.account, time_ms = excluded.time_ms",
                      4, v, NULL, NULL, NULL);
}

struct games {
    struct store_accounts *a;
    struct store_account_game *out;
    int n, max;
};

static int game_row(void *arg, const struct acc_row *r)
{
    struct games *g = arg;
    if (g->n >= g->max)
        return 0;
    struct store_account_game *ag = &g->out[g->n++];
    snprintf(ag->game, sizeof ag->game, "%s", g->a->be->col_text(r, 0));
    ag->seat = (int)g->a->be->col_int(r, 1);
    ag->time_ms = g->a->be->col_int(r, 2);
    return 0;
}

int store_account_games_read(struct store_accounts *a, long long account, int offset, int max,
                             struct store_account_game *out, int *n)
{
    *n = 0;
    if (account <= 0 || offset < 0 || max < 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account), AV_I(max), AV_I(offset)};
    struct games g = {.a = a, .out = out, .max = max};
    int rc = a->be->run(a,
                        "SELECT game, seat, time_ms FROM account_games WHERE account = $1"
                        " ORDER BY time_ms DESC, game DESC LIMIT $2 OFFSET $3",
                        3, v, game_row, &g, NULL);
    *n = g.n;
    return rc;
}

struct summary {
    struct store_accounts *a;
    struct store_game_summary *out;
    int n;
};

static int summary_row(void *arg, const struct acc_row *r)
{
    struct summary *g = arg;
    const struct acc_backend *be = g->a->be;
    if (g->n++ > 0) /* the room is the key: never */
        return 0;
    snprintf(g->out->status, sizeof g->out->status, "%s", be->col_text(r, 0));
    g->out->finished_ms = be->col_int(r, 1);
    g->out->players = mem_strdup(be->col_text(r, 2));
    g->out->scores = mem_strdup(be->col_text(r, 3));
    return 0;
}

int store_account_game_record(struct store_accounts *a, const char *game,
                              struct store_game_summary *out)
{
    memset(out, 0, sizeof *out);
    if (!game_ok(game))
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_S(game)};
    struct summary g = {.a = a, .out = out};
    int rc = a->be->run(a, "SELECT status, finished, players, scores FROM games WHERE room = $1", 1,
                        v, summary_row, &g, NULL);
    if (rc == 0 && g.n == 0)
        rc = STORE_E_NOT_FOUND;
    if (rc != 0)
        store_game_summary_free(out);
    return rc;
}

void store_game_summary_free(struct store_game_summary *g)
{
    free(g->players);
    free(g->scores);
    g->players = g->scores = NULL;
}
