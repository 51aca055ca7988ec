/* test_perft.c: the placement counts of the engine (carc_game_placements)
 * against golden counts from tests/gen/perft.py, an independent Python
 * implementation, and against the brute-force scan of moves_util.c, entry by
 * entry over real and synthetic games (tests/data/perft/NAME.{moves,txt}). */
#include <stdio.h>
#include <string.h>

#include "game.h"
#include "moves_util.h"
#include "tests.h"

static struct carc_game G; /* large: keep it off the stack */
static uint8_t deck_buf[CARC_MAX_TILES];

static const char *const perft_games[] = {
    "bga-366166200",    "bga-370417702",    "synth-all-random",   "synth-all-dense",
    "synth-all-dense3", "synth-base-dense", "synth-all-hostile5", "synth-all-hostile6",
};

static FILE *perft_open(const char *name, const char *ext)
{
    char path[256];
    snprintf(path, sizeof path, "tests/data/perft/%s.%s", name, ext);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s (run from the repository root)", path);
    return f;
}

START_TEST(perft_golden)
{
    const char *name = perft_games[_i];
    static struct {
        int tile, x, y, rot; /* rot -1: discarded when drawn */
    } e[CARC_MAX_TILES];
    struct carc_config c;
    cfg_base(&c, 2, 0);
    char line[256], a[32], b[32];
    int n = 0;
    FILE *f = perft_open(name, "moves");
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "sets ", 5) == 0) {
            for (char *tok = strtok(line + 5, " \n"); tok != NULL; tok = strtok(NULL, " \n")) {
                ck_assert_msg(carc_set_find(tok) >= 0, "set %s", tok);
                c.sets |= 1u << carc_set_find(tok);
            }
        } else if (line[0] != '#' && sscanf(line, "players %d", &c.nplayers) != 1) {
            ck_assert_int_lt(n, CARC_MAX_TILES);
            if (sscanf(line, "%31s %d %d %d", a, &e[n].x, &e[n].y, &e[n].rot) != 4) {
                ck_assert_msg(sscanf(line, "%31s %31s", a, b) == 2 && strcmp(b, "discard") == 0,
                              "%s.moves: bad line %s", name, line);
                e[n].rot = -1;
            }
            e[n].tile = tt(a);
            deck_buf[n] = (uint8_t)e[n].tile;
            n++;
        }
    }
    fclose(f);
    ck_assert_int_gt(n, 0);
    c.deck = deck_buf;
    c.deck_len = n;
    struct carc_error err = {0};
    ck_assert_msg(carc_game_init(&G, &c, &err) == 0, "%s", err.text);
    f = perft_open(name, "txt");
    int discards = 0;
    for (int i = 0; i < n; i++) {
        int k, want;
        ck_assert_msg(fgets(line, sizeof line, f) != NULL &&
                          sscanf(line, "%d %31s %d", &k, a, &want) == 3 && k == i &&
                          tt(a) == e[i].tile,
                      "%s.txt line %d does not match the moves", name, i + 1);
        int got = carc_game_placements(&G, e[i].tile, NULL, 0);
        ck_assert_msg(got == want, "%s entry %d (%s): engine %d placements, golden %d", name, i, a,
                      got, want);
        ck_assert_int_eq(brute_count(&G, e[i].tile), want);
        if (e[i].rot < 0) {
            ck_assert_int_eq(want, 0);
            ck_assert_msg(count_events(&G, CARC_EV_DISCARD) > 0, "%s entry %d: no discard event",
                          name, i);
            discards++;
            continue;
        }
        ck_assert_msg(G.tile == e[i].tile, "%s entry %d: drawn %s, want %s", name, i,
                      G.tile >= 0 ? carc_tiles[G.tile].id : "-", a);
        struct carc_move m = mv(&G, e[i].x, e[i].y, e[i].rot, NULL, 0);
        memset(&err, 0, sizeof err);
        ck_assert_msg(carc_game_play(&G, &m, &err) == 0, "%s entry %d: %s", name, i, err.text);
    }
    ck_assert_msg(fgets(line, sizeof line, f) == NULL, "%s.txt: too long", name);
    fclose(f);
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
    ck_assert_int_eq(G.turn + discards, n);
}
END_TEST

Suite *suite_perft(void)
{
    Suite *s = suite_create("perft");
    TCase *f = tcase_create("perft");
    tcase_set_timeout(f, 60);
    tcase_add_loop_test(f, perft_golden, 0, (int)(sizeof perft_games / sizeof perft_games[0]));
    suite_add_tcase(s, f);
    return s;
}
