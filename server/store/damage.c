/* store/damage.c: the data directory's files looked at before SQLite opens
 * them (store.h "start-up checks"), carcd.state, and the copies of damaged
 * files kept aside. It runs on the caller's thread at start-up, before the
 * loop: blocking file work belongs here and nowhere near a callback. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store_int.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"

#define FINDINGS 3
#define FINDING_LEN 700
#define KEPT_PREFIX "damaged-"
#define FOUND_FILE "found.txt"

struct findings {
    int n;
    char text[FINDINGS][FINDING_LEN];
};

/* The files a damaged directory's copy holds: the database, its log and
 * index, and carcd.state. */
static const char *const kept_names[] = {STORE_FILE, STORE_FILE "-wal", STORE_FILE "-shm",
                                         STORE_STATE};
#define NKEPT (sizeof kept_names / sizeof kept_names[0])

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* A rename or a new file in dir made durable. */
static void dir_sync(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

static void utc_text(int64_t ms, const char *fmt, char *out, size_t size)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL || strftime(out, size, fmt, &tm) == 0)
        snprintf(out, size, "%" PRId64, ms);
}

/* ---- carcd.state ---- */

int store__state_read(const char *dir, struct store_state *s)
{
    char path[600], line[160];
    snprintf(path, sizeof path, "%s/%s", dir, STORE_STATE);
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return errno == ENOENT ? 0 : -1;
    int version = 0, seen = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char key[32];
        long long v;
        if (sscanf(line, "%31s %lld", key, &v) != 2)
            continue;
        static const char *const names[] = {"clean", "rooms", "records", "moves"};
        long long *const fields[] = {NULL, &s->rooms, &s->records, &s->moves};
        if (strcmp(key, "carcd-state") == 0)
            version = (int)v;
        else if (strcmp(key, "time") == 0)
            s->time_ms = v;
        for (int k = 0; k < 4; k++) {
            if (strcmp(key, names[k]) != 0)
                continue;
            if (k == 0)
                s->clean = v == 1;
            else
                *fields[k] = v;
            seen |= 1 << k;
        }
    }
    fclose(f);
    if (version != 1 || seen != 15) {
        memset(s, 0, sizeof *s);
        return -1;
    }
    return 1;
}

int store__state_write(const char *dir, const struct store_state *s, char *err, size_t errlen)
{
    char path[600], tmp[610], text[512];
    snprintf(path, sizeof path, "%s/%s", dir, STORE_STATE);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int n = snprintf(text, sizeof text,
                     "# carcd's record of its runs on this directory (server/README.md"
                     " \"Storage\"); do not edit\n"
                     "carcd-state 1\nclean %d\nrooms %lld\nrecords %lld\nmoves %lld\ntime %" PRId64
                     "\n",
                     s->clean, s->rooms, s->records, s->moves, s->time_ms);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int e = 0;
    if (fd < 0)
        e = errno;
    else if (write_all(fd, text, (size_t)n) != 0 || fsync(fd) != 0)
        e = errno;
    if (fd >= 0 && close(fd) != 0 && e == 0)
        e = errno;
    if (e == 0 && rename(tmp, path) != 0)
        e = errno;
    if (e != 0) {
        unlink(tmp);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        return -1;
    }
    dir_sync(dir);
    return 0;
}

/* ---- what is found ---- */

