/* carc-botbench: the built-in bots (common/bot.h) against each other.
 *
 * Usage: carc-botbench [--games N] [--seed S] [--jobs J] [--budget B] [--sets a,b|all]
 *                      [--players P] [--min-rate R] MATCH...
 *
 * MATCH is A:B or A:B:RATE with A and B bot levels (random, greedy, strong, or
 * analysis: the post-game analysis' best move at its default budget, analysis.h):
 * N games (default 200) of A against B with every set (--sets: those), farmers on and the
 * default siege escape rule. Game k deals its tiles from seed S+k; A sits
 * first in the even games and second in the odd ones (with more than 2
 * players the other seats are B). The bots' seeds come from the game seed, the
 * turn and the seat, so a run is reproducible whatever J. J worker processes
 * (default 2) each play a slice of the games and send their results through a
 * pipe. A game counts as a win of A when an A seat has the highest score alone,
 * a tie when A and B share it (half a win).
 *
 * Output per match: games, wins, losses, ties, A's win rate (ties half) with
 * its 95% Wilson interval, and each level's mean and max time per move (wall
 * clock, measured here); then a final line with the total wall time. Exit
 * status: 0, 1 when a rate is below its RATE (or --min-rate), 2 when a worker
 * failed, 64 usage. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "bot.h"
#include "tool_io.h"

#define EX_USAGE 64
#define MAX_MATCHES 8
#define MAX_JOBS 64
#define LEVEL_ANALYSIS CARC_BOT_LEVELS /* not a bot level: carc_analysis_move_rate's best */

static int level_find(const char *name)
{
    return strcmp(name, "analysis") == 0 ? LEVEL_ANALYSIS : carc_bot_level_find(name);
}

static const char *level_name(int level)
{
    return level == LEVEL_ANALYSIS ? "analysis" : carc_bot_level_name(level);
}

/* A worker's search workspaces: a bot's, and the analysis' (which holds one). */
struct worker {
    struct carc_bot_search bot;
    struct carc_analysis_work an;
};

/* The move of level for g->current. */
static int move_choose(struct worker *w, const struct carc_game *g, int level, uint64_t seed,
                       long budget, struct carc_move *out)
{
    if (level != LEVEL_ANALYSIS)
        return carc_bot_choose(&w->bot, g, level, seed, budget, NULL, out);
    struct carc_analysis_move r;
    int rc = carc_analysis_move_rate(&w->an, g, NULL, seed, 0, NULL, &r);
    if (rc == 0)
        *out = r.best;
    return rc;
}

struct match {
    int a, b;
    double min_rate; /* < 0: none */
};

struct options {
    long games;
    uint64_t seed;
    int jobs;
    long budget;
    int players;
    unsigned sets;
    double min_rate;
    int nmatches;
    struct match matches[MAX_MATCHES];
};

/* What one game sends back: outcome for A and the time spent per level. */
struct game_result {
    int32_t game;
    int32_t outcome; /* 1 A won, 0 tie, -1 A lost, -2 error */
    int32_t score_a, score_b;
    int64_t moves[2];   /* moves of A, of B */
    double secs[2];     /* their total time */
    double max_secs[2]; /* their slowest move */
};

static int usage(void)
{
    fprintf(stderr,
            "usage: carc-botbench [--games N] [--seed S] [--jobs J] [--budget B] [--players P]\n"
            "                     [--sets a,b|all] [--min-rate R] A:B[:RATE]...\n"
            "  Plays N games (default 200) of bot level A against B (random, greedy, strong,\n"
            "  analysis: the analysis' best move at its default budget)\n"
            "  with every set (or --sets), seats swapped in half of them, on J worker processes "
            "(default 2),\n"
            "  and prints A's win rate (ties count half) with a 95%% Wilson interval and the\n"
            "  time per move. Exits 1 when a rate is below RATE (or --min-rate R).\n");
    return EX_USAGE;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    if (s == NULL || s[0] == '\0' || s[0] == '-' || s[0] == '+')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < (unsigned long long)min || v > (unsigned long long)max)
        return -1;
    *out = (long)v;
    return 0;
}

static int parse_rate(const char *s, double *out)
{
    char *end;
    if (s == NULL || s[0] == '\0')
        return -1;
    double v = strtod(s, &end);
    if (*end != '\0' || !(v >= 0 && v <= 1))
        return -1;
    *out = v;
    return 0;
}

