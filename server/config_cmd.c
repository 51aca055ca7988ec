/* config_cmd.c: the command line's side of config.h: the settings loaded
 * with the log and metrics set up, and the one-shot commands (--backup,
 * --export-db, --import-db) that run instead of the server. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "metrics/metrics.h"
#include "store/accounts.h"
#include "store/store.h"
#include "util/log.h"

/* `--NAME FILE` (or --NAME=FILE) out of argv, into *file: the other
 * flags are settings. 0, or -1 when FILE is missing. */
static int file_flag(int *argc, char **argv, const char *name, const char **file)
{
    int k = 0;
    size_t n = strlen(name);
    for (int i = 0; i < *argc; i++) {
        if (strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i] + 2, name) == 0) {
            if (i + 1 >= *argc)
                return -1;
            *file = argv[++i];
        } else if (strncmp(argv[i], "--", 2) == 0 && strncmp(argv[i] + 2, name, n) == 0 &&
                   argv[i][2 + n] == '=') {
            *file = argv[i] + 3 + n;
        } else {
            argv[k++] = argv[i];
        }
    }
    *argc = k;
    argv[k] = NULL;
    return *file != NULL && (*file)[0] == '\0' ? -1 : 0;
}

/* The configured storage, opened for a copy (before serving). */
static struct store *copy_open(const struct carcd_config *cfg, char *err, size_t errlen)
{
    if (cfg->storage == 2)
        return store_open_postgres(cfg->postgres_url, cfg->storage_wait, err, errlen);
    return store_open_flags(cfg->data_dir, cfg->storage_busy_ms,
                            cfg->accept_damaged ? STORE_ACCEPT_DAMAGE : 0, err, errlen);
}

/* The rooms and records (store_copy), then the account tables
 * (store_accounts_copy, a transaction of its own) of from into to, the
 * counts printed; 0, or -1 said on stderr. */
static int copy_both(struct store *from, struct store *to, const char *verb, const char *src,
                     const char *dst)
{
    char err[1024];
    long rooms = 0, games = 0;
    if (store_copy(from, to, &rooms, &games, err, sizeof err) != 0) {
        fprintf(stderr, "carcd: copy: %s\n", err);
        return -1;
    }
    printf("carcd: %s %ld room(s) and %ld record(s) from %s %s %s\n", verb, rooms, games, src,
           verb[0] == 'i' ? "into" : "to", dst);
    fflush(stdout);
    struct store_accounts_counts n;
    if (store_accounts_copy(from, to, &n, err, sizeof err) != 0) {
        fprintf(stderr, "carcd: copy: %s (the rooms and records are copied: run the copy again)\n",
                err);
        return -1;
    }
    printf("carcd: %s %ld account(s), %ld session(s), %ld invite(s), %ld rating(s), %ld rating"
           " history row(s) and %ld account game(s) from %s %s %s\n",
           verb, n.accounts, n.sessions, n.invites, n.ratings, n.history, n.games, src,
           verb[0] == 'i' ? "into" : "to", dst);
    return 0;
}

/* carcd --export-db FILE: every room, record and account row of the configured
 * storage into a new SQLite file; --import-db FILE: those of the SQLite file FILE
 * (also one a carcd serves from) into the configured storage (store.h
 * "copying between backends"). */
int config_copy_run(const struct carcd_config *cfg, const char *file, int import)
{
    char err[1024];
    if (!cfg->storage) {
        fprintf(stderr, "carcd: --%s-db: storage is off\n", import ? "import" : "export");
        return 2;
    }
    if (!import && access(file, F_OK) == 0) {
        fprintf(stderr, "carcd: --export-db: %s exists; give a new file\n", file);
        return 1;
    }
    if (import && access(file, R_OK) != 0) {
        fprintf(stderr, "carcd: --import-db: cannot read %s: %s\n", file, strerror(errno));
        return 1;
    }
    struct store *conf = copy_open(cfg, err, sizeof err);
    if (conf == NULL) {
        fprintf(stderr, "carcd: storage: %s\n", err);
        return 1;
    }
    struct store *f = store_open_file(file, err, sizeof err);
    if (f == NULL) {
        fprintf(stderr, "carcd: %s: %s\n", file, err);
        store_close(conf);
        return 1;
    }
    const char *name = store_backend_name(conf);
    int rc = import ? copy_both(f, conf, "imported", file, name)
                    : copy_both(conf, f, "exported", name, file);
    store_close(f);
    store_close(conf);
    if (rc != 0 && !import)
        unlink(file); /* nothing half written is left */
    return rc != 0 ? 1 : 0;
}

/* carcd --backup FILE: a consistent copy of <data-dir>/carcd.db, also while
 * a carcd serves from it (store.h "online backups"). */
int config_backup_run(const struct carcd_config *cfg, const char *file)
{
    char src[512], err[1024];
    long long bytes = 0;
    snprintf(src, sizeof src, "%s/%s", cfg->data_dir, STORE_FILE);
    if (store_backup_file(src, file, &bytes, err, sizeof err) != 0) {
        fprintf(stderr, "carcd: backup: %s\n", err);
        return 1;
    }
    printf("carcd: backup of %s written to %s (%lld bytes)\n", src, file, bytes);
    return 0;
}

/* The file flags out of argv, then the settings into cfg, the log set up
 * and the metrics ready. -1 to go on, else main's exit status: 0 after
 * --help or --version, 2 on a bad flag or setting (said on stderr). */
int config_settings_load(struct carcd_config *cfg, int *argc, char **argv,
                         struct config_file_flags *ff)
{
    char err[512];
    if (file_flag(argc, argv, "backup", &ff->backup) != 0 ||
        file_flag(argc, argv, "export-db", &ff->export_db) != 0 ||
        file_flag(argc, argv, "import-db", &ff->import_db) != 0) {
        fprintf(stderr, "carcd: --backup, --export-db and --import-db need a file name\n");
        return 2;
    }
    int rc = config_load(cfg, *argc, argv, stdout, err, sizeof err);
    if (rc == 1)
        return 0;
    if (rc != 0) {
        fprintf(stderr, "carcd: %s\n", err);
        return 2;
    }
    log_level_set(cfg->log_level);
    log_format_set(cfg->log_format);
    metrics_init();
    return -1;
}

/* ---- the process (main.c) ---- */

/* mkdir -p */
static int make_dirs(const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char keep = *p;
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = keep;
            if (keep == '\0')
                break;
        }
    }
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* Let the process hold as many sockets as the hard limit allows. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* --export-db or --import-db: the data directory made, then copy_run. main's
 * exit status. */
int config_copy_main(const struct carcd_config *cfg, const struct config_file_flags *ff)
{
    if (make_dirs(cfg->data_dir) != 0) {
        fprintf(stderr, "carcd: cannot create the data directory %s: %s\n", cfg->data_dir,
                strerror(errno));
        return 1;
    }
    return config_copy_run(cfg, ff->export_db != NULL ? ff->export_db : ff->import_db,
                           ff->import_db != NULL);
}

/* The process made ready to serve: signals that would kill it ignored, the
 * descriptor limit raised, the data directory made. 0, or 1 (logged). */
int config_process_prepare(const struct carcd_config *cfg)
{
    signal(SIGPIPE, SIG_IGN);
    /* Over a file size limit, a write fails like a full disk (EFBIG) and
     * storage refuses moves; without this the process would die. */
    signal(SIGXFSZ, SIG_IGN);
    raise_fd_limit();
    if (make_dirs(cfg->data_dir) != 0) {
        log_error("cannot create the data directory %s: %s", cfg->data_dir, strerror(errno));
        return 1;
    }
    return 0;
}
