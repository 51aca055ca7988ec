/* test_moves.c: legal placements, move validation, determinism and discards.
 *
 * Every rejected move must leave the game byte for byte as it was. The placement
 * counts are checked by hand on small boards and against the brute-force scan of
 * moves_util.c; test_perft.c checks them against golden counts from
 * tests/gen/perft.py. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "moves_util.h"
#include "tests.h"

#define SET(s) (1u << CARC_SET_##s)

static struct carc_game G, H, G2; /* large: keep them off the stack */
static uint8_t deck_buf[CARC_MAX_TILES];

/* Deck from space-separated ids into deck_buf; returns its length. */
static int deck_parse(const char *ids)
{
    int n = 0;
    char id[16];
    int used;
    while (sscanf(ids, " %15s%n", id, &used) == 1) {
        ck_assert_int_lt(n, CARC_MAX_TILES);
        deck_buf[n++] = (uint8_t)tt(id);
        ids += used;
    }
    return n;
}

static void start(struct carc_game *g, int nplayers, unsigned sets, int no_farmers, const char *ids)
{
    struct carc_config c;
    cfg_base(&c, nplayers, sets);
    c.no_farmers = no_farmers;
    c.deck = deck_buf;
    c.deck_len = deck_parse(ids);
    struct carc_error err = {0};
    int rc = carc_game_init(g, &c, &err);
    ck_assert_msg(rc == 0, "init: %s", err.text);
}

static void play_at(int line, struct carc_game *g, int x, int y, int rot, const char *seg,
                    int large)
{
    struct carc_move m = mv(g, x, y, rot, seg, large);
    struct carc_error err = {0};
    int rc = carc_game_play(g, &m, &err);
    ck_assert_msg(rc == 0, "line %d: play %s (%d,%d) rot %d: %s", line,
                  g->tile >= 0 ? carc_tiles[g->tile].id : "-", x, y, rot, err.text);
}
#define PLAY(g, x, y, rot, seg, large) play_at(__LINE__, g, x, y, rot, seg, large)

/* The move must fail with code and leave the game byte-identical. Returns the text. */
static const char *reject_at(int line, struct carc_game *g, const struct carc_move *m, int code)
{
    static struct carc_error err;
    memcpy(&H, g, sizeof H);
    memset(&err, 0, sizeof err);
    int rc = carc_game_play(g, m, &err);
    ck_assert_msg(rc == code, "line %d: got %s (%s), want %s", line, carc_err_name(rc), err.text,
                  carc_err_name(code));
    ck_assert_int_eq(err.code, code);
    ck_assert_msg(err.text[0] != '\0', "line %d: empty error text", line);
    ck_assert_msg(memcmp(g, &H, sizeof H) == 0, "line %d: rejected move changed the game", line);
    return err.text;
}
#define REJECT(g, m, code) reject_at(__LINE__, g, m, code)
#define REJ(g, x, y, rot, seg, large, code)                                                        \
    do {                                                                                           \
        struct carc_move m_ = mv(g, x, y, rot, seg, large);                                        \
        reject_at(__LINE__, g, &m_, code);                                                         \
    } while (0)

/* First meaningful difference between two games, or NULL. Skips the entries past the
 * used counts: init clears only the part before `front`. */
static const char *game_diff(const struct carc_game *a, const struct carc_game *b)
{
    if (memcmp(a, b, offsetof(struct carc_game, front)) != 0)
        return "scalars, players, deck or placed";
    if (memcmp(a->cells, b->cells, sizeof a->cells) != 0)
        return "cells";
    for (int i = 0; i < a->nfront; i++)
        if (a->front[i].cell != b->front[i].cell || a->front[i].need != b->front[i].need)
            return "front";
    if (memcmp(a->events, b->events, a->nevents * sizeof a->events[0]) != 0)
        return "events";
    if (a->nnodes != b->nnodes ||
        memcmp(a->node_tile, b->node_tile, a->nnodes * sizeof a->node_tile[0]) != 0)
        return "node_tile";
    for (int n = 0; n < a->nnodes; n++)
        if (a->nodes[n].meeple != b->nodes[n].meeple ||
            carc_game_feature(a, n) != carc_game_feature(b, n))
            return "nodes";
    return NULL;
}

static int check_placements(const struct carc_game *g, int t)
{
    static struct carc_placement pl[1024];
    int n = carc_game_placements(g, t, pl, 1024);
    ck_assert_int_eq(carc_game_placements(g, t, NULL, 0), n);
    ck_assert_msg(n == brute_count(g, t), "%s: engine %d, brute force %d", carc_tiles[t].id, n,
                  brute_count(g, t));
    for (int i = 0; i < n; i++) {
        ck_assert(brute_fits(g, t, pl[i].x, pl[i].y, pl[i].rot));
        for (int j = 0; j < i; j++)
            ck_assert(pl[i].x != pl[j].x || pl[i].y != pl[j].y || pl[i].rot != pl[j].rot);
    }
    return n;
}

