/* carc-analyze: the post-game analysis of a game record (PROTOCOL.md "Game analysis").
 *
 * Usage: carc-analyze [--seed N] [--ms MS] [--id ID] [--progress] FILE   (FILE "-": stdin)
 *
 * Prints the analysis document (carcd-analysis/1) on one line, the very document the server
 * stores for the same record, seed and budget (the server's seed is 1, its budget the setting
 * analysis-ms-per-move, 250 by default). --progress prints "move k of n" on stderr as moves are
 * rated. Exit 0, 1 when the record is unreadable or does not replay, 64 for a usage error. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis_json.h"
#include "record_json.h"
#include "tool_io.h"

#define EX_USAGE 64

struct run {
    const char *id, *text;
    size_t len;
    uint64_t seed;
    long ms;
    struct proto_analysis_progress progress;
    atomic_int finished;
    char *out;
    int rc;
    struct proto_error err;
};

static void *run_thread(void *arg)
{
    struct run *r = arg;
    r->rc = proto_analysis_run(r->id, r->text, r->len, r->seed, r->ms, NULL, &r->progress, &r->out,
                               &r->err);
    atomic_store(&r->finished, 1);
    return NULL;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: carc-analyze [--seed N] [--ms MS] [--id ID] [--progress] FILE\n"
            "  Rates every move of the game record in FILE (\"-\" for standard input) and\n"
            "  measures each player's luck; prints the analysis JSON (PROTOCOL.md \"Game\n"
            "  analysis\"). --seed: the analysis seed (default 1, the server's); --ms: the\n"
            "  budget per move in nominal milliseconds (default 250); --id: the document's id\n"
            "  (default: the file's name).\n");
    return EX_USAGE;
}

static int number_parse(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > max)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    static struct run r; /* the progress atomics outlive no frame */
    unsigned long long seed = PROTO_ANALYSIS_SEED, ms = 0;
    const char *path = NULL;
    int progress = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
            if (number_parse(argv[++i], (unsigned long long)INT64_MAX, &seed) < 0)
                return fprintf(stderr, "carc-analyze: --seed takes 0 to 2^63-1\n"), EX_USAGE;
        } else if (strcmp(a, "--ms") == 0 && i + 1 < argc) {
            if (number_parse(argv[++i], 600000, &ms) < 0 || ms == 0)
                return fprintf(stderr, "carc-analyze: --ms takes 1 to 600000\n"), EX_USAGE;
        } else if (strcmp(a, "--id") == 0 && i + 1 < argc) {
            r.id = argv[++i];
        } else if (strcmp(a, "--progress") == 0) {
            progress = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage();
        } else if (path == NULL) {
            path = a;
        } else {
            return usage();
        }
    }
    if (path == NULL)
        return usage();
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "carc-analyze: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    char *text = tool_input_read(f, PROTO_RECORD_MAX_BYTES, &r.len);
    if (f != stdin)
        fclose(f);
    if (text == NULL) {
        fprintf(stderr, "carc-analyze: cannot read %s\n", path);
        return 1;
    }
    if (r.id == NULL) {
        const char *slash = strrchr(path, '/');
        r.id = slash != NULL ? slash + 1 : path;
    }
    r.text = text;
    r.seed = seed;
    r.ms = (long)ms;
    proto_error_init(&r.err);
    pthread_t th;
    if (pthread_create(&th, NULL, run_thread, &r) != 0) {
        fprintf(stderr, "carc-analyze: cannot start a thread\n");
        free(text);
        return 1;
    }
    int shown = -1;
    while (progress && !atomic_load(&r.finished)) {
        int done = atomic_load(&r.progress.done), total = atomic_load(&r.progress.total);
        if (done != shown && total > 0)
            fprintf(stderr, "move %d of %d\n", done, total);
        shown = done;
        nanosleep(&(struct timespec){.tv_nsec = 200000000}, NULL);
    }
    pthread_join(th, NULL);
    free(text);
    if (r.rc != 0) {
        fprintf(stderr, "carc-analyze: %s: %s%s%s\n", carc_err_name(r.err.code),
                r.err.field[0] != '\0' ? r.err.field : "", r.err.field[0] != '\0' ? ": " : "",
                r.err.text);
        return 1;
    }
    puts(r.out);
    free(r.out);
    return 0;
}
