/* game.c: game setup, the draw pile, turn validation and the turn sequence. */
#include <stddef.h>
#include <string.h>

#include "internal.h"

static void draw(struct carc_game *g);

/* The fuzzing build checks every game it changes (game.h, carc_game_check). */
#ifdef CARC_FUZZ
#define FUZZ_CHECK(g) ((carc_game_check((g), NULL) < 0) ? __builtin_trap() : (void)0)
#else
#define FUZZ_CHECK(g) ((void)0)
#endif

static int config_check(const struct carc_config *cfg, unsigned sets, int start,
                        struct carc_error *err)
{
    if (sets & ~CARC_SETS_ALL)
        return carc_error_set(err, CARC_E_SETS, "unknown set in the set mask 0x%x", sets);
    int max = (sets & (1u << CARC_SET_INNS_CATHEDRALS)) ? 6 : 5;
    if (cfg->nplayers < 2 || cfg->nplayers > max)
        return carc_error_set(err, CARC_E_PLAYERS, "%d players: this game allows 2 to %d",
                              cfg->nplayers, max);
    if (start < 0 || start >= carc_tiles_count || !(sets & (1u << carc_tiles[start].set)))
        return carc_error_set(err, CARC_E_SETS, "the start tile is not in the game's sets");
    if (cfg->escape_rule != CARC_ESCAPE_SIEGE_TILE && cfg->escape_rule != CARC_ESCAPE_ANY_TILE)
        return carc_error_set(err, CARC_E_INVAL, "unknown siege escape rule %d", cfg->escape_rule);
    if (cfg->farm_rule < CARC_FARMS_THIRD || cfg->farm_rule > CARC_FARMS_FIRST)
        return carc_error_set(err, CARC_E_INVAL, "unknown farm scoring rule %d", cfg->farm_rule);
    if (cfg->deck != NULL) {
        if (cfg->deck_len < 0 || cfg->deck_len > CARC_MAX_DECK)
            return carc_error_set(err, CARC_E_DECK, "a deck holds at most %d tiles", CARC_MAX_DECK);
        int segs = carc_tiles[start].nsegs;
        for (int i = 0; i < cfg->deck_len; i++) {
            if (cfg->deck[i] >= carc_tiles_count || !(sets & (1u << carc_tiles[cfg->deck[i]].set)))
                return carc_error_set(err, CARC_E_DECK, "deck[%d] is not a tile of the game's sets",
                                      i);
            segs += carc_tiles[cfg->deck[i]].nsegs;
        }
        if (segs > CARC_MAX_NODES)
            return carc_error_set(err, CARC_E_DECK,
                                  "the tiles hold %d feature segments, more than %d", segs,
                                  CARC_MAX_NODES);
    }
    return 0;
}

/* Every tile of the sets in catalogue order, minus one copy of the start tile,
 * then a Fisher-Yates shuffle driven by the seed. */
static void deck_build(struct carc_game *g, unsigned sets, int start, uint64_t seed)
{
    int n = 0, start_left = 1;
    for (int t = 0; t < carc_tiles_count; t++) {
        if (!(sets & (1u << carc_tiles[t].set)))
            continue;
        for (int c = 0; c < carc_tiles[t].count; c++) {
            if (t == start && start_left) {
                start_left = 0;
                continue;
            }
            g->deck[n++] = (uint8_t)t;
        }
    }
    struct carc_rng rng;
    carc_rng_seed(&rng, seed);
    for (int i = n - 1; i > 0; i--) {
        int j = (int)carc_rng_below(&rng, (uint32_t)(i + 1));
        uint8_t t = g->deck[i];
        g->deck[i] = g->deck[j];
        g->deck[j] = t;
    }
    g->deck_len = (uint16_t)n;
}

int carc_game_init(struct carc_game *g, const struct carc_config *cfg, struct carc_error *err)
{
    unsigned sets = cfg->sets ? cfg->sets : 1u << CARC_SET_BASE;
    int start = cfg->start >= 0 ? cfg->start : carc_tile_find("BA.D");
    int rc = config_check(cfg, sets, start, err);
    if (rc < 0)
        return rc;
    /* The frontier, nodes and events are written before they are read: only
     * clear the rest. */
    memset(g, 0, offsetof(struct carc_game, front));
    memset(g->cells, 0, sizeof g->cells);
    g->nplayers = (uint8_t)cfg->nplayers;
    g->sets = (uint8_t)sets;
    g->farmers = !cfg->no_farmers;
    g->escape_rule = (uint8_t)cfg->escape_rule;
    g->farm_rule = (uint8_t)cfg->farm_rule;
    g->small_city = cfg->small_city != 0;
    g->herbs_left = CARC_HERBS;
    g->tile = -1;
    int large = (sets & (1u << CARC_SET_INNS_CATHEDRALS)) != 0;
    for (int p = 0; p < g->nplayers; p++) {
        g->players[p].meeples = CARC_MEEPLES;
        g->players[p].large = (uint8_t)large;
    }
    if (cfg->deck != NULL) {
        memcpy(g->deck, cfg->deck, (size_t)cfg->deck_len);
        g->deck_len = (uint16_t)cfg->deck_len;
    } else {
        deck_build(g, sets, start, cfg->seed);
    }
    int idx = carc__board_put(g, start, 0, 0, 0, 0xFF);
    carc__tile_join(g, idx);
    draw(g);
    FUZZ_CHECK(g);
    return 0;
}

