/* test_bounds.c: the worst cases of the engine's fixed arrays (game.h states
 * each bound and its proof) and the invariant checker, carc_game_check.
 *
 * Each test builds the worst case it names, plays it through the public API,
 * and runs carc_game_check after every move: an overflow inside struct
 * carc_game, where no sanitizer looks, breaks one of its invariants. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "game.h"
#include "moves_util.h"
#include "msg.h"
#include "record.h"
#include "record_json.h"
#include "rng.h"
#include "tests.h"

#define SET(s) (1u << CARC_SET_##s)

static struct carc_game G;
static struct carc_record R;
static uint8_t deck[CARC_MAX_DECK + 8];

static void checked(int line, const struct carc_game *g)
{
    struct carc_error err = {0};
    int rc = carc_game_check(g, &err);
    ck_assert_msg(rc == 0, "line %d: carc_game_check: %s", line, err.text);
}
#define CHECKED(g) checked(__LINE__, g)

static int init(struct carc_game *g, int nplayers, unsigned sets, int len)
{
    struct carc_config c;
    cfg_base(&c, nplayers, sets);
    c.deck = deck;
    c.deck_len = len;
    struct carc_error err = {0};
    return carc_game_init(g, &c, &err);
}

/* The drawn tile at (x, y) in the first rotation that is legal there. */
static int place(struct carc_game *g, int x, int y, const char *seg, int large)
{
    struct carc_error err = {0};
    int rc = CARC_E_EDGE;
    for (int rot = 0; rot < 4 && rc != 0; rot++) {
        struct carc_move m = mv(g, x, y, rot, seg, large);
        rc = carc_game_play(g, &m, &err);
    }
    return rc;
}

/* Is (x, y) a frontier entry? */
static int in_front(const struct carc_game *g, int x, int y)
{
    for (int i = 0; i < g->nfront; i++)
        if (g->front[i].x == x && g->front[i].y == y)
            return 1;
    return 0;
}

/* ---- the board read from g->placed alone, against the engine's grid ---- */

static int naive_at(const struct carc_game *g, int x, int y)
{
    for (int i = 0; i < g->ntiles; i++)
        if (g->placed[i].x == x && g->placed[i].y == y)
            return i;
    return -1;
}

static int on_board(int x, int y)
{
    return x >= -CARC_COORD_MAX && x <= CARC_COORD_MAX && y >= -CARC_COORD_MAX &&
           y <= CARC_COORD_MAX;
}

/* The constraint of empty cell (x, y), and whether t fits there with rot. */
static int naive_need(const struct carc_game *g, int x, int y)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    int need = 0;
    for (int d = 0; d < 4; d++) {
        int n = naive_at(g, x + dx[d], y + dy[d]);
        if (n >= 0)
            need |= carc_tile_edge(g->placed[n].type, g->placed[n].rot, (d + 2) & 3) << (2 * d);
    }
    return need;
}

static int naive_fits(const struct carc_game *g, int t, int x, int y, int rot)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    int touching = 0;
    if (!on_board(x, y) || naive_at(g, x, y) >= 0)
        return 0;
    for (int d = 0; d < 4; d++) {
        int n = naive_at(g, x + dx[d], y + dy[d]);
        if (n < 0)
            continue;
        touching++;
        if (carc_tile_edge(g->placed[n].type, g->placed[n].rot, (d + 2) & 3) !=
            carc_tile_edge(t, rot, d))
            return 0;
    }
    return touching > 0;
}

/* Tiles where they lie and nowhere else (the positions that share their slots
 * included), the frontier exactly the empty cells on the board next to a tile
 * with their constraints, and the legal placements of the drawn tile. */
