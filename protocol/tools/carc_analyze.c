/* carc-analyze: the post-game analysis of a game record (PROTOCOL.md "Game analysis").
 *
 * Usage: carc-analyze [--seed N] [--ms MS] [--id ID] [--progress] FILE   (FILE "-": stdin)
 *
 * Prints the analysis document (carcd-analysis/1) on one line, the very document the server
 * stores for the same record, seed and budget (the server's seed is 1, its budget the setting
 * analysis-ms-per-move, 250 by default). --progress prints "move k of n" on stderr as moves are
 * rated. Exit 0, 1 when the record is unreadable or does not replay, 64 for a usage error.
 *
 * carc-analyze --bench N [--ms MS] (make bench-analysis): N two-player base games played by the
 * greedy bots (seeds 1..N) are analysed one after the other; prints each game's CPU time (this
 * thread's) and time per move, then their medians. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "analysis_json.h"
#include "bot.h"
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

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* make bench-analysis: the analysis' cost on games of the greedy bots. */
static int bench(long games, long ms)
{
    struct carc_bot_search *bot = malloc(sizeof *bot);
    struct carc_analysis_work *w = malloc(sizeof *w);
    struct carc_analysis *a = malloc(sizeof *a);
    struct carc_record *rec = calloc(1, sizeof *rec);
    struct carc_game *g = malloc(sizeof *g);
    double *secs = calloc((size_t)games, sizeof *secs), *per = calloc((size_t)games, sizeof *per);
    if (bot == NULL || w == NULL || a == NULL || rec == NULL || g == NULL || secs == NULL ||
        per == NULL)
        return fprintf(stderr, "carc-analyze: out of memory\n"), 1;
    for (long k = 0; k < games; k++) {
        struct carc_config cfg = {
            .nplayers = 2, .sets = 1u << CARC_SET_BASE, .start = -1, .seed = (uint64_t)k + 1};
        struct carc_error err = {0, ""};
        memset(rec, 0, sizeof *rec);
        if (carc_game_init(g, &cfg, &err) < 0)
            return fprintf(stderr, "carc-analyze: %s\n", err.text), 1;
        rec->sets = cfg.sets;
        rec->nplayers = 2;
        rec->start = g->placed[0].type;
        rec->has_deck = 1;
        rec->deck_len = g->deck_len;
        memcpy(rec->deck, g->deck, g->deck_len);
        while (g->phase != CARC_PHASE_OVER) {
            struct carc_move m;
            if (carc_bot_choose(bot, g, CARC_BOT_GREEDY, (uint64_t)g->turn, 0, NULL, &m) < 0 ||
                carc_game_play(g, &m, &err) < 0)
                return fprintf(stderr, "carc-analyze: the greedy bot's game failed\n"), 1;
            rec->moves[rec->nmoves++] = m;
        }
        double t0 = cpu_now();
        if (carc_analysis_record_run(w, rec, PROTO_ANALYSIS_SEED, carc_analysis_playouts(ms), NULL,
                                     NULL, a, &err) < 0)
            return fprintf(stderr, "carc-analyze: game %ld: %s\n", k + 1, err.text), 1;
        secs[k] = cpu_now() - t0;
        per[k] = secs[k] / rec->nmoves;
        printf("game %ld: %d moves, %.2f s CPU, %.1f ms a move\n", k + 1, rec->nmoves, secs[k],
               per[k] * 1e3);
        fflush(stdout);
    }
    qsort(secs, (size_t)games, sizeof *secs, by_value);
    qsort(per, (size_t)games, sizeof *per, by_value);
    printf("bench-analysis: %ld two-player base games at %ld ms a move (%ld playouts): median "
           "%.2f s CPU a game (target: at most 30 s), %.1f ms a move\n",
           games, ms, carc_analysis_playouts(ms), secs[games / 2], per[games / 2] * 1e3);
    free(per);
    free(secs);
    free(g);
    free(rec);
    free(a);
    free(w);
    free(bot);
    return 0;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: carc-analyze [--seed N] [--ms MS] [--id ID] [--progress] FILE\n"
            "       carc-analyze --bench N [--ms MS]\n"
            "  Rates every move of the game record in FILE (\"-\" for standard input) and\n"
            "  measures each player's luck; prints the analysis JSON (PROTOCOL.md \"Game\n"
            "  analysis\"). --seed: the analysis seed (default 1, the server's); --ms: the\n"
            "  budget per move in nominal milliseconds (default 250); --id: the document's id\n"
            "  (default: the file's name). --bench: analyse N games of the greedy bots and\n"
            "  print the CPU time a game and a move.\n");
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
    unsigned long long games = 0;
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
        } else if (strcmp(a, "--bench") == 0 && i + 1 < argc) {
            if (number_parse(argv[++i], 10000, &games) < 0 || games == 0)
                return fprintf(stderr, "carc-analyze: --bench takes 1 to 10000\n"), EX_USAGE;
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
    if (games > 0)
        return path == NULL ? bench((long)games, ms > 0 ? (long)ms : CARC_AN_DEFAULT_MS) : usage();
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
        fprintf(stderr, "carc-analyze: %s: %s\n", carc_err_name(r.err.code), r.err.text);
        return 1;
    }
    puts(r.out);
    free(r.out);
    return 0;
}
