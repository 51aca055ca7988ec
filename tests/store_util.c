/* store_util.c: the scratch directory and the world of the storage tests
 * (see store_util.h). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "store_util.h"
#include "tests.h"

char su_dir[64];
char su_dbpath[128];
const char *su_pg;

void dir_setup(void)
{
    log_level_set(LOG_ERROR);
    snprintf(su_dir, sizeof su_dir, "/tmp/carc-store-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(su_dir));
    snprintf(su_dbpath, sizeof su_dbpath, "%s/%s", su_dir, STORE_FILE);
}

void pg_setup(void)
{
    dir_setup();
    su_pg = getenv("CARC_PG_URL");
    ck_assert_msg(su_pg != NULL, "CARC_PG_URL is not set (run under tests/pg.sh)");
    char err[512];
    struct store *s = store_open_postgres(su_pg, 5, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_int_eq(store_test_exec(s, "DROP SCHEMA public CASCADE; CREATE SCHEMA public;"), 0);
    store_close(s);
}

void pg_teardown(void)
{
    su_pg = NULL;
    dir_teardown();
}

struct store *su_store_open(char *err, size_t errlen)
{
    if (su_pg != NULL)
        return store_open_postgres(su_pg, 5, err, errlen);
    return store_open(su_dir, 300, err, errlen);
}

void dir_teardown(void)
{
    test_log_release(); /* a test that failed while capturing */
    char p[160];
    const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", su_dbpath, suffix[i]);
        unlink(p);
    }
    chmod(su_dir, 0700);
    rmdir(su_dir);
}

static void fake_wake(struct session *s)
{
    (void)s;
}

static void fake_close(struct session *s)
{
    (void)s;
}

static const struct session_sink sink = {fake_wake, fake_close};
struct lobby *su_lb;
struct store *su_st;
uint64_t su_now = 1000000;
static struct fake *fakes[16];
static int nfakes;

/* Every fake's connection goes away. */
static void fakes_free(void)
{
    for (int i = 0; i < nfakes; i++) {
        lobby_session_close(su_lb, &fakes[i]->s);
        session_fini(&fakes[i]->s);
        free(fakes[i]);
    }
    nfakes = 0;
}

void world_open_at(int stale_s, uint64_t now_ms)
{
    struct lobby_limits l;
    lobby_limits_defaults(&l);
    l.rate = l.burst = l.flood_rate = l.flood_burst = 100000;
    su_lb = lobby_new(&l);
    char err[512];
    su_st = su_store_open(err, sizeof err);
    ck_assert_msg(su_st != NULL, "%s", err);
    lobby_store_set(su_lb, su_st);
    ck_assert_int_ge(roomdb_restore(su_lb, stale_s, now_ms, err, sizeof err), 0);
}

void world_open(void)
{
    world_open_at(0, 0);
}

void world_close(void)
{
    fakes_free();
    ck_assert_int_eq(store_flush(su_st), 0);
    lobby_free(su_lb);
    store_close(su_st);
    su_lb = NULL;
    su_st = NULL;
}

void world_crash(void)
{
    /* The failed commits are how the crash is simulated, not news: not logged. */
    int level = log_level_get();
    log_level_set(-1);
    store_test_fail(su_st, 1000);
    fakes_free();
    store_flush(su_st);
    lobby_free(su_lb);
    store_close(su_st);
    log_level_set(level);
    su_lb = NULL;
    su_st = NULL;
}

struct fake *su_fake_open(void)
{
    struct fake *f = calloc(1, sizeof *f);
    ck_assert_ptr_nonnull(f);
    f->seat = -1;
    session_init(&f->s, &sink, f, &su_lb->lim, su_now);
    fakes[nfakes++] = f;
    lobby_session_open(su_lb, &f->s, "10.0.0.1", su_now);
    return f;
}