static void naive_board(int line, const struct carc_game *g)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    int cells = 0;
    for (int i = 0; i < g->ntiles; i++) {
        const struct carc_placed *p = &g->placed[i];
        for (int ax = -2; ax <= 2; ax++)
            for (int ay = -2; ay <= 2; ay++) {
                int x = p->x + ax * CARC_GRID, y = p->y + ay * CARC_GRID;
                ck_assert_msg(carc_game_tile_at(g, x, y) == naive_at(g, x, y) + 1,
                              "line %d: tile at (%d,%d)", line, x, y);
            }
        for (int d = 0; d < 4; d++) {
            int x = p->x + dx[d], y = p->y + dy[d], dup = 0;
            if (!on_board(x, y) || naive_at(g, x, y) >= 0)
                continue;
            /* Count each empty cell once: at its first tile in placed order. */
            for (int j = 0; j < i && !dup; j++)
                for (int e = 0; e < 4; e++)
                    dup |= g->placed[j].x + dx[e] == x && g->placed[j].y + dy[e] == y;
            if (dup)
                continue;
            cells++;
            ck_assert_msg(carc_game_tile_at(g, x, y) == 0, "line %d: (%d,%d) is empty", line, x, y);
            int found = -1;
            for (int f = 0; f < g->nfront; f++)
                if (g->front[f].x == x && g->front[f].y == y)
                    found = f;
            ck_assert_msg(found >= 0, "line %d: (%d,%d) missing from the frontier", line, x, y);
            ck_assert_int_eq(g->front[found].need, naive_need(g, x, y));
        }
    }
    ck_assert_msg(cells == g->nfront, "line %d: %d frontier cells, nfront %d", line, cells,
                  g->nfront);
    if (g->tile < 0)
        return;
    static struct carc_placement pl[4 * CARC_MAX_FRONTIER];
    int n = carc_game_placements(g, g->tile, pl, 4 * CARC_MAX_FRONTIER), want = 0;
    for (int f = 0; f < g->nfront; f++)
        for (int rot = 0; rot < 4; rot++)
            want += naive_fits(g, g->tile, g->front[f].x, g->front[f].y, rot);
    ck_assert_msg(n == want, "line %d: %d placements, %d by the naive board", line, n, want);
    for (int i = 0; i < n; i++)
        ck_assert(naive_fits(g, g->tile, pl[i].x, pl[i].y, pl[i].rot));
}
#define NAIVE(g) naive_board(__LINE__, g)

/* The proofs of game.h lean on facts of the tile table: check them. */
START_TEST(bounds_tile_facts)
{
    for (int t = 0; t < carc_tiles_count; t++) {
        const struct carc_tile *T = &carc_tiles[t];
        int edged = 0, cloisters = 0;
        ck_assert_int_le(T->nsegs, CARC_MAX_SEGS);
        for (int s = 0; s < T->nsegs; s++) {
            int k = T->segs[s].kind;
            if (k == CARC_SEG_CITY || k == CARC_SEG_ROAD) {
                ck_assert_msg(T->segs[s].mask != 0, "%s %s touches no edge", T->id,
                              T->segs[s].name);
                edged++;
            }
            cloisters += k == CARC_SEG_CLOISTER;
        }
        /* One road or city per edge: a tile completes at most 4 of them. */
        ck_assert_int_le(edged, 4);
        ck_assert_int_le(cloisters, 1);
    }
    ck_assert_int_eq(CARC_MAX_FRONTIER, 2 * CARC_MAX_TILES + 2);
    /* Every position that ever takes a slot leaves an empty one to end a probe. */
    ck_assert_int_lt(CARC_MAX_TILES + CARC_MAX_FRONTIER, CARC_GRID * CARC_GRID);
}
END_TEST

/* An explicit deck holds at most CARC_MAX_DECK tiles, in the engine and in records:
 * the deck of issue 13 (127 tiles in an L, a frontier of 257) is refused. */
