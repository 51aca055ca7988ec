/* test_damage.c: the start-up checks of the SQLite files (server/store/wal.c,
 * server/store/damage.c; store.h "start-up checks"). The write-ahead logs are
 * real SQLite's, written through a store (carcd's own SQLite) and copied while
 * it is open, as a kill -9 leaves them: every commit in the log, nothing
 * checkpointed. Then one fault at a time: a flipped byte in a frame or in the
 * header, a log cut inside its last frame, a log of the round before behind
 * the current one (normal: never flagged), a commit frame torn over an older
 * round (normal) or not (damage), a log deleted, an empty database;
 * and a clean stop and start, a crash image and a new directory that must
 * start without a word. Whether SQLite really loses what the check says is
 * asked of SQLite itself: the damaged files are opened anyway
 * (STORE_ACCEPT_DAMAGE) and the rows counted. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "store_util.h"
#include "tests.h"

#define ROWS 24 /* transactions written by rows_write */

static char other[64]; /* a second data directory: a crash image of su_dir */

static void setup(void)
{
    dir_setup();
    snprintf(other, sizeof other, "/tmp/carc-damage-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(other));
    test_log_capture(); /* the findings are logged at error on purpose */
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void rm_tree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void teardown(void)
{
    rm_tree(other);
    rm_tree(su_dir);
    dir_teardown();
}

static void path_in(char *out, size_t size, const char *dir, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

/* src's bytes into a new dst (src missing: dst removed). */
static void file_copy(const char *src, const char *dst)
{
    size_t n;
    char *b = su_slurp(src, &n);
    unlink(dst);
    if (b == NULL)
        return;
    FILE *f = fopen(dst, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, n, f), n);
    fclose(f);
    free(b);
}

/* A kill -9 of a carcd on su_dir, seen in dir: the database, its log and
 * carcd.state as they are while the store is open (no -shm: SQLite rebuilds
 * the index from the log, as after a reboot). */
static void crash_image(const char *dir)
{
    const char *names[] = {STORE_FILE, STORE_FILE "-wal", STORE_STATE};
    for (int i = 0; i < 3; i++) {
        char a[160], b[160];
        path_in(a, sizeof a, su_dir, names[i]);
        path_in(b, sizeof b, dir, names[i]);
        file_copy(a, b);
    }
}

/* n transactions into table t, each a row with a blob over a page (a leaf and an overflow page), so
 * that each commit is a few frames of the log. */
static void rows_write(struct store *s, int n)
{
    ck_assert_int_eq(store_test_exec(s, "CREATE TABLE IF NOT EXISTS t(k INTEGER, b BLOB)"), 0);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(store_test_exec(s, "INSERT INTO t VALUES(1, randomblob(5000))"), 0);
}

/* Does the SQL condition hold in s? (An overflow in abs() makes the query
 * fail when it does not: store_test_exec says no more than 0 or -1.) */
static int sql_true(struct store *s, const char *cond)
{
    char q[512];
    snprintf(q, sizeof q, "SELECT CASE WHEN (%s) THEN 1 ELSE abs(-9223372036854775807 - 1) END",
             cond);
    return store_test_exec(s, q) == 0;
}

static struct store *open_dir(const char *dir, int flags, char *err, size_t errlen)
{
    err[0] = '\0';
    return store_open_flags(dir, 300, flags, err, errlen);
}

static void wal_scan_ok(const char *path, struct store_wal *w)
{
    char err[512];
    ck_assert_msg(store_wal_scan(path, w, err, sizeof err) == 0, "%s", err);
}

/* One byte of the file at path xor'd with 0x5a. */
static void byte_flip(const char *path, long long off)
{
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    unsigned char c;
    ck_assert_int_eq(pread(fd, &c, 1, off), 1);
    c ^= 0x5a;
    ck_assert_int_eq(pwrite(fd, &c, 1, off), 1);
    close(fd);
}

static long long frame_off(const struct store_wal *w, long i)
{
    return 32 + (long long)i * (24 + w->page_size);
}

/* The number of dir/damaged-* folders; the newest's path into kept. */
static int kept_count(const char *dir, char *kept, size_t size)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "ls -d %s/damaged-* 2>/dev/null", dir);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    int n = 0;
    char line[256];
    while (fgets(line, sizeof line, p) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        snprintf(kept, size, "%s", line);
        n++;
    }
    pclose(p);
    return n;
}

