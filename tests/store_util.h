/* store_util.h: a scratch data directory and a "world" (a lobby with its
 * store, as carcd has at start) for the storage tests (test_store.c,
 * test_store_read.c). Everything runs without a loop: batches are written with
 * store_flush() where the server would run them on the thread pool. Every
 * helper fails the running Check test instead of returning an error. */
#ifndef CARC_STORE_UTIL_H
#define CARC_STORE_UTIL_H

#include <check.h>
#include <stdint.h>

#include "conn/session.h"
#include "game/lobby.h"
#include "game/room.h"
#include "game/roomdb.h"
#include "store/store.h"

/* The scratch directory (dir_setup makes it, dir_teardown removes it and the
 * database files in it) and the path of the database in it. */
extern char su_dir[64];
extern char su_dbpath[128];
void dir_setup(void);
void dir_teardown(void);

/* The same tests against PostgreSQL: su_pg is $CARC_PG_URL (tests/pg.sh
 * starts a server and sets it); pg_setup empties that database (and makes
 * the scratch directory), pg_teardown forgets it. NULL: SQLite in su_dir. */
extern const char *su_pg;
void pg_setup(void);
void pg_teardown(void);
/* A store of the backend under test (su_pg or su_dir); NULL with err. */
struct store *su_store_open(char *err, size_t errlen);
/* The store of the test's directory (or database) and its account tables'
 * handle, opened into *st and *ac (fails the test when either cannot be);
 * closed again (both NULL after). */
struct store_accounts;
void su_accounts_open(struct store **st, struct store_accounts **ac);
void su_accounts_close(struct store **st, struct store_accounts **ac);
/* A new account of that name (a fake hash, created at 1000 ms): its id. */
long long su_account_new(struct store_accounts *ac, const char *name);

/* A fake client: a session whose sink does nothing. */
struct fake {
    struct session s;
    char token[PROTO_TOKEN_MAX];
    char room[PROTO_ROOM_MAX];
    int seat;
};

/* The world: its lobby (no rate limits), its store and its clock (ms). */
extern struct lobby *su_lb;
extern struct store *su_st;
extern uint64_t su_now;

/* The server starting: its lobby, its store, the rooms restored (stale_s and
 * now_ms as store_restore's; world_open: 0 and 0). */
void world_open_at(int stale_s, uint64_t now_ms);
void world_open(void);
/* The server stopping: the fakes closed, everything flushed, all freed. */
void world_close(void);
/* As if the process died: nothing dirty reaches the disk. */
void world_crash(void);

/* A fake connected to the world's lobby (its welcome still queued); freed by
 * world_close or world_crash. */
struct fake *su_fake_open(void);

/* ---- what the storage tests say and read (test_store.c, test_store_start.c) ---- */

/* The bytes of a file (and its size), malloc'd; NULL when missing. */
char *su_slurp(const char *path, size_t *len);
/* Whether needle is in hay[0..n). */
int su_contains(const char *hay, size_t n, const char *needle);
/* Pop f's oldest queued message (a static copy), or NULL. */
const char *su_pop(struct fake *f);
/* A string field of a message, or "<missing path>" (four rotating buffers). */
const char *su_jstr(const char *text, const char *path);
/* Pop a message that must be of type; fails the test otherwise. */
const char *su_expect(struct fake *f, const char *type);
void su_drain(struct fake *f);
/* A fake connected to the world, its welcome taken. */
struct fake *su_fake_new(void);
/* Send {"v":2,BODY} from f to the lobby; the world's clock moves 10 ms. */
void su_say(struct fake *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The commit of everything so far (the server does it once per loop turn). */
void su_commit(void);
/* f's token, room and seat from a `joined`. */
void su_take_seat(struct fake *f, const char *joined);
/* f creates a room (`"seats":` extra), committed; nothing is sent before. */
struct room *su_create(struct fake *f, const char *extra);
void su_join(struct fake *f, const char *room, const char *name, const char *pw);
/* f plays the first legal placement of the drawn tile (id 7). */
void su_play_first(struct room *r, struct fake *f);
/* A two-seat game started on a fixed short deck: Ann (*pa, the host) and Bob. */
struct room *su_game(struct fake **pa, struct fake **pb);
/* Which of a and b is to move in r. */
struct fake *su_mover(struct room *r, struct fake *a, struct fake *b);

#endif