static void finding_add(struct findings *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void finding_add(struct findings *f, const char *fmt, ...)
{
    if (f->n >= FINDINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text[f->n++], FINDING_LEN, fmt, ap);
    va_end(ap);
}

/* carcd.db's header says WAL mode: its bytes 18 and 19 (the file format's
 * write and read versions) are 2. */
static int db_wal_mode(const char *path)
{
    unsigned char h[20];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = pread(fd, h, sizeof h, 0);
    close(fd);
    return n == (ssize_t)sizeof h && h[18] == 2 && h[19] == 2;
}

static void wal_findings(const struct store_wal *w, struct findings *f)
{
    long long kib = (long long)w->lost_frames * (w->page_size + 24) / 1024;
    if (w->header_bad && w->page_size == 0)
        finding_add(f,
                    "%s-wal is damaged (%s): SQLite would ignore all %lld bytes of it, every"
                    " transaction committed since the last checkpoint",
                    STORE_FILE, w->why, w->size);
    else if (w->header_bad)
        finding_add(
            f,
            "%s-wal is damaged (%s): SQLite would ignore all of it: %ld frame(s) (~%lld"
            " KiB) holding %ld committed transaction(s) of acknowledged moves would be lost",
            STORE_FILE, w->why, w->lost_frames, kib, w->lost_commits);
    else
        finding_add(f,
                    "%s-wal is damaged at frame %ld of %ld (%s): SQLite would keep the %ld"
                    " frame(s) before it and drop the rest: up to %ld frame(s) (~%lld KiB)"
                    " holding %ld committed transaction(s) of acknowledged moves would be lost",
                    STORE_FILE, w->first_bad + 1, w->frames, w->why, w->valid, w->lost_frames, kib,
                    w->lost_commits);
}

/* "12 room(s), 3 game record(s) and 240 move(s)" as of a state. */
static void counts_text(const struct store_state *s, char *out, size_t size)
{
    if (s->rooms < 0 || s->records < 0 || s->moves < 0)
        snprintf(out, size, "rooms and records (not counted)");
    else
        snprintf(out, size, "%lld room(s), %lld game record(s) and %lld move(s)", s->rooms,
                 s->records, s->moves);
}

/* carcd.db missing or empty (exists: 0 bytes): SQLite would start an empty
 * database there, and delete a log beside it. have: store__state_read's. */
static void db_findings(int exists, int have, const struct store_state *s,
                        const struct store_wal *w, struct findings *f)
{
    const char *what = exists ? "is empty (0 bytes)" : "is missing";
    char counts[160], when[40];
    counts_text(s, counts, sizeof counts);
    utc_text(s->time_ms, "%Y-%m-%dT%H:%M:%SZ", when, sizeof when);
    if (have < 0)
        finding_add(f,
                    "%s %s and %s cannot be read: this directory was in use; starting would"
                    " begin an empty database",
                    STORE_FILE, what, STORE_STATE);
    else if (have > 0 && !s->clean)
        finding_add(f,
                    "%s %s, but carcd did not stop cleanly on this directory (%s): its database"
                    " held %s when that run started (%s), and what was played since; starting"
                    " would begin an empty database without them",
                    STORE_FILE, what, STORE_STATE, counts, when);
    else if (have > 0 && (s->rooms != 0 || s->records != 0 || s->moves != 0))
        finding_add(f,
                    "%s %s, but it held %s when carcd last stopped cleanly (%s): starting would"
                    " begin an empty database without them",
                    STORE_FILE, what, counts, when);
    if (w->commits + w->lost_commits > 0)
        finding_add(f,
                    "%s %s beside %s-wal, whose %ld frame(s) hold %ld committed transaction(s):"
                    " SQLite would delete that log",
                    STORE_FILE, what, STORE_FILE, w->frames, w->commits + w->lost_commits);
}

/* ---- the copies kept aside ---- */

/* One line per file of kept_names: its name, size and modification time, or
 * "missing". Equal lines: the same files, unchanged. */
static void sources_describe(const char *dir, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < NKEPT && len < size; i++) {
        char p[600];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", dir, kept_names[i]);
        if (stat(p, &sb) == 0)
            len += (size_t)snprintf(out + len, size - len, "file %s %lld %lld.%09ld\n",
                                    kept_names[i], (long long)sb.st_size,
                                    (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec);
        else
            len += (size_t)snprintf(out + len, size - len, "file %s missing\n", kept_names[i]);
    }
}

/* The newest dir/damaged-* whose found.txt lists sources: those files were
 * kept already (a start refused, then another). 1 with its path, else 0. */
static int kept_before(const char *dir, const char *sources, char *kept, size_t size)
{
    DIR *d = opendir(dir);
    char best[256] = "";
    if (d == NULL)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, KEPT_PREFIX, strlen(KEPT_PREFIX)) == 0 &&
            strlen(e->d_name) < sizeof best && strcmp(e->d_name, best) > 0)
            strcpy(best, e->d_name);
    closedir(d);
    if (best[0] == '\0')
        return 0;
    char p[900];
    snprintf(p, sizeof p, "%s/%s/%s", dir, best, FOUND_FILE);
    FILE *f = fopen(p, "r");
    if (f == NULL)
        return 0;
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    if (strstr(text, sources) == NULL)
        return 0;
    snprintf(kept, size, "%s/%s", dir, best);
    return 1;
}