/* ---- (a) placements ---- */

/* Rotations of t at (x, y) in the placement list, as a bitmask. */
static unsigned rots_at(const struct carc_placement *pl, int n, int x, int y)
{
    unsigned m = 0;
    for (int i = 0; i < n; i++)
        if (pl[i].x == x && pl[i].y == y)
            m |= 1u << pl[i].rot;
    return m;
}

START_TEST(placements_start_board)
{
    start(&G, 2, CARC_SETS_ALL, 0, "BA.U");
    /* Start BA.D: N city, E road, S field, W road; cells (0,-1) (1,0) (0,1) (-1,0) need
     * a city S, a road W, a field N, a road E. Rotation masks per cell, by hand: */
    static const struct {
        const char *id;
        int n;
        unsigned at[4]; /* north, east, south, west of the start */
    } cases[] = {
        {"BA.C", 4, {0xF, 0, 0, 0}},       /* all city: only north, any rotation */
        {"BA.B", 4, {0, 0, 0xF, 0}},       /* all field: only south */
        {"BA.X", 8, {0, 0xF, 0, 0xF}},     /* all road: east and west */
        {"BA.U", 6, {0, 0x5, 0x5, 0x5}},   /* FRFR: road level (0, 2) everywhere but north */
        {"BA.D", 6, {0x4, 0x5, 0x4, 0x5}}, /* CRFR: N and S only upside down */
        {"BA.E", 4, {0x4, 0, 0xE, 0}},     /* CFFF: N cap down; S unless the cap faces N */
    };
    static const int cx[4] = {0, 1, 0, -1}, cy[4] = {-1, 0, 1, 0};
    struct carc_placement pl[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = carc_game_placements(&G, tt(cases[i].id), pl, 64);
        ck_assert_msg(n == cases[i].n, "%s: %d placements", cases[i].id, n);
        for (int c = 0; c < 4; c++)
            ck_assert_msg(rots_at(pl, n, cx[c], cy[c]) == cases[i].at[c], "%s cell %d: 0x%X",
                          cases[i].id, c, rots_at(pl, n, cx[c], cy[c]));
    }
    /* In general: each of the 4 cells has one constrained side, and as the rotation runs
     * through 0..3 every edge of the tile comes to that side once. So the count is
     * #C (north) + #R (east) + #F (south) + #R (west) = 4 + #R. */
    for (int t = 0; t < carc_tiles_count; t++) {
        int roads = 0;
        for (int d = 0; d < 4; d++)
            roads += carc_tile_edge(t, 0, d) == CARC_EDGE_ROAD;
        ck_assert_msg(carc_game_placements(&G, t, NULL, 0) == 4 + roads, "%s", carc_tiles[t].id);
        check_placements(&G, t);
    }
}
END_TEST

START_TEST(placements_buffer_bounds)
{
    start(&G, 2, SET(BASE), 0, "BA.U");
    struct carc_placement pl[16];
    memset(pl, 0x5A, sizeof pl);
    int n = carc_game_placements(&G, tt("BA.X"), pl, 3);
    ck_assert_int_eq(n, 8); /* the full count, even when the buffer is short */
    for (int i = 0; i < 3; i++)
        ck_assert(brute_fits(&G, tt("BA.X"), pl[i].x, pl[i].y, pl[i].rot));
    for (int i = 3; i < 16; i++) {
        const unsigned char *b = (const unsigned char *)&pl[i];
        for (size_t k = 0; k < sizeof pl[i]; k++)
            ck_assert_msg(b[k] == 0x5A, "entry %d written past max", i);
    }
    ck_assert_int_eq(carc_game_placements(&G, tt("BA.X"), pl, 0), 8);
    ck_assert_int_eq(carc_game_placements(&G, tt("BA.X"), NULL, 0), 8);
}
END_TEST

/* A hole with a neighbour on every side: N field (start's S), E road, S city, W road.
 * Only FRCR fits: BA.D upside down. */
