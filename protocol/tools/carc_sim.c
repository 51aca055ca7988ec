/* carc-sim: play random games with the engine, for speed and for fuzzing.
 *
 * Usage: carc-sim [--games N] [--seed S] [--players P] [--sets a,b,c|all]
 *                 [--no-farmers] [--escape siege-tile|any-tile] [--escapes]
 *                 [--farms third|second|first] [--small-city 4|2] [--record FILE]
 *
 * Game k (0-based) shuffles its tiles from seed S+k; the players' choices come
 * from one separate PRNG seeded with S, so a run is reproducible. Each turn
 * picks a legal placement uniformly, then uniformly one of: no meeple, or a
 * normal / large meeple (when in the supply) on each free segment. With
 * --escapes and a siege set, half the turns also take back a knight when an
 * escape is legal (random_escape); it is off by default so that the benchmark
 * measures the engine's turn, not the sim's search for knights. The base set is always in play;
 * --sets adds others ("all" for every set). Defaults: 1 game, seed 0, 2 players (6 need
 * inns-cathedrals). --farms and --small-city choose the rule variants (RULES.md 2.8,
 * PROTOCOL.md create options), written into the record's options.
 * --record FILE writes the first game as a seed-based record (players P1..Pn).
 *
 * Output: a summary line, then exactly `games/s: <number> tiles/s: <number>`.
 * Exit status: 0, 2 the engine refused the configuration, 64 usage, 70 the
 * engine refused a move it had offered (an engine bug), 74 writing FILE failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record_json.h"
#include "tool_io.h"

#define EX_BAD 2
#define EX_USAGE 64
#define EX_SOFTWARE 70
#define EX_IOERR 74

struct options {
    long games;
    uint64_t seed;
    struct carc_record base; /* configuration shared by every game; seed set per game */
    const char *record_path;
    int escapes;
};

static struct carc_game game;
static struct carc_record first; /* the first game, as played */

static int usage(void)
{
    fprintf(stderr, "usage: carc-sim [--games N] [--seed S] [--players P] [--sets a,b,c|all]\n"
                    "                [--no-farmers] [--escape siege-tile|any-tile] [--escapes]\n"
                    "                [--farms third|second|first] [--small-city 4|2]\n"
                    "                [--record FILE]\n"
                    "  Plays N random games (seed S+k for game k) and prints a summary line and\n"
                    "  `games/s: .. tiles/s: ..`. --record writes the first game as a record.\n");
    return EX_USAGE;
}

