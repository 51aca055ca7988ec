/* store/backup.c: online backups of the SQLite backend (store.h "online backups"): SQLite's backup
 * API on a connection of its own, so that it never waits for, nor holds up,
 * the writer's batches for longer than one step's read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sqlite_int.h"
#include "util/log.h"
#include "util/mem.h"

/* Pages copied per step: a step holds a read transaction of the source,
 * which keeps checkpoints from going past it, so it stays short. */
#define BACKUP_STEP_PAGES 256
/* A copy that keeps being restarted by commits gives up after this long. */
#define BACKUP_BUSY_MS 60000

int store_backup_file(const char *src_db, const char *dst, long long *bytes, char *err,
                      size_t errlen)
{
    char part[800];
    snprintf(part, sizeof part, "%s.part", dst);
    if (access(src_db, R_OK) != 0) {
        snprintf(err, errlen, "cannot read %s: %s", src_db, strerror(errno));
        return -1;
    }
    (void)unlink(part);
    sqlite3 *src = NULL, *out = NULL;
    sqlite3_backup *b = NULL;
    int rc = sqlite3_open_v2(src_db, &src, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        sq__db_error(err, errlen, src_db, "cannot open it", src);
        goto fail;
    }
    sqlite3_busy_timeout(src, 5000);
    rc = sqlite3_open_v2(part, &out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        sq__db_error(err, errlen, part, "cannot create it", out);
        goto fail;
    }
    b = sqlite3_backup_init(out, "main", src, "main");
    if (b == NULL) {
        sq__db_error(err, errlen, part, "cannot start the backup", out);
        goto fail;
    }
    int waited = 0;
    while ((rc = sqlite3_backup_step(b, BACKUP_STEP_PAGES)) != SQLITE_DONE) {
        if (rc == SQLITE_OK)
            continue;
        if ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && waited < BACKUP_BUSY_MS) {
            sqlite3_sleep(10);
            waited += 10;
            continue;
        }
        break;
    }
    if (sqlite3_backup_finish(b) != SQLITE_OK || rc != SQLITE_DONE) {
        b = NULL;
        snprintf(err, errlen, "backup of %s failed: %s", src_db,
                 rc == SQLITE_DONE ? sqlite3_errmsg(out) : sqlite3_errstr(rc));
        goto fail;
    }
    b = NULL;
    /* The copy is a WAL database like its source: checkpoint it into the
     * main file and leave WAL mode, so that dst is one self-contained file. */
    if (sq__exec(out, "PRAGMA journal_mode = DELETE") != 0) {
        sq__db_error(err, errlen, part, "cannot finish the copy", out);
        goto fail;
    }
    sqlite3_close(out);
    out = NULL;
    sqlite3_close(src);
    src = NULL;
    struct stat sb;
    if (rename(part, dst) != 0 || stat(dst, &sb) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", dst, strerror(errno));
        (void)unlink(part);
        return -1;
    }
    *bytes = (long long)sb.st_size;
    return 0;
fail:
    if (b != NULL)
        sqlite3_backup_finish(b);
    sqlite3_close(out);
    sqlite3_close(src);
    (void)unlink(part);
    return -1;
}

struct store_backup {
    uv_work_t work;
    char src[512];
    char dir[512];
    char path[700];
    long long bytes;
    int status;
    char err[800];
    store_backup_cb cb; /* NULL once cancelled */
    void *arg;
};

/* A name not yet taken under dir/backups for now (created if missing). */
static int backup_name(struct store_backup *b)
{
    char dir[530];
    snprintf(dir, sizeof dir, "%s/backups", b->dir);
    if (mkdir(dir, 0750) != 0 && errno != EEXIST) {
        snprintf(b->err, sizeof b->err, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    time_t t = time(NULL);
    struct tm tm;
    char stamp[32];
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int k = 1; k < 100; k++) {
        if (k == 1)
            snprintf(b->path, sizeof b->path, "%s/carcd-%s.db", dir, stamp);
        else
            snprintf(b->path, sizeof b->path, "%s/carcd-%s-%d.db", dir, stamp, k);
        if (access(b->path, F_OK) != 0)
            return 0;
    }
    snprintf(b->err, sizeof b->err, "too many backups in %s this second", dir);
    return -1;
}

static void backup_work(uv_work_t *w)
{
    struct store_backup *b = w->data;
    b->status = backup_name(b) == 0 &&
                        store_backup_file(b->src, b->path, &b->bytes, b->err, sizeof b->err) == 0
                    ? 0
                    : -1;
}

static void backup_done(uv_work_t *w, int status)
{
    struct store_backup *b = w->data;
    if (status != 0 && b->status == 0) {
        b->status = -1;
        snprintf(b->err, sizeof b->err, "the backup was cancelled");
    }
    if (b->status == 0)
        log_info("storage: backup written to %s (%lld bytes)", b->path, b->bytes);
    else
        log_error("storage: backup failed: %s", b->err);
    if (b->cb != NULL)
        b->cb(b->arg, b->status, b->path, b->bytes, b->err);
    free(b);
}

struct store_backup *store_backup_start(struct store *st, const char *dir, store_backup_cb cb,
                                        void *arg)
{
    if (st == NULL || st->loop == NULL || st->be->file == NULL)
        return NULL;
    struct store_backup *b = mem_zalloc(1, sizeof *b);
    snprintf(b->src, sizeof b->src, "%s", st->be->file(st));
    snprintf(b->dir, sizeof b->dir, "%s", dir);
    b->cb = cb;
    b->arg = arg;
    b->work.data = b;
    if (uv_queue_work(st->loop, &b->work, backup_work, backup_done) != 0) {
        free(b);
        return NULL;
    }
    return b;
}

void store_backup_cancel(struct store_backup *b)
{
    if (b != NULL)
        b->cb = NULL;
}
