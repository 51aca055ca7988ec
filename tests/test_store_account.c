/* test_store_account.c: seats of accounts in storage (issue 27), part of
 * suites store and store_pg (test_store.c registers them through
 * store_account_tests_add): the seats' account column written with the seat
 * and read back by restore, a resume by account after the restart, and the
 * migration from schema 4 (before the column) in place, its rooms kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn/session.h"
#include "game/lobby.h"
#include "game/room.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"

static void sign_in(struct fake *f, long long account, const char *name)
{
    f->s.account = account;
    snprintf(f->s.account_name, sizeof f->s.account_name, "%s", name);
}

/* A started game of ann (account 7, seat 0, created as "Ann") and the guest
 * Bob (seat 1), committed; its id into room. */
static void account_game(char room[PROTO_ROOM_MAX])
{
    ck_assert_int_eq(lobby_test_game(su_lb, 7, NULL, 0), 0);
    struct fake *a = su_fake_new(), *b = su_fake_new();
    sign_in(a, 7, "ann");
    struct room *r = su_create(a, "2");
    su_join(b, a->room, "Bob", "");
    su_say(a, "\"type\":\"start\"");
    su_commit();
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    ck_assert_str_eq(r->seats[0].name, "ann");
    ck_assert_int_eq(r->seats[0].account, 7);
    ck_assert_int_eq(r->seats[1].account, 0);
    memcpy(room, r->id, PROTO_ROOM_MAX);
}

/* Restored: seat 0 is account's (its name ann), seat 1 a guest's. */
static struct room *restored(const char *room, long long account)
{
    struct room *r = lobby_room_find(su_lb, room);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    ck_assert_str_eq(r->seats[0].name, "ann");
    ck_assert_int_eq(r->seats[0].account, account);
    ck_assert_int_eq(r->seats[1].account, 0);
    return r;
}

START_TEST(seat_account_kept)
{
    char room[PROTO_ROOM_MAX];
    world_open();
    account_game(room);
    world_close();
    world_open();
    restored(room, 7);
    /* ann on another device after the restart: her seat, without a token */
    struct fake *f = su_fake_new();
    sign_in(f, 7, "ann");
    su_say(f, "\"type\":\"resume\",\"room\":\"%s\"", room);
    su_commit();
    su_expect(f, "joined");
    ck_assert_int_eq(f->s.seat, 0);
    ck_assert_ptr_eq(lobby_room_find(su_lb, room)->seats[0].s, &f->s);
    /* a guest without a token: bad_token */
    struct fake *g = su_fake_new();
    su_say(g, "\"type\":\"resume\",\"room\":\"%s\"", room);
    ck_assert_str_eq(su_jstr(su_expect(g, "error"), "code"), "bad_token");
    world_close();
}
END_TEST

/* A database made by schema 4 (seats without account) opens: the column is
 * added in place, the rooms are kept, and the column is written from then on. */
START_TEST(schema_migrated_from_v4)
{
    char room[PROTO_ROOM_MAX], err[512];
    world_open();
    account_game(room);
    world_close();
    struct store *s = su_store_open(err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_int_eq(store_test_exec(s, su_pg != NULL
                                            ? "ALTER TABLE seats DROP COLUMN account;"
                                              "ALTER TABLE rooms DROP COLUMN clock_per_move;"
                                              "ALTER TABLE rooms DROP COLUMN clock_zone;"
                                              "ALTER TABLE rooms DROP COLUMN turn_wall;"
                                              "ALTER TABLE seats DROP COLUMN vac_from;"
                                              "ALTER TABLE seats DROP COLUMN vac_until;"
                                              "DROP TABLE analyses;"
                                              "UPDATE schema_version SET version = 4;"
                                            : "ALTER TABLE seats DROP COLUMN account;"
                                              "ALTER TABLE rooms DROP COLUMN clock_per_move;"
                                              "ALTER TABLE rooms DROP COLUMN clock_zone;"
                                              "ALTER TABLE rooms DROP COLUMN turn_wall;"
                                              "ALTER TABLE seats DROP COLUMN vac_from;"
                                              "ALTER TABLE seats DROP COLUMN vac_until;"
                                              "DROP TABLE analyses;"
                                              "UPDATE schema_version SET version = 4;"
                                              "PRAGMA user_version = 4;"),
                     0);
    store_close(s);
    world_open(); /* migrated to STORE_SCHEMA */
    struct room *r = restored(room, 0);
    ck_assert_int_eq(r->nmoves, 0);
    ck_assert_int_eq(store_test_exec(su_st, "UPDATE seats SET account = 7 WHERE idx = 0"), 0);
    world_close();
    if (su_pg == NULL) {
        size_t n;
        unsigned char *b = (unsigned char *)su_slurp(su_dbpath, &n);
        ck_assert_int_eq(b[60] << 24 | b[61] << 16 | b[62] << 8 | b[63], STORE_SCHEMA);
        free(b);
    }
    world_open();
    restored(room, 7);
    world_close();
}
END_TEST

void store_account_tests_add(TCase *tc, int pg)
{
    (void)pg;
    tcase_add_test(tc, seat_account_kept);
    tcase_add_test(tc, schema_migrated_from_v4);
}