static int parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    if (s == NULL || s[0] == '\0' || s[0] == '-' || s[0] == '+')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || v < (unsigned long long)min || v > (unsigned long long)max)
        return -1;
    *out = (long)v;
    return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    long n;
    o->games = 1;
    o->seed = 0;
    o->record_path = NULL;
    o->escapes = 0;
    memset(&o->base, 0, sizeof o->base);
    o->base.sets = 1u << CARC_SET_BASE;
    o->base.nplayers = 2;
    o->base.start = carc_tile_find("BA.D");
    o->base.has_seed = 1;
    o->base.escape_rule = CARC_ESCAPE_SIEGE_TILE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (strcmp(a, "--games") == 0 && parse_long(v, 1, 1000000000L, &n) == 0) {
            o->games = n;
        } else if (strcmp(a, "--seed") == 0 && parse_long(v, 0, (long)(INT64_MAX / 2), &n) == 0) {
            o->seed = (uint64_t)n; /* below INT64_MAX - games: every game's seed fits a record */
        } else if (strcmp(a, "--players") == 0 && parse_long(v, 1, CARC_MAX_PLAYERS, &n) == 0) {
            o->base.nplayers = (int)n;
        } else if (strcmp(a, "--sets") == 0 && v != NULL &&
                   tool_sets_parse(v, &o->base.sets) == 0) {
        } else if (strcmp(a, "--escape") == 0 && v != NULL && strcmp(v, "siege-tile") == 0) {
            o->base.escape_rule = CARC_ESCAPE_SIEGE_TILE;
        } else if (strcmp(a, "--escape") == 0 && v != NULL && strcmp(v, "any-tile") == 0) {
            o->base.escape_rule = CARC_ESCAPE_ANY_TILE;
        } else if (strcmp(a, "--farms") == 0 && v != NULL && strcmp(v, "third") == 0) {
            o->base.farm_rule = CARC_FARMS_THIRD;
        } else if (strcmp(a, "--farms") == 0 && v != NULL && strcmp(v, "second") == 0) {
            o->base.farm_rule = CARC_FARMS_SECOND;
        } else if (strcmp(a, "--farms") == 0 && v != NULL && strcmp(v, "first") == 0) {
            o->base.farm_rule = CARC_FARMS_FIRST;
        } else if (strcmp(a, "--small-city") == 0 && v != NULL &&
                   (strcmp(v, "4") == 0 || strcmp(v, "2") == 0)) {
            o->base.small_city = v[0] == '2';
        } else if (strcmp(a, "--record") == 0 && v != NULL) {
            o->record_path = v;
        } else if (strcmp(a, "--escapes") == 0) {
            o->escapes = 1;
            takes = 0;
        } else if (strcmp(a, "--no-farmers") == 0) {
            o->base.no_farmers = 1;
            takes = 0;
        } else {
            return -1;
        }
        i += takes;
    }
    for (int p = 0; p < o->base.nplayers; p++)
        snprintf(o->base.names[p], CARC_NAME_MAX, "P%d", p + 1);
    return 0;
}

/* Choose and build one random legal move of the current player. */
static void random_move(const struct carc_game *g, struct carc_rng *rng, struct carc_move *m)
{
    /* Count, then pick the k-th: uniform without building the whole list. */
    int n = carc_game_placements(g, g->tile, NULL, 0);
    if (n <= 0) {
        fprintf(stderr, "carc-sim: the drawn tile %s has no placement\n", carc_tiles[g->tile].id);
        exit(EX_SOFTWARE);
    }
    struct carc_placement chosen;
    carc_game_placement_nth(g, g->tile, (int)carc_rng_below(rng, (uint32_t)n), &chosen);
    const struct carc_placement *pl = &chosen;
    memset(m, 0, sizeof *m);
    m->player = g->current;
    m->tile = g->tile;
    m->x = pl->x;
    m->y = pl->y;
    m->rot = pl->rot;
    m->seg = -1;

    /* Choices: index 0 = none, then (segment, large) pairs. */
    int segs[2 * CARC_MAX_SEGS + 1], large[2 * CARC_MAX_SEGS + 1], k = 1;
    const struct carc_player *me = &g->players[g->current];
    unsigned spots = carc_game_meeple_spots(g, m->tile, m->x, m->y, m->rot);
    for (int s = 0; s < CARC_MAX_SEGS; s++) {
        if (!(spots & (1u << s)))
            continue;
        if (me->meeples > 0)
            segs[k] = s, large[k++] = 0;
        if (me->large > 0)
            segs[k] = s, large[k++] = 1;
    }
    uint32_t c = carc_rng_below(rng, (uint32_t)k);
    if (c > 0) {
        m->seg = segs[c];
        m->large = large[c];
    }
}

/* With a siege set in play, half the time take back one of the mover's knights
 * when the engine allows it (a knight on this turn's own tile is not tried).
 * Exercises escapes end to end: records then carry them through carc-replay. */