START_TEST(placements_hole_four_sides)
{
    start(&G, 2, SET(BASE), 0, "BA.D BA.U");
    struct carc_error err = {0};
    ck_assert_int_eq(carc_game_setup_place(&G, 1, tt("BA.U"), -1, 1, 0, -1, 0, &err), 0);
    ck_assert_int_eq(carc_game_setup_place(&G, 1, tt("BA.U"), 1, 1, 0, -1, 0, &err), 0);
    ck_assert_int_eq(carc_game_setup_place(&G, 1, tt("BA.E"), 0, 2, 0, -1, 0, &err), 0);
    struct carc_placement pl[128];
    for (int t = 0; t < carc_tiles_count; t++) {
        int n = check_placements(&G, t);
        ck_assert_int_le(n, 128);
        carc_game_placements(&G, t, pl, 128);
        unsigned want = strcmp(carc_tiles[t].id, "BA.D") == 0 ? 0x4 : 0;
        if (strcmp(carc_tiles[t].id, "CA.02") == 0 || strcmp(carc_tiles[t].id, "SG.02") == 0 ||
            strcmp(carc_tiles[t].id, "AT.03") == 0)
            want = 0x4; /* the same layout */
        ck_assert_msg(rots_at(pl, n, 0, 1) == want, "%s at the hole: 0x%X", carc_tiles[t].id,
                      rots_at(pl, n, 0, 1));
    }
    ck_assert_int_eq(G.tile, tt("BA.D"));
    for (int rot = 0; rot < 4; rot += 1 + (rot == 1)) {
        REJ(&G, 0, 1, rot, NULL, 0, CARC_E_EDGE);
    }
    PLAY(&G, 0, 1, 2, "c1", 0);
    ck_assert_int_eq(carc_game_tile_at(&G, 0, 1), 5);
}
END_TEST

/* ---- (b) validation: one case per error code ---- */

/* Does text name side c as a word ("on the N side")? */
static int names_side(const char *text, char c)
{
    for (const char *p = text; (p = strchr(p, c)) != NULL; p++) {
        int before =
            p == text || !((p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= 'a' && p[-1] <= 'z'));
        int after = !((p[1] >= 'A' && p[1] <= 'Z') || (p[1] >= 'a' && p[1] <= 'z'));
        if (before && after)
            return 1;
    }
    return 0;
}

START_TEST(reject_placement_errors)
{
    start(&G, 2, SET(BASE), 0, "BA.U BA.U");
    ck_assert_int_eq(G.tile, tt("BA.U"));
    ck_assert_int_eq(G.current, 0);
    struct carc_move m = mv(&G, 1, 0, 0, NULL, 0);
    m.player = 1;
    REJECT(&G, &m, CARC_E_TURN);
    m.player = 5;
    REJECT(&G, &m, CARC_E_TURN);
    m = mv(&G, 1, 0, 0, NULL, 0);
    m.tile = tt("BA.V");
    REJECT(&G, &m, CARC_E_TILE);
    m.tile = -1;
    REJECT(&G, &m, CARC_E_TILE);
    m.tile = 250;
    REJECT(&G, &m, CARC_E_TILE);
    REJ(&G, 0, 0, 0, NULL, 0, CARC_E_TAKEN);
    REJ(&G, 1, 1, 1, NULL, 0, CARC_E_ADJACENT); /* corner contact only */
    REJ(&G, 2, 0, 0, NULL, 0, CARC_E_ADJACENT);
    REJ(&G, 500, -3, 0, NULL, 0, CARC_E_ADJACENT);
    REJ(&G, 1, 0, 4, NULL, 0, CARC_E_ROT);
    REJ(&G, 1, 0, -1, NULL, 0, CARC_E_ROT);
    REJ(&G, 1, 0, 90, NULL, 0, CARC_E_ROT); /* degrees are not quarter turns */

    /* One neighbour at a time, so the mismatching side is known. BA.U is FRFR. */
    static const struct {
        int x, y, rot;
        char side;
    } edge[] = {
        {0, 1, 1, 'N'},  /* road N against the start's S field */
        {-1, 0, 1, 'E'}, /* field E against the start's W road */
        {0, -1, 0, 'S'}, /* field S against the start's N city */
        {1, 0, 1, 'W'},  /* field W against the start's E road */
    };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        m = mv(&G, edge[i].x, edge[i].y, edge[i].rot, NULL, 0);
        const char *text = REJECT(&G, &m, CARC_E_EDGE);
        ck_assert_msg(names_side(text, edge[i].side), "'%s' does not name side %c", text,
                      edge[i].side);
        for (size_t j = 0; j < sizeof edge / sizeof edge[0]; j++)
            if (j != i)
                ck_assert_msg(!names_side(text, edge[j].side), "'%s' names side %c", text,
                              edge[j].side);
    }
    PLAY(&G, 1, 0, 2, NULL, 0);
    ck_assert_int_eq(G.current, 1);
    ck_assert_int_eq(G.turn, 1);
}
END_TEST