/* "A:B" or "A:B:RATE". */
static int parse_match(const char *s, struct match *m)
{
    char buf[64];
    if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf)
        return -1;
    char *b = strchr(buf, ':');
    if (b == NULL)
        return -1;
    *b++ = '\0';
    char *r = strchr(b, ':');
    if (r != NULL)
        *r++ = '\0';
    m->a = level_find(buf);
    m->b = level_find(b);
    m->min_rate = -1;
    if (m->a < 0 || m->b < 0 || (r != NULL && parse_rate(r, &m->min_rate) != 0))
        return -1;
    return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    long n;
    *o = (struct options){
        .games = 200, .jobs = 2, .players = 2, .sets = CARC_SETS_ALL, .min_rate = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--games") == 0 && parse_long(v, 1, 1000000, &n) == 0)
            o->games = n;
        else if (strcmp(a, "--seed") == 0 && parse_long(v, 0, (long)(INT64_MAX / 2), &n) == 0)
            o->seed = (uint64_t)n;
        else if (strcmp(a, "--jobs") == 0 && parse_long(v, 1, MAX_JOBS, &n) == 0)
            o->jobs = (int)n;
        else if (strcmp(a, "--budget") == 0 && parse_long(v, 0, 100000000, &n) == 0)
            o->budget = n;
        else if (strcmp(a, "--players") == 0 && parse_long(v, 2, CARC_MAX_PLAYERS, &n) == 0)
            o->players = (int)n;
        else if (strcmp(a, "--sets") == 0 && v != NULL && tool_sets_parse(v, &o->sets) == 0)
            ;
        else if (strcmp(a, "--min-rate") == 0 && parse_rate(v, &o->min_rate) == 0)
            ;
        else if (a[0] != '-' && o->nmatches < MAX_MATCHES &&
                 parse_match(a, &o->matches[o->nmatches]) == 0) {
            o->nmatches++;
            continue;
        } else
            return -1;
        i++;
    }
    return o->nmatches > 0 ? 0 : -1;
}

/* Play game k of match m; seat 0 is A in even games. */
static void play_game(const struct options *o, const struct match *m, long k, struct worker *w,
                      struct carc_game *g, struct game_result *r)
{
    uint64_t gseed = o->seed + (uint64_t)k;
    struct carc_config cfg = {.nplayers = o->players,
                              .sets = o->sets,
                              .escape_rule = CARC_ESCAPE_SIEGE_TILE,
                              .start = -1,
                              .seed = gseed};
    struct carc_error err = {0, ""};
    int a_seat = (int)(k % 2);
    memset(r, 0, sizeof *r);
    r->game = (int32_t)k;
    if (carc_game_init(g, &cfg, &err) < 0) {
        fprintf(stderr, "carc-botbench: game %ld: %s\n", k, err.text);
        r->outcome = -2;
        return;
    }
    while (g->phase != CARC_PHASE_OVER) {
        int p = g->current, side = p == a_seat ? 0 : 1;
        int level = side == 0 ? m->a : m->b;
        uint64_t seed = gseed * 0x9E3779B97F4A7C15ull + (uint64_t)g->turn * 8 + (uint64_t)p;
        struct carc_move mv;
        double t0 = now();
        int rc = move_choose(w, g, level, seed, o->budget, &mv);
        double dt = now() - t0;
        r->moves[side]++;
        r->secs[side] += dt;
        if (dt > r->max_secs[side])
            r->max_secs[side] = dt;
        if (rc != 0 || carc_game_play(g, &mv, &err) != 0) {
            fprintf(stderr, "carc-botbench: game %ld turn %d: %s bot move refused: %s\n", k,
                    g->turn, level_name(level), rc != 0 ? carc_err_name(rc) : err.text);
            r->outcome = -2;
            return;
        }
    }
    int32_t best_a = INT32_MIN, best_b = INT32_MIN;
    for (int p = 0; p < g->nplayers; p++) {
        int32_t s = g->players[p].score;
        if (p == a_seat)
            best_a = s;
        else if (s > best_b)
            best_b = s;
    }
    r->score_a = best_a;
    r->score_b = best_b;
    r->outcome = best_a > best_b ? 1 : best_a < best_b ? -1 : 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Worker j of the match: games j, j+jobs, ...; one result record each. */
static int worker(const struct options *o, const struct match *m, int j, int fd)
{
    struct worker *w = malloc(sizeof *w);
    struct carc_game *g = malloc(sizeof *g);
    if (w == NULL || g == NULL)
        return 1;
    for (long k = j; k < o->games; k += o->jobs) {
        struct game_result r;
        play_game(o, m, k, w, g, &r);
        if (write_all(fd, &r, sizeof r) != 0)
            return 1;
    }
    free(w);
    free(g);
    return 0;
}

struct tally {
    long games, wins, losses, ties, errors;
    long long score_a, score_b;
    int64_t moves[2];
    double secs[2], max_secs[2];
};

static void tally_add(struct tally *t, const struct game_result *r)
{
    if (r->outcome == -2) {
        t->errors++;
        return;
    }
    t->games++;
    t->wins += r->outcome == 1;
    t->losses += r->outcome == -1;
    t->ties += r->outcome == 0;
    t->score_a += r->score_a;
    t->score_b += r->score_b;
    for (int s = 0; s < 2; s++) {
        t->moves[s] += r->moves[s];
        t->secs[s] += r->secs[s];
        if (r->max_secs[s] > t->max_secs[s])
            t->max_secs[s] = r->max_secs[s];
    }
}

/* Run one match on o->jobs workers; the merged results go to *t. Returns 0,
 * or -1 when a worker could not be started or failed. */
static int run_match(const struct options *o, const struct match *m, struct tally *t)
{
    int fds[2];
    pid_t pids[MAX_JOBS];
    int jobs = o->jobs < o->games ? o->jobs : (int)o->games, started = 0, rc = 0;
    memset(t, 0, sizeof *t);
    if (pipe(fds) != 0) {
        perror("carc-botbench: pipe");
        return -1;
    }
    fflush(NULL);
    for (int j = 0; j < jobs; j++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("carc-botbench: fork");
            rc = -1;
            break;
        }
        if (pid == 0) {
            close(fds[0]);
            _exit(worker(o, m, j, fds[1]));
        }
        pids[started++] = pid;
    }
    close(fds[1]);
    /* Records are smaller than PIPE_BUF, so each write arrives whole. */
    struct game_result r;
    for (;;) {
        ssize_t n = read(fds[0], &r, sizeof r);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof r)
            break;
        tally_add(t, &r);
    }
    close(fds[0]);
    for (int j = 0; j < started; j++) {
        int status;
        while (waitpid(pids[j], &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            rc = -1;
    }
    if (t->errors > 0 || t->games != o->games)
        rc = -1;
    return rc;
}

/* 95% Wilson score interval of k successes in n trials. */
static void wilson(double k, double n, double *lo, double *hi)
{
    const double z = 1.959963984540054;
    double p = k / n, z2n = z * z / n;
    double centre = (p + z2n / 2) / (1 + z2n);
    double half = z * sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n);
    *lo = centre - half < 0 ? 0 : centre - half;
    *hi = centre + half > 1 ? 1 : centre + half;
}