void carc_game_finish(struct carc_game *g)
{
    if (g->phase == CARC_PHASE_OVER)
        return;
    g->phase = CARC_PHASE_OVER;
    g->tile = -1;
    carc__score_final(g);
}

/* Draws for the current player; a tile that fits nowhere leaves the game
 * (RULES.md 2.2). An empty pile ends the game. */
static void draw(struct carc_game *g)
{
    while (g->deck_pos < g->deck_len) {
        int t = g->deck[g->deck_pos++];
        if (carc__board_fits(g, t)) {
            g->tile = (int16_t)t;
            return;
        }
        struct carc_event *ev = carc__event_new(g, CARC_EV_DISCARD);
        if (ev != NULL)
            ev->tile = (uint8_t)t;
    }
    carc_game_finish(g);
}

/* Everything about the meeple part of a move except occupancy. */
static int meeple_check(const struct carc_game *g, int player, int t, int seg, int large,
                        struct carc_error *err)
{
    const struct carc_tile *T = &carc_tiles[t];
    if (seg < 0 || seg >= T->nsegs)
        return carc_error_set(err, CARC_E_FEATURE, "%s has no feature number %d", T->id, seg);
    if (T->segs[seg].kind == CARC_SEG_FIELD && !g->farmers)
        return carc_error_set(err, CARC_E_NO_FARMERS, NULL);
    if (large && !(g->sets & (1u << CARC_SET_INNS_CATHEDRALS)))
        return carc_error_set(err, CARC_E_LARGE_SET, NULL);
    if (large ? g->players[player].large == 0 : g->players[player].meeples == 0)
        return carc_error_set(err, CARC_E_NO_MEEPLE, "no %s meeple left in the supply",
                              large ? "large" : "normal");
    return 0;
}

static int move_check(const struct carc_game *g, const struct carc_move *m, int turn,
                      struct carc_error *err)
{
    if (m->tile < 0 || m->tile >= carc_tiles_count)
        return carc_error_set(err, CARC_E_TILE, "unknown tile");
    int rc = carc__board_check(g, m->tile, m->x, m->y, m->rot, turn, err);
    if (rc < 0)
        return rc;
    if (m->seg >= 0) {
        rc = meeple_check(g, m->player, m->tile, m->seg, m->large, err);
        if (rc < 0)
            return rc;
        if (carc__busy_segs(g, m->tile, m->x, m->y, m->rot) >> m->seg & 1)
            return carc_error_set(err, CARC_E_OCCUPIED,
                                  "%s of %s joins a feature that holds a meeple",
                                  carc_tiles[m->tile].segs[m->seg].name, carc_tiles[m->tile].id);
    }
    if (m->escape)
        return carc_game_escape_check(g, m, err);
    return 0;
}

static void escape_apply(struct carc_game *g, const struct carc_move *m)
{
    int idx = carc__at(g, m->ex, m->ey);
    int n = carc__node(g, idx, m->eseg);
    uint8_t mp = g->nodes[n].meeple;
    int large = (mp & CARC_MEEPLE_LARGE) != 0;
    int r = carc__find(g, n);
    g->nodes[r].strength[m->player >> 1] -= carc__strength_unit(m->player, large);
    g->nodes[n].meeple = 0;
    struct carc_event *ev = carc__event_new(g, CARC_EV_ESCAPE);
    if (large)
        g->players[m->player].large++;
    else
        g->players[m->player].meeples++;
    if (ev != NULL) {
        ev->kind = CARC_SEG_CITY;
        ev->x = (int8_t)m->ex;
        ev->y = (int8_t)m->ey;
        ev->seg = (uint8_t)m->eseg;
        ev->returned[m->player] = 1;
        ev->scorers = 0;
        if (large)
            ev->large_back = (uint8_t)(1u << m->player);
    }
}

