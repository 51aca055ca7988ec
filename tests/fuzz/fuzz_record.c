/* fuzz_record.c: libFuzzer harness for the game-record reader followed by a
 * replay in the engine (protocol/record_json.c, common/).
 *
 * A record that loads is dumped and loaded again (the canonical form must read
 * back), then its moves are played; where they stop (an illegal move or the
 * end of the list) the game goes on with moves chosen from the engine's own
 * legal lists by a PRNG seeded from the input, so a fuzzed deck, start tile or
 * set of expansions is played to its end. carc_game_check runs after every
 * move: an overflow inside struct carc_game, which no sanitizer sees, breaks
 * one of its invariants. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "game.h"
#include "record.h"
#include "record_json.h"
#include "rng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct carc_record rec, again;
static struct carc_game game;

static void check(const struct carc_game *g, const char *when, int i)
{
    struct carc_error err = {0};
    if (carc_game_check(g, &err) < 0) {
        fprintf(stderr, "carc_game_check after %s %d: %s\n", when, i, err.text);
        abort();
    }
}

/* One legal move for the current player: placement k, maybe a meeple, sometimes a skip. */
static void choose(const struct carc_game *g, struct carc_rng *rng, struct carc_move *m)
{
    *m = (struct carc_move){.player = g->current, .tile = g->tile, .seg = -1};
    int n = carc_game_placements(g, g->tile, NULL, 0);
    struct carc_placement p;
    if (n <= 0 || carc_rng_below(rng, 32) == 0 ||
        carc_game_placement_nth(g, g->tile, (int)carc_rng_below(rng, (uint32_t)n), &p) != 0) {
        m->skip = 1;
        return;
    }
    m->x = p.x;
    m->y = p.y;
    m->rot = p.rot;
    unsigned spots = carc_game_meeple_spots(g, g->tile, p.x, p.y, p.rot);
    int s = (int)carc_rng_below(rng, CARC_MAX_SEGS + 1);
    if (s < CARC_MAX_SEGS && (spots >> s & 1)) {
        m->large = (int)carc_rng_below(rng, 2) && g->players[g->current].large > 0;
        if (m->large || g->players[g->current].meeples > 0)
            m->seg = s;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct proto_error perr;
    if (proto_record_load((const char *)data, size, 1 << 20, &rec, &perr) != 0)
        return 0;
    char *text = NULL;
    if (proto_record_dump(&rec, 0, &text, &perr) == 0) {
        if (proto_record_load(text, __builtin_strlen(text), 1 << 20, &again, &perr) != 0) {
            fprintf(stderr, "the dumped record does not load: %s\n%s\n", perr.text, text);
            abort();
        }
    }
    free(text);
    struct carc_error err = {0};
    if (carc_record_start(&rec, &game, &err) != 0)
        return 0;
    check(&game, "start", 0);
    int i = 0;
    for (; i < rec.nmoves && game.phase != CARC_PHASE_OVER; i++) {
        struct carc_move m;
        if (proto_record_move(&rec, i, &game, &m, &perr) != 0 ||
            carc_game_play(&game, &m, &err) != 0)
            break;
        check(&game, "move", i);
    }
    uint64_t seed = 1469598103934665603ull;
    for (size_t k = 0; k < size; k++)
        seed = (seed ^ data[k]) * 1099511628211ull;
    struct carc_rng rng;
    carc_rng_seed(&rng, seed);
    for (int steps = 0; game.phase != CARC_PHASE_OVER && steps < 4 * CARC_MAX_MOVES; steps++) {
        struct carc_move m;
        choose(&game, &rng, &m);
        if (carc_game_play(&game, &m, &err) != 0) {
            fprintf(stderr, "the engine refused its own legal move: %s\n", err.text);
            abort();
        }
        check(&game, "chosen move", steps);
    }
    return 0;
}
