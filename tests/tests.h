/* tests.h: the one registry of Check suites; tests/test_main.c runs them all. */
#ifndef CARC_TESTS_H
#define CARC_TESTS_H

#include <check.h>

Suite *suite_common(void);     /* tests/test_common.c: err table, rng */
Suite *suite_tiles(void);      /* tests/test_tiles.c: catalogue against RULES.md */
Suite *suite_moves(void);      /* tests/test_moves.c: placements, validation, determinism */
Suite *suite_perft(void);      /* tests/test_perft.c: placement counts against tests/gen/perft.py */
Suite *suite_score(void);      /* tests/test_score.c: base scoring rules and worked examples */
Suite *suite_expansions(void); /* tests/test_expansions.c: I&C, sieges and escape */
Suite *suite_tithes(void);     /* tests/test_tithes.c: apothecaries and tithe barns */
Suite *suite_variants(void);   /* tests/test_variants.c: farm scorings, small city (RULES.md 2.8) */
Suite *suite_record(void);     /* tests/test_record.c: record codec (protocol/) */
Suite *suite_replay(void);     /* tests/test_replay.c: carc-replay, carc-sim, real games */
Suite *suite_replay_json(void); /* tests/test_replay_json.c: GET /api/games/{id}/replay documents */
Suite *suite_protocol(void);    /* tests/test_protocol.c: protocol v1 messages, state, patches */
Suite *suite_state(void); /* tests/test_state.c: state documents, deltas, the client, whole games */
Suite *suite_analysis(void); /* tests/test_analysis.c: the post-game analysis (common/analysis.h) */
Suite *suite_bot(void);      /* tests/test_bot.c: the bots' search (common/bot.h) */
Suite *suite_turn(void);     /* tests/test_turn.c: bot seats, clocks, takeover */
Suite *suite_bots(void);     /* tests/test_bots.c: the bots' FIFOs on the thread pool */
Suite *suite_analysis_queue(
    void);                 /* tests/test_analysis_queue.c: the analyses' queue (server/analysis/) */
Suite *suite_room(void);   /* tests/test_room.c: lobby and rooms through a sink, no sockets */
Suite *suite_resume(void); /* tests/test_resume.c: resume, sync, takeover, the history ring */
Suite *suite_session(void);      /* tests/test_session.c: rate, size, queue, idle, address limits */
Suite *suite_api(void);          /* tests/test_api.c: HTTP routes */
Suite *suite_admin(void);        /* tests/test_admin.c: the admin API's routes and token */
Suite *suite_config(void);       /* tests/test_config.c: flags and config file */
Suite *suite_store(void);        /* tests/test_store.c: SQLite storage, recovery, faults */
Suite *suite_store_pg(void);     /* the same on PostgreSQL, with CARC_PG_URL (tests/pg.sh) */
Suite *suite_store_read(void);   /* tests/test_store_read.c: game records, paged and off-loop */
Suite *suite_damage(void);       /* tests/test_damage.c: start-up checks of the SQLite files */
Suite *suite_out_of_time(void);  /* tests/test_out_of_time.c: out of time for good, taken back */
Suite *suite_turn(void);         /* tests/test_turn.c: bot seats, clocks, takeover */
Suite *suite_room(void);         /* tests/test_room.c: lobby and rooms through a sink, no sockets */
Suite *suite_resume(void);       /* tests/test_resume.c: resume, sync, takeover, the history ring */
Suite *suite_session(void);      /* tests/test_session.c: rate, size, queue, idle, address limits */
Suite *suite_api(void);          /* tests/test_api.c: HTTP routes */
Suite *suite_admin(void);        /* tests/test_admin.c: the admin API's routes and token */
Suite *suite_config(void);       /* tests/test_config.c: flags and config file */
Suite *suite_store(void);        /* tests/test_store.c: SQLite storage, recovery, faults */
Suite *suite_store_pg(void);     /* the same on PostgreSQL, with CARC_PG_URL (tests/pg.sh) */
Suite *suite_store_read(void);   /* tests/test_store_read.c: game records, paged and off-loop */
Suite *suite_damage(void);       /* tests/test_damage.c: start-up checks of the SQLite files */
Suite *suite_seat_account(void); /* tests/test_seat_account.c: seats of accounts, resume by one */
Suite *suite_accounts_store(void);    /* tests/test_accounts_store.c: accounts, sessions,
                                         invites, ratings in the database (SQLite) */
Suite *suite_accounts_store_pg(void); /* the same on PostgreSQL, with CARC_PG_URL */
Suite *suite_accounts_stats(void);    /* tests/test_accounts_stats.c: an account's games'
                                         statistics aggregated in the database (SQLite) */
Suite *suite_accounts_stats_pg(void); /* the same on PostgreSQL, with CARC_PG_URL */
Suite *suite_accounts_copy(void);     /* tests/test_accounts_copy.c: the account tables copied
                                         between stores (--import-db, --export-db), SQLite */
