/* board_util.c: helpers for the scoring tests; see board_util.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "board_util.h"
#include "rng.h"

int bu_tile(const char *id)
{
    int t = carc_tile_find(id);
    ck_assert_msg(t >= 0, "unknown tile %s", id);
    return t;
}

int bu_seg(const char *id, const char *name)
{
    int s = carc_tile_seg_find(bu_tile(id), name);
    ck_assert_msg(s >= 0, "tile %s has no segment %s", id, name);
    return s;
}

struct carc_game *bu_game_cfg(const struct carc_config *cfg)
{
    struct carc_game *g = calloc(1, sizeof *g);
    ck_assert_ptr_nonnull(g);
    struct carc_error err = {0};
    int rc = carc_game_init(g, cfg, &err);
    ck_assert_msg(rc == 0, "carc_game_init: %d %s", rc, err.text);
    return g;
}

struct carc_game *bu_game_new(int nplayers, unsigned sets)
{
    struct carc_config cfg = {0};
    cfg.nplayers = nplayers;
    cfg.sets = sets;
    cfg.start = -1;
    cfg.seed = 7;
    return bu_game_cfg(&cfg);
}

struct carc_game *bu_game_deck(int nplayers, unsigned sets, int no_farmers, int escape_rule,
                               const char *deck)
{
    uint8_t tiles[CARC_MAX_TILES];
    char id[16];
    int n = 0, used;
    while (n < CARC_MAX_TILES && sscanf(deck, " %15s%n", id, &used) == 1) {
        tiles[n++] = (uint8_t)bu_tile(id);
        deck += used;
    }
    struct carc_config cfg = {0};
    cfg.nplayers = nplayers;
    cfg.sets = sets;
    cfg.no_farmers = no_farmers;
    cfg.escape_rule = escape_rule;
    cfg.start = -1;
    cfg.deck = tiles;
    cfg.deck_len = n;
    return bu_game_cfg(&cfg);
}

void bu_game_free(struct carc_game *g)
{
    free(g);
}

int bu_put_rc(struct carc_game *g, int player, const char *id, int x, int y, int deg,
              const char *segname, int large)
{
    struct carc_error err = {0};
    int s = segname != NULL ? bu_seg(id, segname) : -1;
    return carc_game_setup_place(g, player, bu_tile(id), x, y, deg / 90, s, large, &err);
}

void bu_put_at(int line, struct carc_game *g, int player, const char *id, int x, int y, int deg,
               const char *segname, int large)
{
    struct carc_error err = {0};
    int s = segname != NULL ? bu_seg(id, segname) : -1;
    int rc = carc_game_setup_place(g, player, bu_tile(id), x, y, deg / 90, s, large, &err);
    ck_assert_msg(rc == 0, "line %d: put %s@%d at (%d,%d) %s: %s (%s)", line, id, deg, x, y,
                  segname ? segname : "-", carc_err_name(rc), err.text);
}

int bu_play_rc(struct carc_game *g, int x, int y, int deg, const char *segname, int large)
{
    struct carc_error err = {0};
    struct carc_move m = {0};
    m.player = g->current;
    m.tile = g->tile;
    m.x = x;
    m.y = y;
    m.rot = deg / 90;
    m.seg = segname != NULL && g->tile >= 0 ? carc_tile_seg_find(g->tile, segname) : -1;
    m.large = large;
    return carc_game_play(g, &m, &err);
}

void bu_play_at(int line, struct carc_game *g, int x, int y, int deg, const char *segname,
                int large)
{
    struct carc_error err = {0};
    struct carc_move m = {0};
    ck_assert_msg(g->tile >= 0, "line %d: no drawn tile", line);
    m.player = g->current;
    m.tile = g->tile;
    m.x = x;
    m.y = y;
    m.rot = deg / 90;
    m.seg = segname != NULL ? carc_tile_seg_find(g->tile, segname) : -1;
    m.large = large;
    int rc = carc_game_play(g, &m, &err);
    ck_assert_msg(rc == 0, "line %d: play %s@%d at (%d,%d) %s: %s (%s)", line,
                  carc_tiles[m.tile].id, deg, x, y, segname ? segname : "-", carc_err_name(rc),
                  err.text);
}

struct carc_move bu_escape_move(const struct carc_game *g, int x, int y, int deg, int ex, int ey,
                                int eseg)
{
    struct carc_move m = {0};
    m.player = g->current;
    m.tile = g->tile;
    m.x = x;
    m.y = y;
    m.rot = deg / 90;
    m.seg = -1;
    m.escape = 1;
    m.ex = ex;
    m.ey = ey;
    m.eseg = eseg;
    return m;
}

static int root_of(const struct carc_game *g, int x, int y, int s)
{
    int idx = carc_game_tile_at(g, x, y) - 1;
    if (idx < 0 || g->placed[idx].x != x || g->placed[idx].y != y)
        return -1;
    if (s < 0 || s >= carc_tiles[g->placed[idx].type].nsegs)
        return -1;
    return carc_game_feature(g, carc_game_node(g, idx, s));
}

int bu_root(const struct carc_game *g, int x, int y, const char *segname)
{
    int idx = carc_game_tile_at(g, x, y) - 1;
    ck_assert_msg(idx >= 0, "no tile at (%d,%d)", x, y);
    int s = carc_tile_seg_find(g->placed[idx].type, segname);
    ck_assert_msg(s >= 0, "tile at (%d,%d) has no %s", x, y, segname);
    return root_of(g, x, y, s);
}

int bu_ev_count_at(const struct carc_game *g, int type, int x, int y, const char *segname)
{
    int want = bu_root(g, x, y, segname), n = 0;
    for (int i = 0; i < g->nevents; i++) {
        const struct carc_event *e = &g->events[i];
        if (e->type == type && root_of(g, e->x, e->y, e->seg) == want)
            n++;
    }
    return n;
}

const struct carc_event *bu_ev_at(int line, const struct carc_game *g, int type, int x, int y,
                                  const char *segname)
{
    int want = bu_root(g, x, y, segname), n = 0;
    const struct carc_event *found = NULL;
    for (int i = 0; i < g->nevents; i++) {
        const struct carc_event *e = &g->events[i];
        if (e->type == type && root_of(g, e->x, e->y, e->seg) == want) {
            found = e;
            n++;
        }
    }
    ck_assert_msg(n == 1, "line %d: %d events of type %d for (%d,%d) %s (of %d events)", line, n,
                  type, x, y, segname, g->nevents);
    return found;
}

int bu_ev_count(const struct carc_game *g, int type, int kind)
{
    int n = 0;
    for (int i = 0; i < g->nevents; i++)
        if (g->events[i].type == type && (kind == 0 || g->events[i].kind == kind))
            n++;
    return n;
}

const struct carc_event *bu_ev_nth(const struct carc_game *g, int type, int kind, int n)
{
    for (int i = 0; i < g->nevents; i++)
        if (g->events[i].type == type && (kind == 0 || g->events[i].kind == kind) && n-- == 0)
            return &g->events[i];
    return NULL;
}

int bu_board_meeples(const struct carc_game *g, int p, int large)
{
    int n = 0;
    for (int i = 0; i < g->ntiles; i++) {
        int nsegs = carc_tiles[g->placed[i].type].nsegs;
        for (int s = 0; s < nsegs; s++) {
            int m = g->nodes[carc_game_node(g, i, s)].meeple;
            if (m != 0 && (m & ~CARC_MEEPLE_LARGE) == p + 1 &&
                ((m & CARC_MEEPLE_LARGE) != 0) == (large != 0))
                n++;
        }
    }
    return n;
}

int bu_meeple_on(const struct carc_game *g, int x, int y, const char *segname)
{
    int idx = carc_game_tile_at(g, x, y) - 1;
    ck_assert_msg(idx >= 0, "no tile at (%d,%d)", x, y);
    int s = carc_tile_seg_find(g->placed[idx].type, segname);
    ck_assert_msg(s >= 0, "tile at (%d,%d) has no %s", x, y, segname);
    return g->nodes[carc_game_node(g, idx, s)].meeple;
}

int bu_game_same(const struct carc_game *a, const struct carc_game *b)
{
    if (a->phase != b->phase || a->current != b->current || a->tile != b->tile ||
        a->turn != b->turn || a->herbs_left != b->herbs_left || a->deck_pos != b->deck_pos ||
        a->ntiles != b->ntiles)
        return 0;
    if (memcmp(a->players, b->players, sizeof a->players) != 0)
        return 0;
    if (memcmp(a->placed, b->placed, a->ntiles * sizeof a->placed[0]) != 0)
        return 0;
    for (int i = 0; i < a->ntiles; i++) {
        for (int s = 0; s < carc_tiles[a->placed[i].type].nsegs; s++) {
            int n = carc_game_node(a, i, s);
            if (a->nodes[n].meeple != b->nodes[n].meeple ||
                carc_game_feature(a, n) != carc_game_feature(b, n))
                return 0;
        }
    }
    return memcmp(a->cells, b->cells, sizeof a->cells) == 0;
}

int bu_ev_delta_sum(const struct carc_game *g, int type, int p)
{
    int sum = 0;
    for (int i = 0; i < g->nevents; i++)
        if (g->events[i].type == type)
            sum += g->events[i].delta[p];
    return sum;
}

void bu_play_refused_at(int line, struct carc_game *g, const struct carc_move *m, int code)
{
    struct carc_game *copy = malloc(sizeof *copy);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, g, sizeof *g);
    struct carc_error err = {0};
    int rc = carc_game_play(g, m, &err);
    ck_assert_msg(rc == code, "line %d: play gave %s, expected %s", line, carc_err_name(rc),
                  carc_err_name(code));
    ck_assert_msg(err.code == code, "line %d: err.code %d", line, err.code);
    ck_assert_msg(bu_game_same(g, copy), "line %d: a refused move changed the game", line);
    free(copy);
}

void bu_escape_refused_at(int line, struct carc_game *g, const struct carc_move *m)
{
    struct carc_error err = {0};
    int rc = carc_game_escape_check(g, m, &err);
    ck_assert_msg(rc == CARC_E_ESCAPE && err.code == CARC_E_ESCAPE, "line %d: escape_check gave %s",
                  line, carc_err_name(rc));
    bu_play_refused_at(line, g, m, CARC_E_ESCAPE);
    struct carc_move plain = *m;
    plain.escape = 0;
    struct carc_error err2 = {0};
    rc = carc_game_play(g, &plain, &err2);
    ck_assert_msg(rc == 0, "line %d: the move without escape: %s (%s)", line, carc_err_name(rc),
                  err2.text);
}

/* A random own knight of the current player for m's escape, if any. */
static void random_escape(const struct carc_game *g, struct carc_rng *rng, struct carc_move *m)
{
    int cand[64], n = 0;
    for (int i = 0; i < g->ntiles && n < 64; i++) {
        const struct carc_tile *T = &carc_tiles[g->placed[i].type];
        for (int s = 0; s < T->nsegs && n < 64; s++) {
            int mp = g->nodes[carc_game_node(g, i, s)].meeple & ~CARC_MEEPLE_LARGE;
            if (T->segs[s].kind == CARC_SEG_CITY && mp == m->player + 1)
                cand[n++] = carc_game_node(g, i, s);
        }
    }
    if (n == 0)
        return;
    int c = cand[carc_rng_below(rng, (uint32_t)n)];
    m->escape = 1;
    int seg = 0, at = carc_game_node_tile(g, c, &seg);
    m->ex = g->placed[at].x;
    m->ey = g->placed[at].y;
    m->eseg = seg;
    struct carc_error err = {0};
    if (carc_game_escape_check(g, m, &err) != 0)
        m->escape = 0;
}

