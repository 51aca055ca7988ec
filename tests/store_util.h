/* store_util.h: a scratch data directory and a "world" (a lobby with its
 * store, as carcd has at start) for the storage tests (test_store.c,
 * test_store_read.c). Everything runs without a loop: batches are written with
 * store_flush() where the server would run them on the thread pool. Every
 * helper fails the running Check test instead of returning an error. */
#ifndef CARC_STORE_UTIL_H
#define CARC_STORE_UTIL_H

#include <check.h>
#include <stdint.h>

#include "game/lobby.h"
#include "conn/session.h"
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

#endif