/* ---- the log itself ---- */

/* A whole log as SQLite wrote it: every frame checks, every commit counted. */
START_TEST(wal_of_real_sqlite_read_whole)
{
    char err[512], wal[160], copy[160];
    struct store *s = open_dir(su_dir, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    rows_write(s, ROWS);
    path_in(wal, sizeof wal, su_dir, STORE_FILE "-wal");
    path_in(copy, sizeof copy, other, "copy-wal");
    file_copy(wal, copy);
    store_close(s);
    struct store_wal w;
    wal_scan_ok(copy, &w);
    ck_assert_int_eq(w.exists, 1);
    ck_assert_int_eq(w.page_size, 4096);
    ck_assert_int_eq(w.size, frame_off(&w, w.frames));
    ck_assert_int_ge(w.frames, 2 * ROWS);
    ck_assert_int_eq(w.valid, w.frames);   /* the last frame is a commit */
    ck_assert_int_ge(w.commits, ROWS + 1); /* the schema's, t's, then one per row */
    ck_assert_int_eq(w.first_bad, -1);
    ck_assert_int_eq(w.lost_frames, 0);
    ck_assert(!store_wal_damaged(&w));
    /* A missing log is no log, not an error. */
    path_in(copy, sizeof copy, other, "none-wal");
    wal_scan_ok(copy, &w);
    ck_assert_int_eq(w.exists, 0);
    ck_assert(!store_wal_damaged(&w));
}
END_TEST

/* A byte flipped in a frame in the middle: the frames of the log's round
 * after it, commits among them, are what SQLite drops, and it does drop
 * them. */
START_TEST(wal_flipped_byte_found_and_really_lost)
{
    char err[512], wal[160];
    struct store *s = open_dir(su_dir, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    rows_write(s, ROWS);
    crash_image(other);
    store_close(s);
    path_in(wal, sizeof wal, other, STORE_FILE "-wal");
    struct store_wal w;
    wal_scan_ok(wal, &w);
    long mid = w.frames / 2;
    byte_flip(wal, frame_off(&w, mid) + 24 + 1000); /* inside the page */
    struct store_wal d;
    wal_scan_ok(wal, &d);
    ck_assert(store_wal_damaged(&d));
    ck_assert_int_eq(d.first_bad, mid);
    ck_assert_str_eq(d.why, "its checksum does not match");
    ck_assert_int_le(d.valid, mid);
    ck_assert_int_eq(d.commits + d.lost_commits, w.commits);
    ck_assert_int_ge(d.lost_commits, ROWS / 3);
    ck_assert_int_eq(d.lost_frames, w.frames - mid);

    /* carcd refuses the directory, says what and where, and keeps the files. */
    struct store *r = open_dir(other, 0, err, sizeof err);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(err, "does not start") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "--accept-damaged-data") != NULL, "%s", err);
    char msg[200];
    snprintf(msg, sizeof msg, "carcd.db-wal is damaged at frame %ld of %ld", mid + 1, w.frames);
    ck_assert_msg(test_log_count(msg) == 1, "%s", test_log_text());
    ck_assert_int_eq(test_log_count("error: storage: the files as they were are kept in"), 1);
    char kept[256], p[400];
    ck_assert_int_eq(kept_count(other, kept, sizeof kept), 1);
    ck_assert_msg(strstr(err, kept) != NULL, "%s", err);
    path_in(p, sizeof p, kept, STORE_FILE "-wal");
    size_t n, m;
    char *a = su_slurp(p, &n), *b = su_slurp(wal, &m);
    ck_assert_ptr_nonnull(a);
    ck_assert(n == m && memcmp(a, b, n) == 0); /* the damaged log, byte for byte */
    free(a);
    free(b);
    path_in(p, sizeof p, kept, "found.txt");
    a = su_slurp(p, &n);
    ck_assert_ptr_nonnull(a);
    ck_assert_msg(strstr(a, msg) != NULL, "%s", a);
    free(a);
    /* Refused again: the same copy serves, no second one. */
    ck_assert_ptr_null(open_dir(other, 0, err, sizeof err));
    ck_assert_int_eq(kept_count(other, kept, sizeof kept), 1);

    /* Told to go on: SQLite keeps the frames before the bad one, and only those. */
    r = open_dir(other, STORE_ACCEPT_DAMAGE, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_int_eq(test_log_count("starting on the damaged files anyway"), 1);
    ck_assert_int_eq(kept_count(other, kept, sizeof kept), 1);
    ck_assert_msg(sql_true(r, "(SELECT count(*) FROM t) < "
                              "24"),
                  "nothing was lost");
    ck_assert_msg(sql_true(r, "(SELECT count(*) FROM t) >= 1"), "%s", test_log_text());
    store_close(r);
    /* And the next start is quiet: what is there now is what SQLite kept. */
    int before = test_log_count("error:");
    r = open_dir(other, 0, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_int_eq(test_log_count("error:"), before);
    store_close(r);
}
END_TEST

/* After a checkpoint the log starts over from the top with new salts; the
 * frames of the round before stay behind the new ones. That is normal, and
 * a byte flipped among them harms nobody; one flipped in the new round does. */
START_TEST(wal_round_before_not_flagged)
{
    char err[512], wal[160], copy[160];
    struct store *s = open_dir(su_dir, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    rows_write(s, ROWS);
    ck_assert_int_eq(store_test_exec(s, "PRAGMA wal_checkpoint(RESTART)"), 0);
    rows_write(s, 3);
    path_in(wal, sizeof wal, su_dir, STORE_FILE "-wal");
    path_in(copy, sizeof copy, other, "copy-wal");
    file_copy(wal, copy);
    store_close(s);
    struct store_wal w;
    wal_scan_ok(copy, &w);
    ck_assert_int_ge(w.frames, 2 * ROWS); /* the round before is still in the file */
    ck_assert_int_le(w.valid, 12);        /* the new round: 3 rows */
    ck_assert_int_eq(w.commits, 3);
    ck_assert_str_eq(w.why, "its salts are not the header's");
    ck_assert_int_eq(w.lost_commits, 0);
    ck_assert_int_eq(w.first_bad, -1);
    ck_assert(!store_wal_damaged(&w));
    byte_flip(copy, frame_off(&w, w.frames - 2) + 24 + 10);
    wal_scan_ok(copy, &w);
    ck_assert(!store_wal_damaged(&w));
    /* The new round's last commit frame fails, nothing of the round after it: the
     * crash cut that commit between its header and its page (an old page under a new
     * header); it was never acknowledged. */
    long last = w.valid - 1;
    byte_flip(copy, frame_off(&w, last) + 24 + 10);
    wal_scan_ok(copy, &w);
    ck_assert(w.torn);
    ck_assert_int_eq(w.first_bad, last);
    ck_assert_int_eq(w.lost_commits, 1);
    ck_assert(!store_wal_damaged(&w));
    byte_flip(copy, frame_off(&w, 0) + 24 + 10);
    wal_scan_ok(copy, &w);
    ck_assert(store_wal_damaged(&w));
    ck_assert(!w.torn);
    ck_assert_int_eq(w.first_bad, 0);
    ck_assert_int_eq(w.lost_commits, 3);
}
END_TEST

/* A log cut inside its last frame (a crash in the middle of an append: that
 * commit was never acknowledged) is not damage; a header that does not
 * check in front of frames is (SQLite ignores the whole log). */
START_TEST(wal_cut_append_and_bad_header)
{
    char err[512], wal[160], copy[160];
    struct store *s = open_dir(su_dir, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    rows_write(s, ROWS);
    path_in(wal, sizeof wal, su_dir, STORE_FILE "-wal");
    path_in(copy, sizeof copy, other, "copy-wal");
    file_copy(wal, copy);
    store_close(s);
    struct store_wal w;
    wal_scan_ok(copy, &w);
    long frames = w.frames, commits = w.commits;
    /* In the log's first round nothing old lies under a frame: a whole last commit
     * frame that fails was written whole, and then damaged. */
    char last[160];
    path_in(last, sizeof last, other, "last-wal");
    file_copy(copy, last);
    byte_flip(last, frame_off(&w, frames - 1) + 24 + 10);
    struct store_wal l;
    wal_scan_ok(last, &l);
    ck_assert(!l.torn);
    ck_assert(store_wal_damaged(&l));
    ck_assert_int_eq(l.first_bad, frames - 1);
    ck_assert_int_eq(l.lost_commits, 1);
    ck_assert_int_eq(truncate(copy, frame_off(&w, frames - 1) + 100), 0);
    wal_scan_ok(copy, &w);
    ck_assert_int_eq(w.frames, frames - 1);
    ck_assert_int_le(w.commits, commits - 1);
    ck_assert(!store_wal_damaged(&w));
    byte_flip(copy, 17); /* salt-1 of the header */
    wal_scan_ok(copy, &w);
    ck_assert(w.header_bad);
    ck_assert(store_wal_damaged(&w));
    ck_assert_str_eq(w.why, "its header's checksum does not match");
    ck_assert_int_ge(w.lost_commits, ROWS);
    ck_assert_int_eq(w.valid, 0);
}
END_TEST

/* ---- the directory ---- */

/* A new directory, a clean stop and start, a crash with its log whole: no
 * word, every row there. carcd.state says in use, then clean. */
START_TEST(clean_stops_and_crashes_start_quietly)
{
    char err[512], state[160];
    struct store *s = open_dir(su_dir, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    path_in(state, sizeof state, su_dir, STORE_STATE);
    size_t n;
    char *text = su_slurp(state, &n);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "clean 0\n") != NULL, "%s", text);
    free(text);
    rows_write(s, ROWS);
    crash_image(other);
    store_close(s);
    text = su_slurp(state, &n);
    ck_assert_msg(strstr(text, "clean 1\n") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "moves 0\n") != NULL, "%s", text);
    free(text);
    for (int round = 0; round < 2; round++) {
        s = open_dir(su_dir, 0, err, sizeof err);
        ck_assert_msg(s != NULL, "%s", err);
        ck_assert(sql_true(s, "(SELECT count(*) FROM t) = 24"));
        store_close(s);
    }
    s = open_dir(other, 0, err, sizeof err); /* the crash */
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert(sql_true(s, "(SELECT count(*) FROM t) = 24"));
    store_close(s);
    ck_assert_msg(test_log_count("error:") == 0, "%s", test_log_text());
    char kept[256];
    ck_assert_int_eq(kept_count(su_dir, kept, sizeof kept) + kept_count(other, kept, sizeof kept),
                     0);
    /* A directory that held nothing at its clean stop loses nothing with its database. */
    rm_tree(other);
    ck_assert_int_eq(mkdir(other, 0700), 0);
    s = open_dir(other, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    store_close(s);
    char db[160];
    path_in(db, sizeof db, other, STORE_FILE);
    unlink(db);
    s = open_dir(other, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    store_close(s);
    ck_assert_msg(test_log_count("error:") == 0, "%s", test_log_text());
}
END_TEST

/* The log deleted after a crash: refused, kept, and with accept the rows
 * that were only in the log are gone (SQLite says nothing of it). */
START_TEST(missing_wal_after_crash_refused)
{
    char err[512], p[400];
    struct store *s = open_dir(su_dir, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    rows_write(s, ROWS);
    crash_image(other);
    store_close(s);
    path_in(p, sizeof p, other, STORE_FILE "-wal");
    ck_assert_int_eq(unlink(p), 0);
    ck_assert_ptr_null(open_dir(other, 0, err, sizeof err));
    ck_assert_msg(test_log_count("carcd.db-wal is missing, but carcd did not stop cleanly") == 1,
                  "%s", test_log_text());
    char kept[256];
    ck_assert_int_eq(kept_count(other, kept, sizeof kept), 1);
    path_in(p, sizeof p, kept, STORE_STATE);
    ck_assert_int_eq(access(p, F_OK), 0);
    path_in(p, sizeof p, kept, STORE_FILE);
    ck_assert_int_eq(access(p, F_OK), 0);
    s = open_dir(other, STORE_ACCEPT_DAMAGE, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert(sql_true(s, "(SELECT count(*) FROM sqlite_master WHERE name = 't') = 0"));
    store_close(s);
    /* The same after a clean stop is no news: the log was checkpointed and deleted. */
    s = open_dir(su_dir, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    store_close(s);
    path_in(p, sizeof p, su_dir, STORE_FILE "-wal");
    ck_assert_int_ne(access(p, F_OK), 0);
    ck_assert_int_eq(test_log_count("is missing"), 2); /* the refusal, the start with accept */
}
END_TEST

/* carcd.db emptied (0 bytes) or deleted where rows were: after a crash, and
 * after a clean stop; SQLite would start an empty database without a word. */
START_TEST(empty_database_refused)
{
    char err[512], db[160], wal[160], kept[256];
    struct store *s = open_dir(su_dir, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    rows_write(s, ROWS);
    ck_assert_int_eq(store_test_exec(s, "INSERT INTO moves VALUES('R1', 0, '{}')"), 0);
    crash_image(other);
    store_close(s);
    path_in(db, sizeof db, other, STORE_FILE);
    path_in(wal, sizeof wal, other, STORE_FILE "-wal");
    /* After the crash, the database emptied with its log beside it: both said. */
    ck_assert_int_eq(truncate(db, 0), 0);
    ck_assert_ptr_null(open_dir(other, 0, err, sizeof err));
    ck_assert_msg(test_log_count("carcd.db is empty (0 bytes), but carcd did not stop cleanly") ==
                      1,
                  "%s", test_log_text());
    ck_assert_int_eq(test_log_count("SQLite would delete that log"), 1);
    /* ... and without its log. */
    unlink(wal);
    ck_assert_ptr_null(open_dir(other, 0, err, sizeof err));
    ck_assert_int_eq(test_log_count("carcd.db is empty (0 bytes), but carcd did not stop"), 2);
    ck_assert_int_eq(kept_count(other, kept, sizeof kept), 2);
    s = open_dir(other, STORE_ACCEPT_DAMAGE, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert(sql_true(s, "(SELECT count(*) FROM sqlite_master WHERE name = 't') = 0"));
    store_close(s);
    /* After a clean stop that counted the rows: the database deleted. */
    path_in(db, sizeof db, su_dir, STORE_FILE);
    ck_assert_int_eq(unlink(db), 0);
    ck_assert_ptr_null(open_dir(su_dir, 0, err, sizeof err));
    ck_assert_msg(test_log_count("carcd.db is missing, but it held 0 room(s), 0 game record(s)"
                                 " and 1 move(s) when carcd last stopped cleanly") == 1,
                  "%s", test_log_text());
}
END_TEST

Suite *suite_damage(void)
{
    Suite *s = suite_create("damage");
    TCase *tc = tcase_create("damage");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, wal_of_real_sqlite_read_whole);
    tcase_add_test(tc, wal_flipped_byte_found_and_really_lost);
    tcase_add_test(tc, wal_round_before_not_flagged);
    tcase_add_test(tc, wal_cut_append_and_bad_header);
    tcase_add_test(tc, clean_stops_and_crashes_start_quietly);
    tcase_add_test(tc, missing_wal_after_crash_refused);
    tcase_add_test(tc, empty_database_refused);
    suite_add_tcase(s, tc);
    return s;
}