int bu_random_game(struct carc_game *g, uint64_t seed, int try_escape, int *discards, int *escapes)
{
    static struct carc_placement pl[4 * CARC_MAX_FRONTIER];
    struct carc_rng rng;
    carc_rng_seed(&rng, seed);
    int moves = 0, large = (g->sets >> CARC_SET_INNS_CATHEDRALS) & 1;
    int nonneg = !((g->sets >> CARC_SET_APOTHECARIES_TITHES) & 1);
    long sum[CARC_MAX_PLAYERS] = {0};
    *discards = bu_ev_count(g, CARC_EV_DISCARD, 0);
    *escapes = 0;
    while (g->phase != CARC_PHASE_OVER) {
        ck_assert_int_ge(g->tile, 0);
        int n = carc_game_placements(g, g->tile, pl, 4 * CARC_MAX_FRONTIER);
        ck_assert_int_gt(n, 0);
        if (n > 4 * CARC_MAX_FRONTIER)
            n = 4 * CARC_MAX_FRONTIER;
        const struct carc_placement *p = &pl[carc_rng_below(&rng, (uint32_t)n)];
        struct carc_move m = {0};
        m.player = g->current;
        m.tile = g->tile;
        m.x = p->x;
        m.y = p->y;
        m.rot = p->rot;
        m.seg = -1;
        unsigned spots = carc_game_meeple_spots(g, g->tile, p->x, p->y, p->rot);
        const struct carc_player *me = &g->players[m.player];
        if (spots != 0 && carc_rng_below(&rng, 3) != 0) {
            int s;
            do
                s = (int)carc_rng_below(&rng, CARC_MAX_SEGS);
            while (!(spots >> s & 1));
            m.large = me->large && carc_rng_below(&rng, 4) == 0;
            if (m.large || me->meeples > 0)
                m.seg = s;
            else
                m.large = 0;
        }
        if (try_escape && carc_rng_below(&rng, 2) == 0)
            random_escape(g, &rng, &m);
        struct carc_error err = {0};
        int rc = carc_game_play(g, &m, &err);
        ck_assert_msg(rc == 0, "move %d: %s (%s)", moves, carc_err_name(rc), err.text);
        moves++;
        *discards += bu_ev_count(g, CARC_EV_DISCARD, 0);
        *escapes += bu_ev_count(g, CARC_EV_ESCAPE, 0);
        for (int q = 0; q < g->nplayers; q++) {
            sum[q] += bu_ev_delta_sum(g, CARC_EV_SCORE, q) + bu_ev_delta_sum(g, CARC_EV_BARN, q) +
                      bu_ev_delta_sum(g, CARC_EV_HERBS, q) + bu_ev_delta_sum(g, CARC_EV_ESCAPE, q);
            ck_assert_int_eq(sum[q], g->players[q].score);
            if (nonneg)
                ck_assert_int_ge(g->players[q].score, 0);
            ck_assert_int_eq(g->players[q].meeples + bu_board_meeples(g, q, 0), CARC_MEEPLES);
            ck_assert_int_eq(g->players[q].large + bu_board_meeples(g, q, 1), large);
        }
    }
    return moves;
}
