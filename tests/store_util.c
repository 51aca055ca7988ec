/* store_util.c: the scratch directory and the world of the storage tests
 * (see store_util.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_json.h"
#include "store/accounts.h"
#include "store_util.h"
#include "tests.h"
#include "util/status.h"
#include "util/log.h"

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
    const char *other[] = {STORE_STATE, STORE_LOCK};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", su_dir, other[i]);
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

/* ---- file helpers ---- */

/* The bytes of a file (and its size), malloc'd; NULL when missing. */
char *su_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int su_contains(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return 1;
    return 0;
}

/* ---- fake clients ---- */

static char last[65536];

const char *su_pop(struct fake *f)
{
    struct sbuf *b = session_peek(&f->s);
    if (b == NULL)
        return NULL;
    snprintf(last, sizeof last, "%s", b->data);
    session_pop(&f->s);
    return last;
}

const char *su_jstr(const char *text, const char *path)
{
    static char buf[4][256];
    static int k;
    char *out = buf[k++ & 3];
    if (proto_json_path_string(text, strlen(text), path, out, 256) != 0)
        snprintf(out, 256, "<missing %s>", path);
    return out;
}

const char *su_expect(struct fake *f, const char *type)
{
    const char *m = su_pop(f);
    ck_assert_msg(m != NULL, "expected %s, the queue is empty", type);
    ck_assert_msg(strcmp(su_jstr(m, "type"), type) == 0, "expected %s, got %s", type, m);
    return m;
}

void su_drain(struct fake *f)
{
    while (su_pop(f) != NULL)
        ;
}

struct fake *su_fake_new(void)
{
    struct fake *f = su_fake_open();
    su_expect(f, "welcome");
    return f;
}

void su_say(struct fake *f, const char *fmt, ...)
{
    char body[4096], msg[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof msg, "{\"v\":2,%s}", body);
    lobby_session_message(su_lb, &f->s, msg, strlen(msg), su_now);
    su_now += 10;
}

/* The commit of everything so far (the server does it once per loop turn). */
void su_commit(void)
{
    ck_assert_int_eq(store_flush(su_st), 0);
}

void su_take_seat(struct fake *f, const char *j)
{
    snprintf(f->token, sizeof f->token, "%s", su_jstr(j, "token"));
    snprintf(f->room, sizeof f->room, "%s", su_jstr(j, "room"));
    long long seat = 0;
    proto_json_path_int(j, strlen(j), "seat", &seat);
    f->seat = (int)seat;
}

struct room *su_create(struct fake *f, const char *extra)
{
    su_say(f, "\"type\":\"create\",\"id\":1,\"name\":\"Ann\",\"seats\":%s", extra);
    ck_assert_ptr_null(su_pop(f)); /* nothing before the commit */
    su_commit();
    su_take_seat(f, su_expect(f, "joined"));
    su_expect(f, "state");
    return lobby_room_find(su_lb, f->room);
}

void su_join(struct fake *f, const char *room, const char *name, const char *pw)
{
    su_say(f, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"%s\",\"password\":\"%s\"", room, name,
           pw);
    su_commit();
    su_take_seat(f, su_expect(f, "joined"));
    su_expect(f, "state");
}

static const char *const deck[] = {"BA.V", "BA.U", "BA.E", "BA.K", "BA.W",
                                   "BA.J", "BA.D", "BA.L", "BA.B", "BA.H"};
#define NDECK ((int)(sizeof deck / sizeof deck[0]))

/* The first legal placement of the drawn tile, as a play message body. */
void su_play_first(struct room *r, struct fake *f)
{
    struct carc_placement p[CARC_MAX_FRONTIER * 4];
    int n = carc_game_placements(r->game, r->game->tile, p, CARC_MAX_FRONTIER * 4);
    ck_assert_int_gt(n, 0);
    su_say(
        f,
        "\"type\":\"play\",\"id\":7,\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,\"meeple\":null",
        carc_tiles[r->game->tile].id, p[0].x, p[0].y, p[0].rot * 90);
}

struct room *su_game(struct fake **pa, struct fake **pb)
{
    ck_assert_int_eq(lobby_test_game(su_lb, 7, deck, NDECK), 0);
    struct fake *a = su_fake_new(), *b = su_fake_new();
    struct room *r = su_create(a, "2");
    su_join(b, a->room, "Bob", "");
    su_say(a, "\"type\":\"start\"");
    su_commit();
    su_drain(a);
    su_drain(b);
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    *pa = a;
    *pb = b;
    return r;
}

struct fake *su_mover(struct room *r, struct fake *a, struct fake *b)
{
    return r->game->current == a->seat ? a : b;
}

void su_accounts_open(struct store **st, struct store_accounts **ac)
{
    char err[512];
    *st = su_store_open(err, sizeof err);
    ck_assert_msg(*st != NULL, "%s", err);
    *ac = store_accounts_open(*st, err, sizeof err);
    ck_assert_msg(*ac != NULL, "%s", err);
}

void su_accounts_close(struct store **st, struct store_accounts **ac)
{
    store_accounts_close(*ac);
    *ac = NULL;
    store_close(*st);
    *st = NULL;
}

long long su_account_new(struct store_accounts *ac, const char *name)
{
    long long id = 0;
    int rc = store_account_create(ac, name, "$argon2id$v=19$fake", 1000, NULL, &id);
    ck_assert_msg(rc == 0, "%s: %s (%s)", name, srv_status_name(rc), store_accounts_error(ac));
    ck_assert_int_gt(id, 0);
    return id;
}