START_TEST(reject_meeple_errors)
{
    start(&G, 2, SET(BASE), 0, "BA.U BA.U BA.U BA.U");
    int u = tt("BA.U");
    struct carc_move m = mv(&G, 1, 0, 0, NULL, 0);
    m.seg = carc_tiles[u].nsegs;
    REJECT(&G, &m, CARC_E_FEATURE);
    m.seg = 99;
    REJECT(&G, &m, CARC_E_FEATURE);
    REJ(&G, 1, 0, 0, "r1", 1, CARC_E_LARGE_SET);
    /* the start tile's road and fields are free */
    ck_assert_uint_eq(carc_game_meeple_spots(&G, u, 1, 0, 0), 0x7);
    PLAY(&G, 1, 0, 0, "r1", 0);
    ck_assert_int_eq(G.players[0].meeples, CARC_MEEPLES - 1);
    /* west end of the same road: the road is taken, its two fields are not */
    ck_assert_uint_eq(carc_game_meeple_spots(&G, u, -1, 0, 0), 0x6);
    ck_assert_uint_eq(carc_game_meeple_spots(&G, u, -1, 0, 2), 0x6);
    REJ(&G, -1, 0, 0, "r1", 0, CARC_E_OCCUPIED);
    REJ(&G, -1, 0, 2, "r1", 0, CARC_E_OCCUPIED); /* turned round: still the same road */
    PLAY(&G, -1, 0, 0, "f2", 0);                 /* a farmer south of the road */
    ck_assert_int_eq(G.players[1].meeples, CARC_MEEPLES - 1);
    /* east again: the south field (through the start tile) now holds player 1's farmer */
    ck_assert_uint_eq(carc_game_meeple_spots(&G, u, 2, 0, 0), 0x2);
    REJ(&G, 2, 0, 0, "f2", 0, CARC_E_OCCUPIED);
    REJ(&G, 2, 0, 2, "f1", 0, CARC_E_OCCUPIED); /* rot 2: f1 is the south field */
    PLAY(&G, 2, 0, 2, "f2", 0);                 /* rot 2: f2 is the north field, free */
}
END_TEST

START_TEST(reject_no_farmers)
{
    int u = tt("BA.U");
    start(&G, 2, SET(BASE), 1, "BA.U BA.U");
    ck_assert_int_eq(G.farmers, 0);
    ck_assert_uint_eq(carc_game_meeple_spots(&G, u, 1, 0, 0), 0x1); /* no fields */
    REJ(&G, 1, 0, 0, "f1", 0, CARC_E_NO_FARMERS);
    REJ(&G, 1, 0, 0, "f2", 0, CARC_E_NO_FARMERS);
    PLAY(&G, 1, 0, 0, "r1", 0);
    /* control: the same farmer with farmers on */
    start(&G2, 2, SET(BASE), 0, "BA.U BA.U");
    PLAY(&G2, 1, 0, 0, "f1", 0);
}
END_TEST

START_TEST(large_meeple)
{
    start(&G, 2, SET(BASE) | SET(INNS_CATHEDRALS), 0, "BA.U BA.U BA.B BA.U");
    ck_assert_int_eq(G.players[0].large, 1);
    ck_assert_int_eq(G.players[1].large, 1);
    PLAY(&G, 1, 0, 0, "r1", 1);
    ck_assert_int_eq(G.players[0].large, 0);
    ck_assert_int_eq(G.players[0].meeples, CARC_MEEPLES);
    PLAY(&G, -1, 0, 0, "f1", 1); /* player 1's large farmer north of the road */
    ck_assert_int_eq(G.players[1].large, 0);
    REJ(&G, 1, 1, 0, "cloister", 1, CARC_E_NO_MEEPLE); /* player 0's large one is out */
    PLAY(&G, 1, 1, 0, "cloister", 0);
    ck_assert_int_eq(G.players[0].meeples, CARC_MEEPLES - 1);
}
END_TEST

/* Player 0 puts a monk or knight on a fresh feature every turn (row y=1), player 1
 * extends the start road east without meeples. Nothing ever completes. */
START_TEST(reject_no_meeple)
{
    start(&G, 2, SET(BASE), 0,
          "BA.B BA.U BA.B BA.U BA.B BA.U BA.B BA.U BA.A BA.U BA.A BA.U BA.E BA.U BA.E BA.U");
    for (int i = 0; i < 7; i++) {
        const char *id = carc_tiles[G.tile].id;
        PLAY(&G, i, 1, strcmp(id, "BA.E") == 0 ? 2 : 0, strcmp(id, "BA.E") == 0 ? "c1" : "cloister",
             0);
        ck_assert_int_eq(G.players[0].meeples, CARC_MEEPLES - 1 - i);
        PLAY(&G, i + 1, 0, 0, NULL, 0);
    }
    ck_assert_int_eq(G.players[0].meeples, 0);
    ck_assert_int_eq(G.players[1].meeples, CARC_MEEPLES);
    ck_assert_int_eq(G.tile, tt("BA.E"));
    ck_assert_uint_ne(carc_game_meeple_spots(&G, G.tile, 7, 1, 2), 0); /* free, but no supply */
    REJ(&G, 7, 1, 2, "c1", 0, CARC_E_NO_MEEPLE);
    REJ(&G, 7, 1, 2, "f1", 0, CARC_E_NO_MEEPLE);
    PLAY(&G, 7, 1, 2, NULL, 0); /* a player with an empty supply still places tiles */
    PLAY(&G, 8, 0, 0, "r1", 0); /* the road is free: nobody took it */
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
}
END_TEST

