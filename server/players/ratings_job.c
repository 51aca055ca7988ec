/* ratings_job.c: ratings in the accounts service (PROTOCOL.md "Ratings"),
 * both sides: the bots' rated identities made at start, a rated game's end
 * rated on the pool (Glicko-2 for two players, Weng-Lin Plackett-Luce for
 * three to six: players/rating.h), and the reads of a player's ratings and
 * of a ladder's page. Each rating kind carries its input and answer in
 * r->ext (freed with the request). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "players/accounts_int.h"
#include "players/rating.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/status.h"

#define DAY_MS 86400000.0

static const char *const bot_names[ACCOUNTS_BOTS] = ACCOUNTS_BOT_NAMES;
static const char *const pool_names[ACCOUNTS_POOLS] = {STORE_POOL_2P, STORE_POOL_MULTI};

/* ---- the bots' identities ---- */

int accounts__bots_ensure(struct accounts *a, struct store_accounts *h, char *err, size_t errlen)
{
    for (int i = 0; i < ACCOUNTS_BOTS; i++) {
        struct store_account acc;
        int rc = store_account_find(h, bot_names[i], &acc);
        if (rc == STORE_E_NOT_FOUND) {
            /* No password hash: account_verify refuses "", and the name rule
             * refuses a dot, so nobody signs in as a bot. */
            long long id = 0;
            rc = store_account_create(h, bot_names[i], "", a->now_ms(), NULL, &id);
            if (rc == STORE_E_EXISTS) /* another node made it just now */
                rc = store_account_find(h, bot_names[i], &acc);
            else
                acc.id = id;
        }
        if (rc != 0) {
            snprintf(err, errlen, "accounts: the rated identity %s: %s (%s)", bot_names[i],
                     srv_status_name(rc), store_accounts_error(h));
            return -1;
        }
        a->bot_id[i] = acc.id;
    }
    return 0;
}

/* ---- a rated game ---- */

struct rate_in {
    int n;
    struct accounts_rated_player p[RATING_PL_MAX_PLAYERS];
};

/* Finished rated games looked for per catch-up run (accounts_rate_pending),
 * and how far back a run that is not the first looks (a day of games: the
 * first run after start looks at every game). */
#define PENDING_BATCH 32
#define PENDING_WINDOW_MS (24LL * 3600 * 1000)

static void rate_done(void *arg, const struct accounts_result *res)
{
    (void)arg;
    if (res->status != 0)
        log_event(LOG_WARN, NULL, "accounts: a rated game was not rated: %s",
                  srv_status_name(res->status));
}

int accounts_rate_game(struct accounts *a, const char *game, long long time_ms,
                       const struct accounts_rated_player *p, int n)
{
    if (n < 2 || n > RATING_PL_MAX_PLAYERS) {
        log_event(LOG_WARN, NULL, "accounts: game %s of %d players is not rated", game, n);
        return -1;
    }
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__RATE, rate_done, NULL);
    if (r == NULL) {
        log_event(LOG_WARN, NULL, "accounts: game %s was not rated: the queue is full", game);
        return -1;
    }
    struct rate_in *in = mem_zalloc(1, sizeof *in);
    in->n = n;
    memcpy(in->p, p, (size_t)n * sizeof *p);
    r->ext = in;
    snprintf(r->game, sizeof r->game, "%s", game);
    r->time_ms = time_ms;
    accounts__queue(r);
    return 0;
}

/* Does j finish ahead of i (forfeited seats after the others, then by score)? */
static int ahead(const struct accounts_rated_player *j, const struct accounts_rated_player *i)
{
    if (j->forfeited != i->forfeited)
        return i->forfeited;
    return j->score > i->score;
}

/* One player's new numbers written with their history row. */
static int rating_write(struct accounts_req *r, struct store_accounts *h, long long account,
                        const char *pool, struct store_rating *s)
{
    s->games++;
    s->updated_ms = r->time_ms;
    int rc = store_rating_put(h, account, pool, s);
    struct store_rating_point pt;
    memset(&pt, 0, sizeof pt);
    snprintf(pt.game, sizeof pt.game, "%s", r->game);
    pt.time_ms = r->time_ms;
    pt.rating = s->display;
    pt.deviation = s->volatility > 0 ? s->deviation : RATING_PL_DISPLAY_SCALE * s->sigma;
    if (rc == 0)
        rc = store_rating_history_add(h, account, pool, &pt);
    return rc;
}