START_TEST(bounds_deck_limit)
{
    for (int i = 0; i < CARC_MAX_DECK + 2; i++)
        deck[i] = (uint8_t)tt("BA.U");
    ck_assert_int_eq(init(&G, 2, SET(BASE), CARC_MAX_DECK + 2), CARC_E_DECK);
    ck_assert_int_eq(init(&G, 2, SET(BASE), CARC_MAX_DECK + 1), CARC_E_DECK);
    ck_assert_int_eq(init(&G, 2, SET(BASE), CARC_MAX_DECK), 0);
    CHECKED(&G);

    for (int n = CARC_MAX_DECK; n <= CARC_MAX_DECK + 1; n++) {
        static char text[4096];
        int k = snprintf(text, sizeof text,
                         "{\"format\":\"carcassonne-game/1\",\"players\":[{\"name\":\"A\"},"
                         "{\"name\":\"B\"}],\"deck\":[");
        for (int i = 0; i < n; i++)
            k += snprintf(text + k, sizeof text - (size_t)k, "%s\"BA.U\"", i ? "," : "");
        snprintf(text + k, sizeof text - (size_t)k, "],\"moves\":[]}");
        struct proto_error perr;
        int rc = proto_record_load(text, strlen(text), sizeof text, &R, &perr);
        ck_assert_int_eq(rc, n == CARC_MAX_DECK ? 0 : CARC_E_DECK);
    }
}
END_TEST

/* The longest line: straight roads from the start tile east to the edge of the
 * board (x = CARC_COORD_MAX), then west with the rest of the deck. No frontier
 * entry lies past the edge, so the legal list and the move check agree there, and
 * the line with its frontier spans CARC_MAX_TILES + 1 columns without wrapping. */
START_TEST(bounds_longest_line)
{
    for (int i = 0; i < CARC_MAX_DECK; i++)
        deck[i] = (uint8_t)tt("BA.U");
    ck_assert_int_eq(init(&G, 2, SET(BASE), CARC_MAX_DECK), 0);
    for (int x = 1; x <= CARC_COORD_MAX; x++) {
        ck_assert_int_eq(place(&G, x, 0, NULL, 0), 0);
        CHECKED(&G);
        NAIVE(&G);
    }
    ck_assert(!in_front(&G, CARC_COORD_MAX + 1, 0));
    struct carc_placement pl[4 * CARC_MAX_FRONTIER];
    int n = carc_game_placements(&G, G.tile, pl, 4 * CARC_MAX_FRONTIER);
    for (int i = 0; i < n; i++)
        ck_assert_int_le(pl[i].x, CARC_COORD_MAX);
    ck_assert_int_eq(place(&G, CARC_COORD_MAX + 1, 0, NULL, 0), CARC_E_ADJACENT);
    int west = CARC_MAX_DECK - CARC_COORD_MAX;
    for (int x = -1; x >= -west; x--) {
        ck_assert(in_front(&G, x, 0));
        ck_assert_int_eq(place(&G, x, 0, NULL, 0), 0);
        CHECKED(&G);
        NAIVE(&G);
    }
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
    ck_assert_int_eq(G.ntiles, CARC_MAX_TILES);
    /* Columns -west-1 .. CARC_COORD_MAX are live, twice the grid's width: the
     * positions that share a home slot went down their probe sequences. */
    ck_assert_int_gt(CARC_COORD_MAX + west + 2, CARC_GRID);
    ck_assert_int_gt(G.displaced, 0);
    ck_assert(in_front(&G, -west - 1, 0));
    ck_assert_int_eq(G.nfront, 2 * CARC_MAX_TILES + 1);
    ck_assert_int_eq(G.players[0].score + G.players[1].score, 0);
}
END_TEST

/* Boards wider or taller than the grid, checked against the naive board after
 * every move: a column of 121 tiles south of the start tile; a road of 83 tiles
 * (the start tile's, 80 straight roads east and a crossroads at each end) whose
 * meeple scores all 83 when the second crossroads closes it; and the recorded
 * games of tests/data/games/line-*.json (every set, meeples, scoring: their
 * scores are checked by replay_real_games), which must displace positions. */