START_TEST(reject_after_game_over)
{
    start(&G, 2, SET(BASE), 0, "BA.U");
    ck_assert_int_eq(carc_game_tiles_left(&G), 0);
    PLAY(&G, 1, 0, 0, NULL, 0);
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
    ck_assert_int_eq(G.tile, -1);
    struct carc_move m = mv(&G, -1, 0, 0, NULL, 0);
    m.tile = tt("BA.U");
    REJECT(&G, &m, CARC_E_OVER);
    m.player = 0;
    REJECT(&G, &m, CARC_E_OVER);
}
END_TEST

static int init_rc(struct carc_config *c)
{
    static struct carc_error err;
    memset(&err, 0, sizeof err);
    int rc = carc_game_init(&G, c, &err);
    ck_assert_int_eq(err.code, rc);
    if (rc != 0)
        ck_assert(err.text[0] != '\0');
    return rc;
}

START_TEST(init_errors)
{
    struct carc_config c;
    static const struct {
        int np;
        unsigned sets;
        int code;
    } cases[] = {
        {-1, SET(BASE), CARC_E_PLAYERS},
        {0, SET(BASE), CARC_E_PLAYERS},
        {1, SET(BASE), CARC_E_PLAYERS},
        {6, SET(BASE), CARC_E_PLAYERS},
        {7, SET(BASE), CARC_E_PLAYERS},
        {6, SET(BASE) | SET(BESIEGERS), CARC_E_PLAYERS},
        {7, CARC_SETS_ALL, CARC_E_PLAYERS},
        {2, SET(BASE), 0},
        {5, SET(BASE), 0},
        {6, SET(BASE) | SET(INNS_CATHEDRALS), 0},
        {2, 0, 0}, /* 0 means base */
        {2, SET(BASE) | (1u << CARC_SET_COUNT), CARC_E_SETS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cfg_base(&c, cases[i].np, cases[i].sets);
        ck_assert_msg(init_rc(&c) == cases[i].code, "case %zu", i);
        if (cases[i].code == 0) {
            ck_assert_int_eq(G.nplayers, cases[i].np);
            ck_assert_uint_eq(G.sets, cases[i].sets ? cases[i].sets : SET(BASE));
        }
    }

    /* a deck naming a tile outside the sets */
    cfg_base(&c, 2, SET(BASE));
    c.deck = deck_buf;
    c.deck_len = deck_parse("BA.U IC.01 BA.E");
    ck_assert_int_eq(init_rc(&c), CARC_E_DECK);
    c.deck_len = deck_parse("BA.U AT.06");
    ck_assert_int_eq(init_rc(&c), CARC_E_DECK);
    deck_buf[1] = 250;
    ck_assert_int_eq(init_rc(&c), CARC_E_DECK);
    c.deck_len = deck_parse("BA.U IC.01 BA.E");
    c.sets = SET(BASE) | SET(INNS_CATHEDRALS);
    ck_assert_int_eq(init_rc(&c), 0);
    c.deck_len = CARC_MAX_TILES; /* with the start tile: one too many */
    ck_assert_int_eq(init_rc(&c), CARC_E_DECK);
    /* Node capacity: every tile of every set fits; a deck of the tile with the
     * most segments, over and over, does not. */
    int all_segs = 0, most = 0;
    for (int t = 0; t < carc_tiles_count; t++) {
        all_segs += carc_tiles[t].count * carc_tiles[t].nsegs;
        if (carc_tiles[t].nsegs > carc_tiles[most].nsegs)
            most = t;
    }
    ck_assert_int_le(all_segs + CARC_MAX_SEGS, CARC_MAX_NODES);
    cfg_base(&c, 2, CARC_SETS_ALL);
    c.deck = deck_buf;
    c.deck_len = CARC_MAX_NODES / carc_tiles[most].nsegs + 1;
    for (int i = 0; i < c.deck_len; i++)
        deck_buf[i] = (uint8_t)most;
    ck_assert_int_lt(c.deck_len, CARC_MAX_TILES);
    ck_assert_int_eq(init_rc(&c), CARC_E_DECK);
    c.deck_len = (CARC_MAX_NODES - 4) / carc_tiles[most].nsegs; /* BA.D has 4 */
    ck_assert_int_eq(init_rc(&c), 0);

    cfg_base(&c, 2, SET(BASE));
    c.escape_rule = 9;
    ck_assert_int_eq(init_rc(&c), CARC_E_INVAL);
}
END_TEST

START_TEST(init_state)
{
    start(&G, 3, SET(BASE) | SET(INNS_CATHEDRALS), 0, "BA.E IC.01 BA.U");
    ck_assert_int_eq(G.nplayers, 3);
    ck_assert_int_eq(G.phase, CARC_PHASE_PLACE);
    ck_assert_int_eq(G.current, 0);
    ck_assert_int_eq(G.turn, 0);
    ck_assert_int_eq(G.tile, tt("BA.E"));
    ck_assert_int_eq(carc_game_tiles_left(&G), 2);
    ck_assert_int_eq(G.ntiles, 1);
    const struct carc_placed want = {(uint8_t)tt("BA.D"), 0, 0, 0, 0xFF, 0, 0};
    ck_assert(memcmp(&G.placed[0], &want, sizeof want) == 0); /* BA.D rot 0 at (0,0) */
    ck_assert_int_eq(carc_game_tile_at(&G, 0, 0), 1);
    ck_assert_int_eq(carc_game_tile_at(&G, 1, 0), 0);
    for (int p = 0; p < 3; p++) {
        ck_assert_int_eq(G.players[p].score, 0);
        ck_assert_int_eq(G.players[p].meeples, CARC_MEEPLES);
        ck_assert_int_eq(G.players[p].large, 1);
    }
    PLAY(&G, 0, 1, 2, NULL, 0); /* BA.E cap down, south of the start */
    ck_assert_int_eq(G.current, 1);
    ck_assert_int_eq(G.tile, tt("IC.01"));
    PLAY(&G, 0, -1, 0, NULL, 0);
    ck_assert_int_eq(G.current, 2);
    PLAY(&G, 1, 0, 0, NULL, 0);
    ck_assert_int_eq(G.current, 0);
    ck_assert_int_eq(G.turn, 3);
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
}
END_TEST

/* ---- (c) determinism ---- */

static void seeded(struct carc_game *g, int nplayers, unsigned sets, uint64_t seed, int no_farmers)
{
    struct carc_config c;
    cfg_base(&c, nplayers, sets);
    c.seed = seed;
    c.no_farmers = no_farmers;
    ck_assert_int_eq(carc_game_init(g, &c, NULL), 0);
}

START_TEST(deck_from_seed)
{
    static const unsigned setss[] = {SET(BASE), CARC_SETS_ALL,
                                     SET(BASE) | SET(INNS_CATHEDRALS) | SET(CATHARS)};
    for (size_t k = 0; k < sizeof setss / sizeof setss[0]; k++) {
        unsigned sets = setss[k];
        seeded(&G, 2, sets, 42, 0);
        seeded(&G2, 2, sets, 42, 0);
        ck_assert(game_diff(&G, &G2) == NULL);
        int want = -1, have[256] = {0};
        for (int t = 0; t < carc_tiles_count; t++)
            if (sets & (1u << carc_tiles[t].set))
                want += carc_tiles[t].count;
        ck_assert_int_eq(G.deck_len, want);
        ck_assert_int_eq(carc_game_tiles_left(&G), want - 1);
        ck_assert_int_eq(G.tile, G.deck[0]);
        for (int i = 0; i < G.deck_len; i++)
            have[G.deck[i]]++;
        for (int t = 0; t < carc_tiles_count; t++) {
            int c = (sets & (1u << carc_tiles[t].set)) ? carc_tiles[t].count : 0;
            c -= strcmp(carc_tiles[t].id, "BA.D") == 0;
            ck_assert_msg(have[t] == c, "%s: %d in the deck, want %d", carc_tiles[t].id, have[t],
                          c);
        }
        seeded(&G2, 2, sets, 43, 0);
        ck_assert(memcmp(G.deck, G2.deck, G.deck_len) != 0);
        seeded(&G2, 2, sets, 42ull | (1ull << 40), 0); /* all 64 bits of the seed matter */
        ck_assert(memcmp(G.deck, G2.deck, G.deck_len) != 0);
    }
    ck_assert_int_eq(G.deck_len, 71 + 18 + 4); /* last: base + I&C + Cathars - start */
    seeded(&G, 2, CARC_SETS_ALL, 1, 0);
    ck_assert_int_eq(G.deck_len, 115);
}
END_TEST

/* The shuffle is a stable part of the record format: a stored seed must give the same
 * deck forever. Reference: catalogue order minus one BA.D, Fisher-Yates from the top
 * with carc_rng_below(i + 1), recomputed by an independent Python implementation. */
START_TEST(deck_pinned)
{
    static const struct {
        uint64_t seed;
        unsigned sets;
        const char *head;
    } pins[] = {
        {1234, SET(BASE), "BA.B BA.K BA.H BA.V BA.K BA.D BA.J BA.B BA.M BA.N BA.E BA.V"},
        {77, CARC_SETS_ALL, "BA.Q IC.13 BA.P BA.O BA.L BA.W BA.E BA.K AT.12 BA.E CA.02 BA.S"},
    };
    for (size_t k = 0; k < sizeof pins / sizeof pins[0]; k++) {
        seeded(&G, 2, pins[k].sets, pins[k].seed, 0);
        int n = deck_parse(pins[k].head);
        for (int i = 0; i < n; i++)
            ck_assert_msg(G.deck[i] == deck_buf[i], "seed %llu deck[%d]: %s, want %s",
                          (unsigned long long)pins[k].seed, i, carc_tiles[G.deck[i]].id,
                          carc_tiles[deck_buf[i]].id);
    }
}
END_TEST

/* Plays a whole game with moves drawn from rng: random placement, random free segment
 * or none, sometimes the large meeple. Checks placements against the oracle and that
 * meeple_spots agrees with what play accepts. */
static void random_game(struct carc_game *g, uint64_t seed, int check)
{
    struct carc_rng r;
    carc_rng_seed(&r, seed ^ 0x9E3779B97F4A7C15ull);
    static struct carc_placement pl[1024];
    int steps = 0;
    while (g->phase == CARC_PHASE_PLACE) {
        ck_assert_int_ge(g->tile, 0);
        int t = g->tile;
        int n = check ? check_placements(g, t) : carc_game_placements(g, t, pl, 1024);
        ck_assert_msg(n > 0, "a drawn tile must fit somewhere");
        carc_game_placements(g, t, pl, 1024);
        struct carc_placement p = pl[carc_rng_below(&r, (uint32_t)n)];
        unsigned spots = carc_game_meeple_spots(g, t, p.x, p.y, p.rot);
        ck_assert_uint_eq(spots & ~((1u << carc_tiles[t].nsegs) - 1), 0);
        struct carc_move m = {.player = g->current, .tile = t, .x = p.x, .y = p.y, .rot = p.rot};
        const struct carc_player *pp = &g->players[g->current];
        if (check && pp->meeples > 0)
            for (int s = 0; s < carc_tiles[t].nsegs; s++) {
                if (spots >> s & 1)
                    continue;
                m.seg = s;
                int field = carc_tiles[t].segs[s].kind == CARC_SEG_FIELD;
                REJECT(g, &m, field && !g->farmers ? CARC_E_NO_FARMERS : CARC_E_OCCUPIED);
            }
        m.seg = -1;
        if (spots != 0 && carc_rng_below(&r, 3) != 0) {
            int k = (int)carc_rng_below(&r, (uint32_t)__builtin_popcount(spots));
            for (int s = 0; s < carc_tiles[t].nsegs; s++)
                if ((spots >> s & 1) && k-- == 0)
                    m.seg = s;
            m.large = pp->large > 0 && carc_rng_below(&r, 4) == 0;
            if (!m.large && pp->meeples == 0)
                m.seg = -1;
        }
        struct carc_error err = {0};
        int rc = carc_game_play(g, &m, &err);
        ck_assert_msg(rc == 0, "step %d: %s", steps, err.text);
        steps++;
    }
    ck_assert_int_eq(g->tile, -1);
    ck_assert_int_eq(g->deck_pos, g->deck_len);
    ck_assert_int_eq(g->turn, steps);
    ck_assert_int_eq(g->ntiles, steps + 1);
}

START_TEST(random_games_deterministic)
{
    static const struct {
        int np;
        unsigned sets;
        int no_farmers;
    } cfgs[] = {
        {2, SET(BASE), 0}, {5, CARC_SETS_ALL, 0}, {3, CARC_SETS_ALL, 1}, {6, CARC_SETS_ALL, 0}};
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            /* from different memory contents: every meaningful field equal */
            memset(&G, 0xAA, sizeof G);
            seeded(&G, cfgs[k].np, cfgs[k].sets, seed, cfgs[k].no_farmers);
            random_game(&G, seed, 1);
            memset(&G2, 0x55, sizeof G2);
            seeded(&G2, cfgs[k].np, cfgs[k].sets, seed, cfgs[k].no_farmers);
            random_game(&G2, seed, 0);
            const char *d = game_diff(&G, &G2);
            ck_assert_msg(d == NULL, "config %zu seed %llu: final states differ in %s", k,
                          (unsigned long long)seed, d);
            /* from the same memory contents: bit for bit */
            memset(&G, 0, sizeof G);
            seeded(&G, cfgs[k].np, cfgs[k].sets, seed, cfgs[k].no_farmers);
            random_game(&G, seed, 0);
            memset(&G2, 0, sizeof G2);
            seeded(&G2, cfgs[k].np, cfgs[k].sets, seed, cfgs[k].no_farmers);
            random_game(&G2, seed, 0);
            ck_assert_msg(memcmp(&G, &G2, sizeof G) == 0, "config %zu seed %llu: not bit for bit",
                          k, (unsigned long long)seed);
            seeded(&G2, cfgs[k].np, cfgs[k].sets, seed + 100, cfgs[k].no_farmers);
            random_game(&G2, seed, 0);
            ck_assert(game_diff(&G, &G2) != NULL);
        }
}
END_TEST