/* Two players: Glicko-2, each against the other's aged, pre-game rating. */
static int rate_2p(struct accounts_req *r, struct store_accounts *h, const long long *id,
                   struct store_rating *s)
{
    const struct rate_in *in = r->ext;
    struct rating_g2 g[2];
    for (int i = 0; i < 2; i++) {
        if (s[i].games == 0) {
            rating_g2_init(&g[i]);
            continue;
        }
        g[i] = (struct rating_g2){s[i].rating, s[i].deviation, s[i].volatility};
        double days = (double)(r->time_ms - s[i].updated_ms) / DAY_MS;
        if (days > 0)
            rating_g2_age(&g[i], days * RATING_G2_PERIODS_PER_DAY);
    }
    double score0 = ahead(&in->p[0], &in->p[1]) ? 1.0 : ahead(&in->p[1], &in->p[0]) ? 0.0 : 0.5;
    struct rating_g2 before[2] = {g[0], g[1]};
    for (int i = 0; i < 2; i++) {
        const struct rating_g2 *o = &before[1 - i];
        struct rating_g2_game game = {o->rating, o->deviation, i == 0 ? score0 : 1.0 - score0};
        if (rating_g2_update(&g[i], &game, 1, RATING_G2_TAU) != 0)
            return STORE_E_ARGS;
        s[i].rating = s[i].display = g[i].rating;
        s[i].deviation = g[i].deviation;
        s[i].volatility = g[i].volatility;
    }
    int rc = 0;
    for (int i = 0; rc == 0 && i < 2; i++)
        rc = rating_write(r, h, id[i], STORE_POOL_2P, &s[i]);
    return rc;
}

/* Three to six: Plackett-Luce, ranked by ahead(). */
static int rate_multi(struct accounts_req *r, struct store_accounts *h, const long long *id,
                      struct store_rating *s)
{
    const struct rate_in *in = r->ext;
    struct rating_pl_model m;
    rating_pl_model_init(&m);
    struct rating_pl pl[RATING_PL_MAX_PLAYERS];
    int rank[RATING_PL_MAX_PLAYERS];
    for (int i = 0; i < in->n; i++) {
        if (s[i].games == 0)
            rating_pl_init(&pl[i], &m);
        else
            pl[i] = (struct rating_pl){s[i].mu, s[i].sigma};
        rank[i] = 0;
        for (int j = 0; j < in->n; j++)
            rank[i] += ahead(&in->p[j], &in->p[i]);
    }
    if (rating_pl_update(pl, rank, in->n, &m) != 0)
        return STORE_E_ARGS;
    int rc = 0;
    for (int i = 0; rc == 0 && i < in->n; i++) {
        s[i].mu = pl[i].mu;
        s[i].sigma = pl[i].sigma;
        s[i].display = rating_pl_display(&pl[i]);
        rc = rating_write(r, h, id[i], STORE_POOL_MULTI, &s[i]);
    }
    return rc;
}

/* The players' accounts (a bot's identity for a bot): 0, or -1. */
static int rate_ids(struct accounts_req *r, long long *id)
{
    const struct rate_in *in = r->ext;
    for (int i = 0; i < in->n; i++) {
        const struct accounts_rated_player *p = &in->p[i];
        id[i] = p->bot > 0 && p->bot <= ACCOUNTS_BOTS ? r->a->bot_id[p->bot - 1] : p->account;
        if (id[i] <= 0)
            return -1;
        for (int j = 0; j < i; j++)
            if (id[j] == id[i] && p->bot == 0)
                return -1; /* one account on two seats: no game against oneself */
    }
    return 0;
}

/* A game that cannot be rated marked so, that the catch-up does not find it
 * again. */
static void unratable(struct accounts_req *r, struct store_accounts *h, const char *why)
{
    log_event(LOG_WARN, NULL, "accounts: game %s not rated: %s", r->game, why);
    int claimed = 0, rc = store_accounts_begin(h);
    if (rc == 0)
        rc = store_rated_game_claim(h, r->game, r->time_ms, &claimed);
    if (rc == 0)
        rc = store_accounts_commit(h);
    if (rc != 0) {
        store_accounts_rollback(h);
        accounts__storage_failed(r, h, "an unratable game", rc);
        return;
    }
    accounts__set(&r->res, 0);
}

/* The game of r (r->ext, r->game, r->time_ms) rated in one transaction,
 * which first marks it rated (rated_games): a game marked already (rated
 * before, or by another node at the same moment) changes nothing. */