START_TEST(bounds_wrapping_board)
{
    for (int i = 0; i < CARC_COORD_MAX; i++)
        deck[i] = (uint8_t)tt("BA.U");
    ck_assert_int_eq(init(&G, 2, SET(BASE), CARC_COORD_MAX), 0);
    for (int y = 1; y <= CARC_COORD_MAX; y++) {
        ck_assert_int_eq(place(&G, 0, y, NULL, 0), 0);
        CHECKED(&G);
        NAIVE(&G);
    }
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
    ck_assert_int_gt(G.displaced, 0);

    int east = 80;
    for (int i = 0; i < east; i++)
        deck[i] = (uint8_t)tt("BA.U");
    deck[east] = deck[east + 1] = (uint8_t)tt("BA.X");
    ck_assert_int_eq(init(&G, 2, SET(BASE), east + 2), 0);
    for (int x = 1; x <= east; x++) {
        ck_assert_int_eq(place(&G, x, 0, x == 1 ? "r1" : NULL, 0), 0);
        CHECKED(&G);
        NAIVE(&G);
    }
    ck_assert_int_eq(place(&G, east + 1, 0, NULL, 0), 0);
    ck_assert_int_eq(G.players[0].score, 0);
    ck_assert_int_gt(G.displaced, 0);
    ck_assert_int_eq(place(&G, -1, 0, NULL, 0), 0);
    CHECKED(&G);
    NAIVE(&G);
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
    ck_assert_int_eq(count_events(&G, CARC_EV_SCORE), 1);
    ck_assert_int_eq(G.events[0].tiles, east + 3);
    ck_assert_int_eq(G.players[0].score, east + 3);
    ck_assert_int_eq(G.players[1].score, 0);

    static const char *const lines[] = {"line-east", "line-south", "line-both"};
    for (int k = 0; k < 3; k++) {
        char path[256];
        size_t len;
        snprintf(path, sizeof path, "%s/%s.json", TEST_GAMES_DIR, lines[k]);
        char *text = test_file_read(path, &len);
        ck_assert_msg(text != NULL, "cannot read %s", path);
        char *rec = proto_json_path_dump(text, len, "record");
        ck_assert(rec != NULL);
        struct proto_error perr;
        ck_assert_int_eq(proto_record_load(rec, strlen(rec), 1 << 20, &R, &perr), 0);
        struct carc_error err = {0};
        ck_assert_int_eq(carc_record_start(&R, &G, &err), 0);
        for (int i = 0; i < R.nmoves; i++) {
            ck_assert_msg(carc_record_step(&R, i, &G, &err) == 0, "%s move %d: %s", path, i,
                          err.text);
            CHECKED(&G);
            NAIVE(&G);
        }
        ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
        ck_assert_msg(G.displaced > 0, "%s fits the grid", path);
        free(rec);
        free(text);
    }
}
END_TEST

/* The largest frontier: a straight line of CARC_MAX_TILES tiles inside the board
 * reaches 2n + 2 = CARC_MAX_FRONTIER; an L of the same tiles (issue 13's shape)
 * stays one below. */
START_TEST(bounds_largest_frontier)
{
    for (int i = 0; i < CARC_MAX_DECK; i++)
        deck[i] = (uint8_t)tt("BA.U");
    ck_assert_int_eq(init(&G, 2, SET(BASE), CARC_MAX_DECK), 0);
    int east = CARC_MAX_DECK / 2 + 1, west = CARC_MAX_DECK - east;
    for (int i = 1; i <= east || i <= west; i++) {
        if (i <= east)
            ck_assert_int_eq(place(&G, i, 0, NULL, 0), 0);
        if (i <= west)
            ck_assert_int_eq(place(&G, -i, 0, NULL, 0), 0);
        CHECKED(&G);
        ck_assert_int_le(G.nfront, 2 * G.ntiles + 2);
    }
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
    ck_assert_int_eq(G.ntiles, CARC_MAX_TILES);
    ck_assert_int_eq(G.nfront, CARC_MAX_FRONTIER);

    /* The L: roads east along y = 0, then a curve and roads south along x = k. */
    int k = 60;
    for (int i = 0; i < CARC_MAX_DECK; i++)
        deck[i] = (uint8_t)tt(i < k - 1 ? "BA.U" : i == k - 1 ? "BA.V" : "BA.U");
    ck_assert_int_eq(init(&G, 2, SET(BASE), CARC_MAX_DECK), 0);
    for (int x = 1; x < k; x++)
        ck_assert_int_eq(place(&G, x, 0, NULL, 0), 0);
    /* BA.V is the curve: find the rotation joining W and S. */
    struct carc_error err = {0};
    int rc = -1;
    for (int rot = 0; rot < 4 && rc != 0; rot++) {
        if (carc_tile_edge(G.tile, rot, 3) != CARC_EDGE_ROAD ||
            carc_tile_edge(G.tile, rot, 2) != CARC_EDGE_ROAD)
            continue;
        struct carc_move m = mv(&G, k, 0, rot, NULL, 0);
        rc = carc_game_play(&G, &m, &err);
    }
    ck_assert_msg(rc == 0, "the curve: %s", err.text);
    for (int y = 1; G.phase != CARC_PHASE_OVER; y++) {
        ck_assert_int_eq(place(&G, k, y, NULL, 0), 0);
        CHECKED(&G);
    }
    ck_assert_int_eq(G.ntiles, CARC_MAX_TILES);
    ck_assert_int_eq(G.nfront, CARC_MAX_FRONTIER - 1);
}
END_TEST