/* ---- (d) automatic discard ---- */

START_TEST(discard_unplaceable)
{
    /* BA.E upside down north of the start covers the only cell that takes a city-only
     * side; afterwards no cell accepts BA.C (city on all four sides). */
    start(&G, 2, SET(BASE), 0, "BA.E BA.C BA.U");
    int c = tt("BA.C");
    ck_assert_int_eq(carc_game_placements(&G, c, NULL, 0), 4);
    PLAY(&G, 0, -1, 2, NULL, 0);
    ck_assert_int_eq(carc_game_placements(&G, c, NULL, 0), 0);
    ck_assert_int_eq(check_placements(&G, c), 0);
    ck_assert_int_eq(G.tile, tt("BA.U"));
    ck_assert_int_eq(G.current, 1);
    ck_assert_int_eq(G.turn, 1);
    ck_assert_int_eq(carc_game_tiles_left(&G), 0);
    ck_assert_int_eq(count_events(&G, CARC_EV_DISCARD), 1);
    for (int i = 0; i < G.nevents; i++)
        if (G.events[i].type == CARC_EV_DISCARD)
            ck_assert_int_eq(G.events[i].tile, c);
    PLAY(&G, 1, 0, 0, NULL, 0);
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
    ck_assert_int_eq(count_events(&G, CARC_EV_DISCARD), 0);
}
END_TEST