static void rate(struct accounts_req *r, struct store_accounts *h)
{
    const struct rate_in *in = r->ext;
    long long id[RATING_PL_MAX_PLAYERS];
    if (in->n < 2 || in->n > RATING_PL_MAX_PLAYERS) {
        unratable(r, h, "not two to six players");
        return;
    }
    if (rate_ids(r, id) != 0) {
        unratable(r, h, "a seat is no player's");
        return;
    }
    const char *pool = in->n == 2 ? STORE_POOL_2P : STORE_POOL_MULTI;
    int claimed = 0, rc = store_accounts_begin(h);
    if (rc == 0)
        rc = store_ratings_lock(h);
    if (rc == 0)
        rc = store_rated_game_claim(h, r->game, r->time_ms, &claimed);
    int dup = rc == 0 && !claimed;
    struct store_rating s[RATING_PL_MAX_PLAYERS];
    memset(s, 0, sizeof s);
    for (int i = 0; rc == 0 && !dup && i < in->n; i++) {
        rc = store_rating_get(h, id[i], pool, &s[i]);
        if (rc == STORE_E_NOT_FOUND) {
            memset(&s[i], 0, sizeof s[i]);
            rc = 0;
        }
    }
    if (rc == 0 && !dup)
        rc = in->n == 2 ? rate_2p(r, h, id, s) : rate_multi(r, h, id, s);
    if (rc == 0)
        rc = store_accounts_commit(h);
    if (rc != 0) {
        store_accounts_rollback(h);
        accounts__storage_failed(r, h, "a rated game", rc);
        return;
    }
    if (dup)
        log_event(LOG_INFO, NULL, "accounts: game %s was rated before", r->game);
    else
        log_event(LOG_INFO, NULL, "accounts: game %s rated (%s, %d players)", r->game, pool, in->n);
    accounts__set(&r->res, 0);
}

/* ---- the catch-up: finished rated games the store has and rated_games not ---- */

/* A run that found a whole batch is followed by another (the same window),
 * from the loop: one bounded batch per job, runs back to back until done. */
static void rate_pending_done(void *arg, const struct accounts_result *res, int all)
{
    if (res->status != 0)
        log_event(LOG_WARN, NULL, "accounts: the rated games' catch-up failed: %s",
                  srv_status_name(res->status));
    else if (res->more)
        (void)accounts_rate_pending(arg, all);
}

static void rate_pending_all_done(void *arg, const struct accounts_result *res)
{
    rate_pending_done(arg, res, 1);
}

static void rate_pending_recent_done(void *arg, const struct accounts_result *res)
{
    rate_pending_done(arg, res, 0);
}

int accounts_rate_pending(struct accounts *a, int all)
{
    struct accounts_req *r = accounts__req_new(
        a, ACCOUNTS__RATE, all ? rate_pending_all_done : rate_pending_recent_done, a);
    if (r == NULL) {
        log_event(LOG_WARN, NULL,
                  "accounts: no catch-up of rated games: the queue is full, or closing");
        return -1;
    }
    r->flag = 1;     /* the catch-up, not one game */
    r->offset = all; /* (a list's field; the catch-up has no list) */
    accounts__queue(r);
    return 0;
}

/* Each game of one batch rated as its end would have been (rate), each in
 * its own transaction; the players rebuilt from the store's rows. */
static void rate_pending(struct accounts_req *r, struct store_accounts *h)
{
    struct store_rated_game *g = mem_zalloc(PENDING_BATCH, sizeof *g);
    long long since = r->offset ? 0 : r->now - PENDING_WINDOW_MS;
    int n = 0, rc = store_rated_games_pending(h, since, PENDING_BATCH, g, &n);
    if (rc != 0) {
        free(g);
        accounts__storage_failed(r, h, "the rated games' catch-up", rc);
        return;
    }
    int failed = 0;
    for (int i = 0; i < n; i++) {
        struct rate_in *in = mem_zalloc(1, sizeof *in);
        in->n = g[i].n <= RATING_PL_MAX_PLAYERS ? g[i].n : 0;
        for (int k = 0; k < in->n; k++) {
            in->p[k].bot = g[i].seat[k].bot;
            in->p[k].account = g[i].seat[k].bot ? 0 : g[i].seat[k].account;
            in->p[k].score = g[i].seat[k].score;
            in->p[k].forfeited = g[i].seat[k].forfeited;
        }
        free(r->ext);
        r->ext = in;
        snprintf(r->game, sizeof r->game, "%s", g[i].room);
        r->time_ms = g[i].time_ms;
        log_event(LOG_INFO, NULL, "accounts: game %s finished without its rating: rating it",
                  r->game);
        rate(r, h);
        failed += r->res.status != 0;
    }
    free(g);
    accounts__set(&r->res, failed == 0 ? 0 : ACCOUNTS_E_STORAGE);
    r->res.more = failed == 0 && n == PENDING_BATCH;
}

/* ---- a player, a ladder ---- */

struct accounts_req *accounts_player(struct accounts *a, const char *name, accounts_cb cb,
                                     void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__PLAYER, cb, arg);
    if (r == NULL)
        return NULL;
    r->ext = mem_zalloc(1, sizeof(struct accounts_player));
    size_t n = name != NULL ? strlen(name) : 0;
    if (n == 0 || n > ACCOUNT_NAME_MAX)
        return accounts__answer_soon(r, ACCOUNTS_E_UNKNOWN, NULL);
    memcpy(r->name, name, n + 1);
    return accounts__queue(r);
}