/* src copied to the new file dst and fsync'd; a src that is not there is
 * skipped. 0, or -1 with err (dst removed). */
static int copy_file(const char *src, const char *dst, char *err, size_t errlen)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", src, strerror(errno)), -1);
    int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) {
        snprintf(err, errlen, "%s: %s", dst, strerror(errno));
        close(in);
        return -1;
    }
    enum { CHUNK = 1 << 16 };
    char *buf = mem_alloc(CHUNK);
    int e = 0;
    for (;;) {
        ssize_t r = read(in, buf, CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || write_all(out, buf, (size_t)r) != 0) {
            e = r == 0 ? 0 : errno;
            break;
        }
    }
    if (e == 0 && fsync(out) != 0)
        e = errno;
    free(buf);
    close(in);
    close(out);
    if (e != 0) {
        snprintf(err, errlen, "%s: %s", dst, strerror(e));
        unlink(dst);
        return -1;
    }
    return 0;
}

/* A new dir/damaged-STAMP[-N] (mode 0700) into kept. 0, or -1 with err. */
static int kept_dir_make(const char *dir, char *kept, size_t size, char *err, size_t errlen)
{
    char stamp[32];
    utc_text(clock_wall_ms(), "%Y%m%d-%H%M%S", stamp, sizeof stamp);
    for (int k = 1; k < 100; k++) {
        if (k == 1)
            snprintf(kept, size, "%s/" KEPT_PREFIX "%s", dir, stamp);
        else
            snprintf(kept, size, "%s/" KEPT_PREFIX "%s-%d", dir, stamp, k);
        if (mkdir(kept, 0700) == 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    snprintf(err, errlen, "cannot create %s: %s", kept, strerror(errno));
    return -1;
}

/* found.txt: what was found, then the files' lines (sources_describe). */
static int found_write(const char *kept, const struct findings *f, const char *sources, char *err,
                       size_t errlen)
{
    char p[900], when[40];
    snprintf(p, sizeof p, "%s/%s", kept, FOUND_FILE);
    utc_text(clock_wall_ms(), "%Y-%m-%dT%H:%M:%SZ", when, sizeof when);
    FILE *out = fopen(p, "w");
    if (out == NULL) {
        snprintf(err, errlen, "%s: %s", p, strerror(errno));
        return -1;
    }
    fprintf(out, "carcd found its data directory damaged at start, %s:\n\n", when);
    for (int i = 0; i < f->n; i++)
        fprintf(out, "- %s\n", f->text[i]);
    fprintf(out,
            "\nThe files here are copies of the data directory's files as they were"
            " then.\nWhat to do: deploy/README.md \"Damaged data at start\".\n\n%s",
            sources);
    int bad = fflush(out) != 0 || fsync(fileno(out)) != 0;
    if (fclose(out) != 0 || bad) {
        snprintf(err, errlen, "%s: %s", p, strerror(errno));
        return -1;
    }
    return 0;
}

/* The files copied into a new dir/damaged-STAMP/ with found.txt (written
 * last: a copy cut short has none, and is not taken for a whole one), or the
 * newest such folder when it holds these same unchanged files (a refused
 * start, then another, or one with --accept-damaged-data). Its path into
 * kept. 0, or -1 with err. */
static int keep_aside(const char *dir, const struct findings *f, char *kept, size_t size, char *err,
                      size_t errlen)
{
    char sources[1024];
    sources_describe(dir, sources, sizeof sources);
    if (kept_before(dir, sources, kept, size))
        return 0;
    if (kept_dir_make(dir, kept, size, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < NKEPT; i++) {
        char src[600], dst[700];
        snprintf(src, sizeof src, "%s/%s", dir, kept_names[i]);
        snprintf(dst, sizeof dst, "%s/%s", kept, kept_names[i]);
        if (copy_file(src, dst, err, errlen) != 0)
            return -1;
    }
    if (found_write(kept, f, sources, err, errlen) != 0)
        return -1;
    dir_sync(kept);
    dir_sync(dir);
    return 0;
}

/* ---- the check ---- */

/* What opening dir's files would lose, into f. 0, or -1 with err when they
 * cannot be read. */
static int findings_collect(const char *dir, struct findings *f, char *err, size_t errlen)
{
    char db[600], wal[610];
    snprintf(db, sizeof db, "%s/%s", dir, STORE_FILE);
    snprintf(wal, sizeof wal, "%s-wal", db);
    struct store_state s;
    int have = store__state_read(dir, &s);
    struct store_wal w;
    if (store_wal_scan(wal, &w, err, errlen) != 0)
        return -1;
    struct stat sb;
    int exists = stat(db, &sb) == 0;
    if (!exists && errno != ENOENT) {
        snprintf(err, errlen, "cannot read %s: %s", db, strerror(errno));
        return -1;
    }
    if (!exists || sb.st_size == 0)
        db_findings(exists, have, &s, &w, f);
    else if (store_wal_damaged(&w))
        wal_findings(&w, f);
    else if (w.torn)
        log_warn("storage: %s-wal: its last commit (frame %ld of %ld) does not check (%s): a"
                 " commit cut short by the crash, never acknowledged; SQLite drops it (were the"
                 " disk damaged instead, that one transaction would be lost)",
                 STORE_FILE, w.first_bad + 1, w.frames, w.why);
    else if (!w.exists && have != 0 && !s.clean && db_wal_mode(db))
        finding_add(f,
                    "%s-wal is missing, but carcd did not stop cleanly on this directory (%s)"
                    " and %s is in WAL mode: every move acknowledged since the last checkpoint"
                    " may be lost",
                    STORE_FILE, STORE_STATE, STORE_FILE);
    return 0;
}

int store__damage_check(const char *dir, int accept, char *err, size_t errlen)
{
    struct findings *f = mem_zalloc(1, sizeof *f);
    if (findings_collect(dir, f, err, errlen) != 0) {
        free(f);
        return -1;
    }
    if (f->n == 0) {
        free(f);
        return 0;
    }
    char kept[640], why[1024] = "";
    int kept_ok = keep_aside(dir, f, kept, sizeof kept, why, sizeof why) == 0;
    for (int i = 0; i < f->n; i++)
        log_error("storage: %s", f->text[i]);
    if (kept_ok)
        log_error("storage: the files as they were are kept in %s (found.txt says what was found)",
                  kept);
    else
        log_error("storage: the damaged files could not be kept aside: %s", why);
    free(f);
    if (!accept) {
        snprintf(err, errlen,
                 "carcd does not start on %s: opening it would lose acknowledged data (above)."
                 " Keep %s, then start once with --accept-damaged-data to go on with what"
                 " SQLite can read (deploy/README.md \"Damaged data at start\")",
                 dir, kept_ok ? kept : "a copy of its files");
        return -1;
    }
    log_error("storage: starting on the damaged files anyway (accept-damaged-data): what is listed"
              " above is lost from the games carcd serves");
    return 0;
}