START_TEST(discard_last_and_repeated)
{
    start(&G, 2, SET(BASE), 0, "BA.E BA.C");
    PLAY(&G, 0, -1, 2, NULL, 0);
    ck_assert_int_eq(count_events(&G, CARC_EV_DISCARD), 1);
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER); /* the discard emptied the pile */
    ck_assert_int_eq(G.tile, -1);

    start(&G, 2, SET(BASE) | SET(INNS_CATHEDRALS), 0, "BA.E BA.C IC.01 BA.U");
    PLAY(&G, 0, -1, 2, NULL, 0);
    ck_assert_int_eq(count_events(&G, CARC_EV_DISCARD), 2);
    int seen = 0;
    for (int i = 0; i < G.nevents; i++)
        if (G.events[i].type == CARC_EV_DISCARD)
            ck_assert_int_eq(G.events[i].tile, tt(seen++ == 0 ? "BA.C" : "IC.01"));
    ck_assert_int_eq(G.tile, tt("BA.U"));
    ck_assert_int_eq(G.current, 1);
}
END_TEST

START_TEST(discard_at_init)
{
    /* start tile BA.C: only city sides, so a field-only BA.B cannot be the first tile */
    struct carc_config c;
    cfg_base(&c, 2, SET(BASE));
    c.start = tt("BA.C");
    c.deck = deck_buf;
    c.deck_len = deck_parse("BA.B BA.E");
    ck_assert_int_eq(carc_game_init(&G, &c, NULL), 0);
    ck_assert_int_eq(G.placed[0].type, tt("BA.C"));
    ck_assert_int_eq(G.tile, tt("BA.E"));
    ck_assert_int_eq(carc_game_tiles_left(&G), 0);
    ck_assert_int_eq(count_events(&G, CARC_EV_DISCARD), 1);
    /* only a discard: init with a pile of unplaceable tiles is over at once */
    c.deck_len = deck_parse("BA.B BA.B");
    ck_assert_int_eq(carc_game_init(&G, &c, NULL), 0);
    ck_assert_int_eq(G.phase, CARC_PHASE_OVER);
    ck_assert_int_eq(G.tile, -1);
}
END_TEST

