/* store/accounts_stats.h: the statistics of an account's finished games (the
 * "stats" of GET /api/players/NAME, issue 27), aggregated by the database
 * itself on SQLite (json_each) and PostgreSQL (jsonb), over account_games
 * joined with the store's games table. Blocks, like store/accounts.h: call it
 * on libuv's thread pool, one thread at a time per handle.
 *
 * What counts: the account's newest max_games game links (account_games,
 * by time_ms, then by room id), of which only those whose game has a record
 * with status "finished" (an abandoned or a running game is not counted).
 * Each such seat is one game played, with players = the number of seats of
 * its scores array; it is won when no score of that array is higher than the
 * seat's own (a shared first place is a win); the seat's score goes into the
 * average of its player count. Sets: the names in the record's "sets" (a
 * record without the key means ["base"], as PROTOCOL.md "Game records"
 * says), each counted once per game. */
#ifndef CARCD_STORE_ACCOUNTS_STATS_H
#define CARCD_STORE_ACCOUNTS_STATS_H

#include "store/accounts.h"

#define STORE_STATS_PLAYERS_MAX 6 /* seats of a game (CARC_MAX_PLAYERS) */
#define STORE_STATS_SETS_MAX 16   /* sets told apart (more than carcd has) */
#define STORE_STATS_SET_MAX 31    /* bytes of a set's name kept */

struct store_stats_players {
    int players;           /* 1 .. STORE_STATS_PLAYERS_MAX */
    long long played, won; /* played > 0 */
    double average_score;  /* the mean of the seat's final scores, unrounded */
};

struct store_stats_set {
    char set[STORE_STATS_SET_MAX + 1];
    long long played;
};

struct store_account_stats {
    int nby; /* by player count, ascending; counts without games are absent */
    struct store_stats_players by[STORE_STATS_PLAYERS_MAX];
    int nsets; /* most played first, then by name (bytewise) */
    struct store_stats_set sets[STORE_STATS_SETS_MAX];
};

/* The statistics of account (> 0; else STORE_E_ARGS) over its newest
 * max_games (> 0) game links into out (zeroed first: an account without
 * finished games, or that no row names, gets nby = nsets = 0). Both reads run
 * in one read transaction (one snapshot) unless the caller has one open.
 * 0 or STORE_E_DB. */
int store_account_stats_read(struct store_accounts *a, long long account, int max_games,
                             struct store_account_stats *out);

#endif