Suite *suite_accounts_copy_pg(void);  /* the same into PostgreSQL, with CARC_PG_URL */
Suite *suite_accounts(void);    /* tests/test_accounts.c: the accounts service (players/), SQLite */
Suite *suite_accounts_pg(void); /* its core flow on PostgreSQL, with CARC_PG_URL */
Suite *suite_ratings(void);     /* tests/test_ratings.c: ratings in the accounts service, SQLite */
Suite *suite_ratings_pg(void);  /* the same on PostgreSQL, with CARC_PG_URL */
/* tests/test_store_start.c: its tests, into suite_store (pg 0) and suite_store_pg (pg 1) */
void store_start_tests_add(TCase *tc, int pg);
/* tests/test_store_account.c: seats of accounts, schema 4 -> 5 (the same two suites) */
void store_account_tests_add(TCase *tc, int pg);
/* tests/test_store_fail.c: failing commits, held replies' bounds, health (the same two suites) */
void store_fail_tests_add(TCase *tc, int pg);
Suite *suite_memtrim(void);  /* tests/test_memtrim.c: freed memory back to the system */
Suite *suite_loopstat(void); /* tests/test_loopstat.c: latency histograms, loop busy time */
Suite *suite_stall(void);    /* tests/test_stall.c: loop stalls seen (clocks: test_turn.c) */
Suite *suite_tz(void);       /* tests/test_tz.c: time zones and week ends (util/tz.c) */
Suite *suite_corr(void);     /* tests/test_corr.c: correspondence clocks, week ends (turn.c) */
Suite *suite_bounds(void);   /* tests/test_bounds.c: worst cases of the engine's arrays */
Suite *suite_rxguard(void);  /* tests/test_rxguard.c: unmasked frames, early frames */
Suite *suite_proxy(void);    /* tests/test_proxy.c: trusted proxies, forwarded addresses */
Suite *suite_origin(void);   /* tests/test_origin.c: allowed-origins, the upgrade's Origin */
Suite *suite_log(void);      /* tests/test_log.c: log lines as text and JSON, fields, escaping */
Suite *suite_json_str(void); /* tests/test_json_str.c: the one JSON string writer (protocol/) */
Suite *suite_account_json(void); /* tests/test_account_json.c: account bodies */
Suite *suite_claim(void);        /* tests/test_claim.c: a guest's seats claimed */
Suite *suite_claim_pg(void);     /* the same, on PostgreSQL (CARC_PG_URL) */
Suite *suite_metrics(void);      /* tests/test_metrics.c: Prometheus exposition, carcd's counters */
Suite *suite_account(void);  /* tests/test_account.c: names, password hashes, tokens (players/) */
Suite *suite_attempts(void); /* tests/test_attempts.c: failed sign-ins per key (players/) */
Suite *suite_accounts_push(void);     /* tests/test_accounts_push.c: push subscriptions, SQLite */
Suite *suite_accounts_push_pg(void);  /* the same on PostgreSQL, with CARC_PG_URL */
Suite *suite_accounts_mail(void);     /* tests/test_accounts_mail.c: e-mail settings, SQLite */
Suite *suite_accounts_mail_pg(void);  /* the same on PostgreSQL, with CARC_PG_URL */
Suite *suite_notices(void);           /* tests/test_notices.c: the lobby's notice hook (game/) */
Suite *suite_accounts_push(void);     /* tests/test_accounts_push.c: push subscriptions, SQLite */
Suite *suite_accounts_push_pg(void);  /* the same on PostgreSQL, with CARC_PG_URL */
Suite *suite_accounts_vacation(void); /* tests/test_accounts_vacation.c: vacation bank, SQLite */
Suite *suite_accounts_vacation_pg(void); /* the same on PostgreSQL, with CARC_PG_URL */
Suite *suite_notices(void);              /* tests/test_notices.c: the lobby's notice hook (game/) */
Suite *suite_outbound(void); /* tests/test_outbound.c: outbound HTTPS off the loop (notify/) */
Suite *suite_mail(void);     /* tests/test_mail.c: e-mail texts, mailer, SMTP sink (notify/) */
Suite *suite_push(void);     /* tests/test_push.c: Web Push to a local push service (notify/) */
Suite *suite_webpush(void);  /* tests/test_webpush.c: Web Push encryption and VAPID (notify/) */
Suite *suite_rating(void);   /* tests/test_rating.c: Glicko-2 and Plackett-Luce (players/) */
Suite *suite_fair(void);     /* tests/test_fair.c: the fair draw: commitment, seed, verification */
Suite *suite_cluster(void); /* tests/test_cluster.c: the Redis client, leases (real redis-server) */
Suite *suite_lease(void);   /* tests/test_lease.c: room leases between two nodes (real Redis) */
Suite *suite_fence_pg(void);  /* tests/test_fence.c: stale writers refused (PostgreSQL) */
Suite *suite_directory(void); /* tests/test_directory.c: the room directory, lease_holder (Redis) */
Suite *suite_roomnode_pg(void); /* tests/test_roomnode.c: two cluster nodes (Redis, PostgreSQL) */

#include <stddef.h>
#include <stdio.h>

/* The rest of stream f, or the whole file at path, in a malloc'd NUL-terminated
 * buffer (length in *len); NULL when it cannot be opened or memory runs out. */
char *test_stream_read(FILE *f, size_t *len);
char *test_file_read(const char *path, size_t *len);
/* Does s end with suffix? */
int test_has_suffix(const char *s, const char *suffix);

/* The project's reference data, relative to the repository root (the runner's working
 * directory): the rules digest the tile table is generated from, and the folder of real
 * games (BGA records wrapped with their expected scores). */
#define TEST_RULES_PATH "docs/rules.md"
#define TEST_GAMES_DIR "tests/data/games"

/* carcd's log lines (server/util/log.h) provoked on purpose by a test: capture them in
 * memory instead of stderr, so that a passing run prints nothing alarming, and
 * assert on them. test_log_capture() starts (forgetting earlier lines);
 * test_log_count() is the number of captured lines containing needle;
 * test_log_text() is every captured line ("LEVEL: text\n" each, truncated at
 * 4 KiB), for failure messages; test_log_release() sends lines to stderr again
 * (harmless when not capturing: fixtures' teardowns call it). */
void test_log_capture(void);
int test_log_count(const char *needle);
const char *test_log_text(void);
void test_log_release(void);

#endif
