/* store/accounts_stats.c: accounts_stats.h, two aggregating statements per
 * backend. The JSON of the games table (scores, record) is read by the
 * database's own JSON functions, whose names differ: SQLite's json_each and
 * json_extract, PostgreSQL's jsonb operators (accounts_int.h's `postgres`
 * flag picks the text). The newest max_games links are chosen first (the
 * account_games_account index), so one answer reads at most that many
 * records whatever the account's history. Blocking. */
#include <stdio.h>
#include <string.h>

#include "accounts_int.h"
#include "store/accounts_stats.h"
#include "util/status.h"

/* The account's newest $2 links: (game, seat). */
#define NEWEST                                                                                     \
    "(SELECT game, seat FROM account_games WHERE account = $1"                                     \
    " ORDER BY time_ms DESC, game DESC LIMIT $2)"

/* Per player count: n, played, won, the mean score. A seat outside its
 * scores array (never written so) has no score and is left out. */
static const char by_players_sqlite[] =
    "WITH mine AS (SELECT g.scores AS scores, ag.seat AS seat FROM " NEWEST " ag"
    " JOIN games g ON g.room = ag.game WHERE g.status = 'finished'),"
    " s AS (SELECT CASE WHEN json_valid(scores) THEN json_array_length(scores) END AS n,"
    " CASE WHEN json_valid(scores) THEN json_extract(scores, '$[' || seat || ']') END AS score,"
    " CASE WHEN json_valid(scores) THEN (SELECT max(value) FROM json_each(scores)) END AS top"
    " FROM mine)"
    " SELECT n, count(*), sum(score >= top), avg(score) FROM s"
    " WHERE score IS NOT NULL GROUP BY n ORDER BY n";

static const char by_players_pg[] =
    "WITH mine AS (SELECT g.scores::jsonb AS scores, ag.seat AS seat FROM " NEWEST " ag"
    " JOIN games g ON g.room = ag.game WHERE g.status = 'finished'),"
    " s AS (SELECT jsonb_array_length(scores) AS n, (scores ->> seat)::float8 AS score,"
    " (SELECT max(v::float8) FROM jsonb_array_elements_text(scores) AS e(v)) AS top FROM mine)"
    " SELECT n, count(*), sum(CASE WHEN score >= top THEN 1 ELSE 0 END), avg(score) FROM s"
    " WHERE score IS NOT NULL GROUP BY n ORDER BY n";

/* Per set: its name and the games with it, most first, then by name
 * (bytewise on both), at most $3 of them. The record is only parsed for a
 * finished game (CASE), so that a damaged abandoned one cannot fail this. */
static const char sets_sqlite[] =
    "SELECT s.value, count(*) FROM " NEWEST " ag JOIN games g ON g.room = ag.game,"
    " json_each(CASE WHEN g.status = 'finished' AND json_valid(g.record)"
    " THEN coalesce(json_extract(g.record, '$.sets'), '[\"base\"]') ELSE '[]' END) s"
    " WHERE g.status = 'finished' GROUP BY s.value"
    " ORDER BY count(*) DESC, s.value COLLATE BINARY LIMIT $3";

static const char sets_pg[] =
    "SELECT s.v, count(*) FROM " NEWEST " ag JOIN games g ON g.room = ag.game"
    " CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN g.status = 'finished'"
    " THEN coalesce(g.record::jsonb -> 'sets', '[\"base\"]'::jsonb) ELSE '[]'::jsonb END)"
    " AS s(v) WHERE g.status = 'finished' GROUP BY s.v"
    " ORDER BY count(*) DESC, s.v COLLATE \"C\" LIMIT $3";

struct stats_read {
    struct store_accounts *a;
    struct store_account_stats *out;
};

static int by_row(void *arg, const struct acc_row *r)
{
    struct stats_read *s = arg;
    const struct acc_backend *be = s->a->be;
    long long n = be->col_int(r, 0);
    if (n < 1 || n > STORE_STATS_PLAYERS_MAX || s->out->nby >= STORE_STATS_PLAYERS_MAX)
        return 0; /* no game of carcd has such a count */
    struct store_stats_players *p = &s->out->by[s->out->nby++];
    p->players = (int)n;
    p->played = be->col_int(r, 1);
    p->won = be->col_int(r, 2);
    p->average_score = be->col_real(r, 3);
    return 0;
}

static int set_row(void *arg, const struct acc_row *r)
{
    struct stats_read *s = arg;
    if (s->out->nsets >= STORE_STATS_SETS_MAX)
        return 0;
    struct store_stats_set *e = &s->out->sets[s->out->nsets++];
    snprintf(e->set, sizeof e->set, "%s", s->a->be->col_text(r, 0));
    e->played = s->a->be->col_int(r, 1);
    return 0;
}

int store_account_stats_read(struct store_accounts *a, long long account, int max_games,
                             struct store_account_stats *out)
{
    memset(out, 0, sizeof *out);
    if (account <= 0 || max_games <= 0)
        return STORE_E_ARGS;
    int own = !a->in_tx;
    int rc = own ? a->be->run(a, a->be->read_sql, 0, NULL, NULL, NULL, NULL) : 0;
    if (rc != 0)
        return rc;
    a->in_tx = 1;
    struct acc_val v[] = {AV_I(account), AV_I(max_games), AV_I(STORE_STATS_SETS_MAX)};
    struct stats_read s = {.a = a, .out = out};
    int pg = a->be->postgres;
    rc = a->be->run(a, pg ? by_players_pg : by_players_sqlite, 2, v, by_row, &s, NULL);
    if (rc == 0)
        rc = a->be->run(a, pg ? sets_pg : sets_sqlite, 3, v, set_row, &s, NULL);
    if (own) {
        char keep[sizeof a->err];
        memcpy(keep, a->err, sizeof keep);
        int end = a->be->run(a, rc == 0 ? "COMMIT" : "ROLLBACK", 0, NULL, NULL, NULL, NULL);
        if (rc != 0)
            memcpy(a->err, keep, sizeof keep); /* the first failure's message */
        else if (end != 0)
            rc = STORE_E_DB;
        a->in_tx = 0;
    }
    if (rc != 0)
        memset(out, 0, sizeof *out);
    return rc;
}