static void random_escape(const struct carc_game *g, struct carc_rng *rng, struct carc_move *m)
{
    const unsigned sieges =
        (1u << CARC_SET_BESIEGERS) | (1u << CARC_SET_CATHARS) | (1u << CARC_SET_SIEGE);
    if (!(g->sets & sieges) || carc_rng_below(rng, 2) == 0)
        return;
    struct carc_move c[CARC_MEEPLES + 1];
    int n = 0;
    for (int p = 0; p < g->ntiles && n < CARC_MEEPLES + 1; p++) {
        const struct carc_tile *t = &carc_tiles[g->placed[p].type];
        for (int s = 0; s < t->nsegs && n < CARC_MEEPLES + 1; s++) {
            int who = g->nodes[carc_game_node(g, p, s)].meeple & ~CARC_MEEPLE_LARGE;
            if (t->segs[s].kind != CARC_SEG_CITY || who != m->player + 1)
                continue;
            c[n] = *m;
            c[n].escape = 1;
            c[n].ex = g->placed[p].x;
            c[n].ey = g->placed[p].y;
            c[n].eseg = s;
            struct carc_error err = {0, ""};
            if (carc_game_escape_check(g, &c[n], &err) == 0)
                n++;
        }
    }
    if (n > 0)
        *m = c[carc_rng_below(rng, (uint32_t)n)];
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_record(const char *path, const struct carc_record *r)
{
    struct proto_error perr;
    char *text;
    proto_error_init(&perr);
    if (proto_record_dump(r, PROTO_DUMP_PRETTY, &text, &perr) != 0) {
        fprintf(stderr, "carc-sim: cannot encode the record: %s\n", perr.text);
        return EX_SOFTWARE;
    }
    FILE *f = fopen(path, "wb");
    int ok = f != NULL && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    free(text);
    if (!ok) {
        fprintf(stderr, "carc-sim: cannot write %s\n", path);
        return EX_IOERR;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    if (parse_args(argc, argv, &o) != 0)
        return usage();
    struct carc_rng rng;
    carc_rng_seed(&rng, o.seed);
    long long tiles = 0, total = 0;
    int32_t first_scores[CARC_MAX_PLAYERS] = {0};
    double t0 = now();
    for (long k = 0; k < o.games; k++) {
        struct carc_record *r = k == 0 ? &first : &o.base;
        struct carc_error cerr = {0, ""};
        if (k == 0)
            first = o.base;
        r->seed = o.seed + (uint64_t)k;
        if (carc_record_start(r, &game, &cerr) != 0) {
            fprintf(stderr, "carc-sim: %s: %s\n", carc_err_name(cerr.code), cerr.text);
            return EX_BAD;
        }
        while (game.phase != CARC_PHASE_OVER) {
            struct carc_move m;
            random_move(&game, &rng, &m);
            if (o.escapes)
                random_escape(&game, &rng, &m);
            if (carc_game_play(&game, &m, &cerr) != 0) {
                fprintf(stderr, "carc-sim: game %ld turn %d: engine refused %s at (%d,%d): %s\n", k,
                        game.turn, carc_tiles[m.tile].id, m.x, m.y, cerr.text);
                return EX_SOFTWARE;
            }
            if (k == 0 && first.nmoves < CARC_MAX_TILES)
                first.moves[first.nmoves++] = m;
            tiles++;
        }
        for (int p = 0; p < game.nplayers; p++) {
            total += game.players[p].score;
            if (k == 0)
                first_scores[p] = game.players[p].score;
        }
    }
    double secs = now() - t0;
    if (secs <= 0)
        secs = 1e-9;

    int np = o.base.nplayers;
    printf("games: %ld seed: %llu players: %d average final score: %.2f first game final scores: [",
           o.games, (unsigned long long)o.seed, np, (double)total / (double)(o.games * np));
    for (int p = 0; p < np; p++)
        printf("%s%d", p ? "," : "", (int)first_scores[p]);
    printf("]\n");
    printf("games/s: %.1f tiles/s: %.1f\n", (double)o.games / secs, (double)tiles / secs);
    if (o.record_path != NULL) {
        for (int i = 0; i < first.nmoves; i++)
            first.moves[i].player = 0; /* the record does not store players */
        int rc = write_record(o.record_path, &first);
        if (rc != 0)
            return rc;
    }
    return fflush(stdout) == 0 ? 0 : EX_IOERR;
}