/* The most events in one turn: 47 cloisters with meeples of six players, then one
 * move that completes a city, after which every other tile of the deck (all-city
 * tiles with nowhere to go) is discarded and the game ends: the city (when its tile
 * holds the meeple), the discards, one final event per cloister (and the farm, when
 * the tile's meeple is a farmer). Either way scorings and discards reach their
 * bound of CARC_MAX_TILES - 1 (game.h): every placed tile but the start tile came
 * with a meeple, and every tile of the deck was placed or discarded. */
static void most_events(const char *seg)
{
    int cloisters = 47, discards = CARC_MAX_TILES - 2 - cloisters;
    deck[0] = (uint8_t)tt("BA.E");
    for (int i = 1; i <= discards; i++)
        deck[i] = (uint8_t)tt("BA.C");
    ck_assert_int_eq(init(&G, 6, SET(BASE) | SET(INNS_CATHEDRALS), 1 + discards), 0);
    struct carc_error err = {0};
    int cl = tt("BA.B"), cseg = seg_of(cl, "cloister");
    for (int i = 0; i < cloisters; i++) {
        /* Players 1..5: all 8 meeples; player 0: 6 normal and the large one, so it
         * keeps one for the city. */
        int p = i < 40 ? 1 + i / 8 : 0, large = i < 40 ? i % 8 == 7 : i == 46;
        int x = i - cloisters / 2;
        int rc = carc_game_setup_place(&G, p, cl, x, 1, 0, cseg, large, &err);
        ck_assert_msg(rc == 0, "cloister %d: %s", i, err.text);
    }
    CHECKED(&G);
    int before = 0;
    for (int p = 0; p < 6; p++)
        before += G.players[p].score;
    ck_assert_int_eq(place(&G, 0, -1, seg, 0), 0);
    CHECKED(&G);
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
    ck_assert_int_eq(count_events(&G, CARC_EV_DISCARD), discards);
    int farmer = strcmp(seg, "f1") == 0, final = 0;
    for (int i = 0; i < G.nevents; i++)
        final += (G.events[i].flags & CARC_EVF_FINAL) != 0;
    ck_assert_int_eq(final, cloisters + farmer);
    ck_assert_int_eq(G.nevents, 1 + discards + cloisters);
    ck_assert_int_eq(G.nevents, CARC_MAX_TILES - 1);
    ck_assert_int_le(G.nevents, CARC_MAX_EVENTS);
    int sum = 0, after = 0;
    for (int i = 0; i < G.nevents; i++)
        for (int p = 0; p < 6; p++)
            sum += G.events[i].delta[p];
    for (int p = 0; p < 6; p++)
        after += G.players[p].score;
    ck_assert_int_eq(after - before, sum);
}

START_TEST(bounds_most_events)
{
    most_events("c1");
    most_events("f1");
}
END_TEST