struct accounts_req *accounts_ladder(struct accounts *a, int pool, int page, int min_games,
                                     accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__LADDER, cb, arg);
    if (r == NULL)
        return NULL;
    r->ext = mem_zalloc(ACCOUNTS_LADDER_PAGE, sizeof(struct accounts_ladder_row));
    r->flag = pool == 1;
    r->offset = page > 0 ? page : 0;
    r->max = min_games;
    return accounts__queue(r);
}

static int pool_read(struct store_accounts *h, long long id, int pool, struct accounts_pool_view *v)
{
    struct store_rating s;
    int rc = store_rating_get(h, id, pool_names[pool], &s);
    if (rc == STORE_E_NOT_FOUND)
        return 0;
    if (rc != 0)
        return rc;
    v->present = 1;
    v->games = s.games;
    if (pool == 0) {
        struct rating_g2 g = {s.rating, s.deviation, s.volatility};
        v->rating = s.rating;
        v->deviation = s.deviation;
        v->volatility = s.volatility;
        v->provisional = rating_g2_provisional(&g);
    } else {
        struct rating_pl pl = {s.mu, s.sigma};
        v->rating = rating_pl_display(&pl);
        v->deviation = rating_pl_display_deviation(&pl);
        v->provisional = rating_pl_provisional(&pl);
    }
    struct store_rating_point pts[ACCOUNTS_HISTORY_MAX];
    int n = 0;
    rc = store_rating_history_read(h, id, pool_names[pool], ACCOUNTS_HISTORY_MAX, pts, &n);
    for (int i = 0; rc == 0 && i < n; i++) {
        _Static_assert(sizeof v->history[i].game == sizeof pts[i].game, "a game id's size");
        memcpy(v->history[i].game, pts[i].game, sizeof v->history[i].game);
        v->history[i].time_ms = pts[i].time_ms;
        v->history[i].rating = pts[i].rating;
    }
    v->nhistory = rc == 0 ? n : 0;
    return rc;
}

static void player(struct accounts_req *r, struct store_accounts *h)
{
    struct accounts_player *p = r->ext;
    struct store_account acc;
    int rc = store_account_find(h, r->name, &acc);
    if (rc == STORE_E_NOT_FOUND || (rc == 0 && acc.deleted)) {
        accounts__set(&r->res, ACCOUNTS_E_UNKNOWN);
        return;
    }
    snprintf(p->name, sizeof p->name, "%s", acc.name);
    p->created_ms = acc.created_ms;
    for (int i = 0; rc == 0 && i < ACCOUNTS_POOLS; i++)
        rc = pool_read(h, acc.id, i, &p->pool[i]);
    if (rc != 0) {
        accounts__storage_failed(r, h, "a player's ratings", rc);
        return;
    }
    r->res.player = p;
    accounts__set(&r->res, 0);
}

static void ladder(struct accounts_req *r, struct store_accounts *h)
{
    struct accounts_ladder_row *out = r->ext;
    struct store_ladder_row *rows = mem_zalloc(ACCOUNTS_LADDER_PAGE, sizeof *rows);
    int n = 0, pool = r->flag, offset = r->offset * ACCOUNTS_LADDER_PAGE;
    int rc = store_ladder_read(h, pool_names[pool], r->max, offset, ACCOUNTS_LADDER_PAGE, rows, &n);
    for (int i = 0; rc == 0 && i < n; i++) {
        const struct store_rating *s = &rows[i].r;
        out[i].rank = offset + i + 1;
        snprintf(out[i].name, sizeof out[i].name, "%s", rows[i].name);
        out[i].games = s->games;
        if (pool == 0) {
            struct rating_g2 g = {s->rating, s->deviation, s->volatility};
            out[i].rating = s->rating;
            out[i].deviation = s->deviation;
            out[i].provisional = rating_g2_provisional(&g);
        } else {
            struct rating_pl pl = {s->mu, s->sigma};
            out[i].rating = rating_pl_display(&pl);
            out[i].deviation = rating_pl_display_deviation(&pl);
            out[i].provisional = rating_pl_provisional(&pl);
        }
    }
    free(rows);
    if (rc != 0) {
        accounts__storage_failed(r, h, "a ladder", rc);
        return;
    }
    r->res.ladder = out;
    r->res.nlist = n;
    accounts__set(&r->res, 0);
}

void accounts__ratings_job_run(struct accounts_req *r, struct store_accounts *h)
{
    switch (r->kind) {
    case ACCOUNTS__RATE:
        if (r->flag)
            rate_pending(r, h);
        else
            rate(r, h);
        break;
    case ACCOUNTS__PLAYER:
        player(r, h);
        break;
    case ACCOUNTS__LADDER:
        ladder(r, h);
        break;
    default:
        accounts__set(&r->res, ACCOUNTS_E_STORAGE);
        break;
    }
}