/* Place, meeple, score, escape: the part of a turn that cannot fail. */
static void turn_apply(struct carc_game *g, const struct carc_move *m)
{
    g->nevents = 0;
    int idx = carc__board_put(g, m->tile, m->x, m->y, m->rot, m->player);
    carc__tile_join(g, idx);
    if (m->seg >= 0)
        carc__meeple_put(g, carc__node(g, idx, m->seg), m->player, m->large);
    carc__score_turn(g, idx, m->player);
    if (m->escape)
        escape_apply(g, m);
}

/* The drawn tile (the last one drawn, at deck_pos - 1) goes to the bottom of
 * the pile: what was under it moves up one place. */
static void skip_apply(struct carc_game *g)
{
    g->nevents = 0;
    int p = g->deck_pos - 1;
    uint8_t t = g->deck[p];
    for (int i = p; i + 1 < g->deck_len; i++)
        g->deck[i] = g->deck[i + 1];
    g->deck[g->deck_len - 1] = t;
    g->deck_pos = (uint16_t)p;
    g->current = (uint8_t)((g->current + 1) % g->nplayers);
    g->tile = -1;
    draw(g);
}

int carc_game_play(struct carc_game *g, const struct carc_move *m, struct carc_error *err)
{
    if (g->phase == CARC_PHASE_OVER)
        return carc_error_set(err, CARC_E_OVER, NULL);
    if (m->player != g->current)
        return carc_error_set(err, CARC_E_TURN, "it is player %d's turn, not player %d's",
                              g->current, m->player);
    if (m->tile != g->tile)
        return carc_error_set(err, CARC_E_TILE, "the drawn tile is %s", carc_tiles[g->tile].id);
    if (m->skip) {
        skip_apply(g);
        FUZZ_CHECK(g);
        return 0;
    }
    int rc = move_check(g, m, 1, err);
    if (rc < 0)
        return rc;
    turn_apply(g, m);
    g->turn++;
    g->current = (uint8_t)((g->current + 1) % g->nplayers);
    g->tile = -1;
    draw(g);
    FUZZ_CHECK(g);
    return 0;
}

int carc_game_setup_place(struct carc_game *g, int player, int t, int x, int y, int rot, int seg,
                          int large, struct carc_error *err)
{
    /* A tile apart from the board stays near (0,0). */
    int adjacent = carc__front_find(g, x, y) >= 0;
    if (!adjacent && (x < -40 || x > 40 || y < -40 || y > 40))
        return carc_error_set(err, CARC_E_INVAL,
                              "a setup tile away from the others stays within 40 of (0,0)");
    if (player < 0 || player >= g->nplayers)
        return carc_error_set(err, CARC_E_TURN, "no player %d", player);
    /* Keep room for the tiles still to come (the drawn one and the pile): each
     * adds one tile, its segments and at most 2 frontier cells (game.h). A tile
     * next to the board adds at most 2 frontier cells itself, one apart from it 4. */
    int come = carc_game_tiles_left(g) + (g->tile >= 0), come_nodes = 0;
    for (int i = g->deck_pos; i < g->deck_len; i++)
        come_nodes += carc_tiles[g->deck[i]].nsegs;
    if (g->tile >= 0)
        come_nodes += carc_tiles[g->tile].nsegs;
    if (g->ntiles + 1 + come > CARC_MAX_TILES ||
        g->nfront + (adjacent ? 2 : 4) + 2 * come > CARC_MAX_FRONTIER ||
        (t >= 0 && t < carc_tiles_count &&
         g->nnodes + carc_tiles[t].nsegs + come_nodes > CARC_MAX_NODES))
        return carc_error_set(err, CARC_E_INVAL, "the board is full");
    /* With gaps, the tiles need not span fewer columns than there are tiles: keep
     * the tiles, the frontier around them and the tiles to come within
     * CARC_SETUP_SPAN columns and rows. */
    int x0 = x < g->xmin ? x : g->xmin, x1 = x > g->xmax ? x : g->xmax;
    int y0 = y < g->ymin ? y : g->ymin, y1 = y > g->ymax ? y : g->ymax;
    if (x1 - x0 + 3 + come > CARC_SETUP_SPAN || y1 - y0 + 3 + come > CARC_SETUP_SPAN)
        return carc_error_set(err, CARC_E_INVAL, "the setup tiles would wrap around the grid");
    struct carc_move m = {
        .player = player, .tile = t, .x = x, .y = y, .rot = rot, .seg = seg, .large = large};
    int rc = move_check(g, &m, 0, err);
    if (rc < 0)
        return rc;
    turn_apply(g, &m);
    return 0;
}