/* The most open edges of one feature: a city of CARC_MAX_TILES all-city tiles in
 * a line (the start tile too) keeps 2 * CARC_MAX_TILES + 2 = 254 open, the most
 * struct carc_node's uint8_t holds (game.h); carc_game_check counts them after
 * every move. */
START_TEST(bounds_most_open)
{
    int city = tt("BA.C");
    for (int i = 0; i < CARC_MAX_DECK; i++)
        deck[i] = (uint8_t)city;
    struct carc_config c;
    cfg_base(&c, 2, SET(BASE));
    c.start = city;
    c.deck = deck;
    c.deck_len = CARC_MAX_DECK;
    struct carc_error err = {0};
    ck_assert_int_eq(carc_game_init(&G, &c, &err), 0);
    for (int i = 1; G.phase != CARC_PHASE_OVER; i++) {
        int y = i <= CARC_COORD_MAX ? -i : i - CARC_COORD_MAX;
        ck_assert_int_eq(place(&G, 0, y, NULL, 0), 0);
        CHECKED(&G);
    }
    ck_assert_int_eq(G.ntiles, CARC_MAX_TILES);
    int root = carc_game_feature(&G, carc_game_node(&G, 0, 0));
    ck_assert_int_eq(G.nodes[root].size, CARC_MAX_TILES);
    ck_assert_int_eq(G.nodes[root].open, 2 * CARC_MAX_TILES + 2);
}
END_TEST

/* The most feature nodes: a deck of the tile with the most segments, padded to
 * exactly CARC_MAX_NODES, played to its end; one more segment is refused. */
START_TEST(bounds_most_nodes)
{
    int most = 0, four = tt("BA.D");
    for (int t = 0; t < carc_tiles_count; t++)
        if (carc_tiles[t].nsegs > carc_tiles[most].nsegs)
            most = t;
    int left = CARC_MAX_NODES - carc_tiles[four].nsegs, n = 0;
    while (left > 0) {
        int best = -1;
        for (int t = 0; t < carc_tiles_count; t++)
            if (carc_tiles[t].nsegs <= left &&
                (best < 0 || carc_tiles[t].nsegs > carc_tiles[best].nsegs))
                best = t;
        ck_assert(best >= 0);
        deck[n++] = (uint8_t)best;
        left -= carc_tiles[best].nsegs;
    }
    ck_assert_int_le(n, CARC_MAX_DECK);
    ck_assert_int_eq(deck[0], most);
    ck_assert_int_eq(left, 0);
    deck[n] = (uint8_t)tt("BA.A");
    ck_assert_int_eq(init(&G, 2, CARC_SETS_ALL, n + 1), CARC_E_DECK);
    ck_assert_int_eq(init(&G, 2, CARC_SETS_ALL, n), 0);
    while (G.phase != CARC_PHASE_OVER) {
        struct carc_placement p;
        ck_assert_int_eq(carc_game_placement_nth(&G, G.tile, 0, &p), 0);
        struct carc_move m = mv(&G, p.x, p.y, p.rot, NULL, 0);
        struct carc_error err = {0};
        ck_assert_msg(carc_game_play(&G, &m, &err) == 0, "%s", err.text);
        CHECKED(&G);
    }
    ck_assert_int_eq(count_events(&G, CARC_EV_DISCARD), 0);
    ck_assert_int_eq(G.nnodes, CARC_MAX_NODES);
}
END_TEST