Suite *suite_moves(void)
{
    Suite *s = suite_create("moves");
    TCase *p = tcase_create("placements");
    tcase_add_test(p, placements_start_board);
    tcase_add_test(p, placements_buffer_bounds);
    tcase_add_test(p, placements_hole_four_sides);
    suite_add_tcase(s, p);
    TCase *v = tcase_create("validation");
    tcase_add_test(v, reject_placement_errors);
    tcase_add_test(v, reject_meeple_errors);
    tcase_add_test(v, reject_no_farmers);
    tcase_add_test(v, large_meeple);
    tcase_add_test(v, reject_no_meeple);
    tcase_add_test(v, reject_after_game_over);
    tcase_add_test(v, init_errors);
    tcase_add_test(v, init_state);
    suite_add_tcase(s, v);
    TCase *d = tcase_create("determinism");
    tcase_set_timeout(d, 60);
    tcase_add_test(d, deck_from_seed);
    tcase_add_test(d, deck_pinned);
    tcase_add_test(d, random_games_deterministic);
    suite_add_tcase(s, d);
    TCase *x = tcase_create("discard");
    tcase_add_test(x, discard_unplaceable);
    tcase_add_test(x, discard_last_and_repeated);
    tcase_add_test(x, discard_at_init);
    suite_add_tcase(s, x);
    return s;
}
