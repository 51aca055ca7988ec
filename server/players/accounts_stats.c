/* accounts_stats.c: a player's statistics (the "stats" of GET
 * /api/players/NAME, accounts.h accounts_stats), both sides: on the loop, a
 * request about a name; on the pool, the account found (a deleted one is
 * nobody) and its finished games aggregated by the database
 * (store/accounts_stats.h), bounded to its newest ACCOUNTS_STATS_GAMES links.
 * A bot's rated identity has no game links (accounts_game_link is called for
 * people's seats only), so its statistics are zeros. The answer travels in
 * r->ext (freed with the request). */
#include <stdio.h>
#include <string.h>

#include "players/accounts_int.h"
#include "store/accounts_stats.h"
#include "util/mem.h"
#include "util/status.h"

_Static_assert(ACCOUNTS_STATS_PLAYERS == STORE_STATS_PLAYERS_MAX, "player counts");
_Static_assert(ACCOUNTS_STATS_SETS == STORE_STATS_SETS_MAX, "sets");

struct accounts_req *accounts_stats(struct accounts *a, const char *name, accounts_cb cb, void *arg)
{
    struct accounts_req *r = accounts__req_new(a, ACCOUNTS__STATS, cb, arg);
    if (r == NULL)
        return NULL;
    r->ext = mem_zalloc(1, sizeof(struct accounts_stats));
    size_t n = name != NULL ? strlen(name) : 0;
    if (n == 0 || n > ACCOUNT_NAME_MAX)
        return accounts__answer_soon(r, ACCOUNTS_E_UNKNOWN, NULL);
    memcpy(r->name, name, n + 1);
    return accounts__queue(r);
}

/* The store's rows into the service's answer, with the totals. */
static void stats_copy(struct accounts_stats *out, const struct store_account_stats *s)
{
    out->nby = s->nby;
    for (int i = 0; i < s->nby; i++) {
        out->by[i].players = s->by[i].players;
        out->by[i].played = s->by[i].played;
        out->by[i].won = s->by[i].won;
        out->by[i].average_score = s->by[i].average_score;
        out->played += s->by[i].played;
        out->won += s->by[i].won;
    }
    out->nsets = s->nsets;
    for (int i = 0; i < s->nsets; i++) {
        _Static_assert(sizeof out->sets[i].set == sizeof s->sets[i].set, "a set's name");
        memcpy(out->sets[i].set, s->sets[i].set, sizeof out->sets[i].set);
        out->sets[i].played = s->sets[i].played;
    }
}

void accounts__stats_job_run(struct accounts_req *r, struct store_accounts *h)
{
    struct store_account acc;
    int rc = store_account_find(h, r->name, &acc);
    if (rc == STORE_E_NOT_FOUND || (rc == 0 && acc.deleted)) {
        accounts__set(&r->res, ACCOUNTS_E_UNKNOWN);
        return;
    }
    struct store_account_stats s;
    if (rc == 0)
        rc = store_account_stats_read(h, acc.id, ACCOUNTS_STATS_GAMES, &s);
    if (rc != 0) {
        accounts__storage_failed(r, h, "a player's statistics", rc);
        return;
    }
    stats_copy(r->ext, &s);
    r->res.stats = r->ext;
    accounts__set(&r->res, 0);
}