/* Setup tiles leave room for the deck still to come: tiles, nodes and frontier. */
START_TEST(bounds_setup_room)
{
    for (int i = 0; i < CARC_MAX_DECK; i++)
        deck[i] = (uint8_t)tt("BA.U");
    ck_assert_int_eq(init(&G, 2, SET(BASE), CARC_MAX_DECK), 0);
    struct carc_error err = {0};
    ck_assert_int_eq(carc_game_setup_place(&G, 0, tt("BA.U"), 1, 0, 0, -1, 0, &err), CARC_E_INVAL);
    ck_assert_int_eq(init(&G, 2, SET(BASE), CARC_MAX_DECK - 1), 0);
    ck_assert_int_eq(carc_game_setup_place(&G, 0, tt("BA.U"), 1, 0, 0, -1, 0, &err), 0);
    ck_assert_int_eq(carc_game_setup_place(&G, 0, tt("BA.U"), 2, 0, 0, -1, 0, &err), CARC_E_INVAL);
    CHECKED(&G);
    /* Far apart setup tiles would let the deck's line wrap around the grid. */
    ck_assert_int_eq(init(&G, 2, SET(BASE), 100), 0);
    ck_assert_int_eq(carc_game_setup_place(&G, 0, tt("BA.B"), 40, 5, 0, -1, 0, &err), CARC_E_INVAL);
    ck_assert_int_eq(carc_game_setup_place(&G, 0, tt("BA.B"), 20, 5, 0, -1, 0, &err), 0);
    CHECKED(&G);
}
END_TEST

/* The checker catches what an overflow inside the struct would do. */
START_TEST(bounds_check_catches)
{
    deck[0] = (uint8_t)tt("BA.U");
    deck[1] = (uint8_t)tt("BA.E");
    ck_assert_int_eq(init(&G, 2, SET(BASE), 2), 0);
    ck_assert_int_eq(place(&G, 1, 0, "r1", 0), 0);
    CHECKED(&G);
    static struct carc_game H;
    struct carc_error err = {0};
    H = G;
    H.nfront = (uint16_t)(CARC_MAX_FRONTIER + 1);
    ck_assert_int_eq(carc_game_check(&H, &err), CARC_E_INVAL);
    H = G;
    H.front[0].need ^= 0x3;
    ck_assert_int_eq(carc_game_check(&H, &err), CARC_E_INVAL);
    H = G;
    H.nodes[G.placed[1].node + seg_of(tt("BA.U"), "r1")].meeple = 0;
    ck_assert_int_eq(carc_game_check(&H, &err), CARC_E_INVAL);
    H = G;
    H.node_tile[1] = 1;
    ck_assert_int_eq(carc_game_check(&H, &err), CARC_E_INVAL);
    H = G;
    H.cells[5] = 1;
    ck_assert_int_eq(carc_game_check(&H, &err), CARC_E_INVAL);
}
END_TEST

/* Random games of every set, and the recorded real games, keep every invariant. */
static void random_game(uint64_t seed, unsigned sets, int nplayers)
{
    struct carc_config c;
    cfg_base(&c, nplayers, sets);
    c.seed = seed;
    struct carc_error err = {0};
    ck_assert_int_eq(carc_game_init(&G, &c, &err), 0);
    struct carc_rng rng;
    carc_rng_seed(&rng, seed);
    CHECKED(&G);
    while (G.phase != CARC_PHASE_OVER) {
        int n = carc_game_placements(&G, G.tile, NULL, 0);
        struct carc_placement p;
        ck_assert_int_eq(
            carc_game_placement_nth(&G, G.tile, (int)carc_rng_below(&rng, (uint32_t)n), &p), 0);
        unsigned spots = carc_game_meeple_spots(&G, G.tile, p.x, p.y, p.rot);
        int s = (int)carc_rng_below(&rng, CARC_MAX_SEGS);
        struct carc_move m = mv(&G, p.x, p.y, p.rot, NULL, 0);
        if ((spots >> s & 1) && G.players[G.current].meeples > 0)
            m.seg = s;
        ck_assert_msg(carc_game_play(&G, &m, &err) == 0, "seed %llu: %s", (unsigned long long)seed,
                      err.text);
        CHECKED(&G);
    }
}

START_TEST(bounds_random_games)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        random_game(seed, SET(BASE), 2 + (int)(seed % 4));
        random_game(seed, CARC_SETS_ALL, 2 + (int)(seed % 5));
    }
}
END_TEST