static double ms(double secs, int64_t n)
{
    return n > 0 ? 1000.0 * secs / (double)n : 0;
}

int main(int argc, char **argv)
{
    struct options o;
    if (parse_args(argc, argv, &o) != 0)
        return usage();
    double t0 = now();
    int failed = 0, errors = 0;
    long total_games = 0;
    for (int i = 0; i < o.nmatches; i++) {
        const struct match *m = &o.matches[i];
        const char *an = level_name(m->a), *bn = level_name(m->b);
        struct tally t;
        double m0 = now();
        if (run_match(&o, m, &t) != 0) {
            fprintf(stderr, "carc-botbench: %s vs %s: a worker failed (%ld games, %ld errors)\n",
                    an, bn, t.games, t.errors);
            errors = 1;
            continue;
        }
        total_games += t.games;
        double rate = ((double)t.wins + 0.5 * (double)t.ties) / (double)t.games, lo, hi;
        wilson((double)t.wins + 0.5 * (double)t.ties, (double)t.games, &lo, &hi);
        double min_rate = m->min_rate >= 0 ? m->min_rate : o.min_rate;
        int below = min_rate >= 0 && rate < min_rate;
        failed |= below;
        printf("%s vs %s: %ld games, %s won %ld, lost %ld, tied %ld: %.1f%% [%.1f%%, %.1f%%] "
               "(95%% Wilson, ties count half); move time %s mean %.1f ms max %.0f ms, %s mean "
               "%.1f ms max %.0f ms; mean score %.1f to %.1f; %.1f s",
               an, bn, t.games, an, t.wins, t.losses, t.ties, 100 * rate, 100 * lo, 100 * hi, an,
               ms(t.secs[0], t.moves[0]), 1000 * t.max_secs[0], bn, ms(t.secs[1], t.moves[1]),
               1000 * t.max_secs[1], (double)t.score_a / (double)t.games,
               (double)t.score_b / (double)t.games, now() - m0);
        if (min_rate >= 0)
            printf(" (%s %.0f%%: %s)", below ? "below" : "at least", 100 * min_rate,
                   below ? "FAIL" : "ok");
        printf("\n");
        fflush(stdout);
    }
    printf("bench-bots: %d matchups, %ld games, %d jobs, strong budget %ld playouts, wall %.1f s: "
           "%s\n",
           o.nmatches, total_games, o.jobs, o.budget > 0 ? o.budget : (long)CARC_BOT_STRONG_BUDGET,
           now() - t0,
           errors   ? "ERROR"
           : failed ? "FAILED"
                    : "ok");
    return errors ? 2 : failed ? 1 : 0;
}