START_TEST(bounds_real_games)
{
    DIR *dir = opendir(TEST_GAMES_DIR);
    ck_assert(dir != NULL);
    int games = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (!test_has_suffix(e->d_name, ".json"))
            continue;
        char path[1024];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", TEST_GAMES_DIR, e->d_name);
        char *text = test_file_read(path, &len);
        ck_assert(text != NULL);
        char *rec = proto_json_path_dump(text, len, "record");
        ck_assert(rec != NULL);
        struct proto_error perr;
        ck_assert_int_eq(proto_record_load(rec, strlen(rec), 1 << 20, &R, &perr), 0);
        struct carc_error err = {0};
        ck_assert_int_eq(carc_record_start(&R, &G, &err), 0);
        CHECKED(&G);
        for (int i = 0; i < R.nmoves; i++) {
            ck_assert_msg(carc_record_step(&R, i, &G, &err) == 0, "%s move %d: %s", path, i,
                          err.text);
            CHECKED(&G);
        }
        free(rec);
        free(text);
        games++;
    }
    closedir(dir);
    ck_assert_int_ge(games, 2);
}
END_TEST

/* The inputs kept in tests/data/fuzz/ (the ones that once crashed a harness, and
 * the issue 13 decks) go through what their harness does before it explores:
 * decode a message; load, dump and reload a record, then replay it with the
 * invariants checked after every move. (`make fuzz` replays every harness's.) */
#define FUZZ_DIR "tests/data/fuzz"

static void fuzz_record_replay(const char *path, const char *text, size_t len)
{
    struct proto_error perr;
    if (proto_record_load(text, len, 1 << 20, &R, &perr) != 0)
        return;
    char *dumped = NULL;
    ck_assert_int_eq(proto_record_dump(&R, 0, &dumped, &perr), 0);
    static struct carc_record again;
    ck_assert_msg(proto_record_load(dumped, strlen(dumped), 1 << 20, &again, &perr) == 0,
                  "%s: the dumped record does not load: %s", path, perr.text);
    free(dumped);
    struct carc_error err = {0};
    if (carc_record_start(&R, &G, &err) != 0)
        return;
    CHECKED(&G);
    for (int i = 0; i < R.nmoves && carc_record_step(&R, i, &G, &err) == 0; i++)
        CHECKED(&G);
}

START_TEST(bounds_fuzz_regressions)
{
    static const char *const harnesses[] = {"msg", "record"};
    for (int h = 0; h < 2; h++) {
        char dirpath[256];
        snprintf(dirpath, sizeof dirpath, "%s/%s", FUZZ_DIR, harnesses[h]);
        DIR *dir = opendir(dirpath);
        if (dir == NULL)
            continue;
        for (struct dirent *e; (e = readdir(dir)) != NULL;) {
            if (e->d_name[0] == '.')
                continue;
            char path[512];
            size_t len;
            snprintf(path, sizeof path, "%s/%s", dirpath, e->d_name);
            char *text = test_file_read(path, &len);
            ck_assert_msg(text != NULL, "cannot read %s", path);
            if (h == 0) {
                struct proto_msg m;
                struct proto_error perr;
                proto_msg_decode(text, len, &m, &perr);
            } else {
                fuzz_record_replay(path, text, len);
            }
            free(text);
        }
        closedir(dir);
    }
}
END_TEST

Suite *suite_bounds(void)
{
    Suite *s = suite_create("bounds");
    TCase *tc = tcase_create("bounds");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, bounds_tile_facts);
    tcase_add_test(tc, bounds_deck_limit);
    tcase_add_test(tc, bounds_longest_line);
    tcase_add_test(tc, bounds_wrapping_board);
    tcase_add_test(tc, bounds_largest_frontier);
    tcase_add_test(tc, bounds_most_events);
    tcase_add_test(tc, bounds_most_open);
    tcase_add_test(tc, bounds_most_nodes);
    tcase_add_test(tc, bounds_setup_room);
    tcase_add_test(tc, bounds_check_catches);
    tcase_add_test(tc, bounds_random_games);
    tcase_add_test(tc, bounds_real_games);
    tcase_add_test(tc, bounds_fuzz_regressions);
    suite_add_tcase(s, tc);
    return s;
}
