/* board_util.h: helpers for the scoring tests (test_score.c, test_expansions.c).
 *
 * Tiles and segments are named as in RULES.md ("BA.E", "c1", "cloister"), rotations
 * in degrees. Every helper fails the running Check test (with the caller's line)
 * instead of returning an error, except the *_rc variants, which return the code. */
#ifndef CARC_BOARD_UTIL_H
#define CARC_BOARD_UTIL_H

#include "game.h"

#define BU_SET(s) (1u << CARC_SET_##s)
#define BU_BASE BU_SET(BASE)
#define BU_IC BU_SET(INNS_CATHEDRALS)

/* Tile type of id; fails the test if unknown. */
int bu_tile(const char *id);
/* Segment index of `name` on tile id; fails the test if unknown. */
int bu_seg(const char *id, const char *name);
/* Segment bit for carc_game_meeple_spots(). */
#define BU_BIT(id, name) (1u << bu_seg(id, name))

/* A fresh game (caller frees with bu_game_free). bu_game_new uses a seeded full deck
 * and the default start tile BA.D at (0,0); bu_game_cfg takes any config. */
struct carc_game *bu_game_new(int nplayers, unsigned sets);
struct carc_game *bu_game_cfg(const struct carc_config *cfg);
void bu_game_free(struct carc_game *g);
/* A game whose draw pile is the space-separated tile ids of `deck` ("BA.U BA.W"). */
struct carc_game *bu_game_deck(int nplayers, unsigned sets, int no_farmers, int escape_rule,
                               const char *deck);

/* carc_game_setup_place by names: meeple on segment `segname` (NULL: none). */
int bu_put_rc(struct carc_game *g, int player, const char *id, int x, int y, int deg,
              const char *segname, int large);
void bu_put_at(int line, struct carc_game *g, int player, const char *id, int x, int y, int deg,
               const char *segname, int large);
#define put(g, p, id, x, y, deg, seg, large) bu_put_at(__LINE__, g, p, id, x, y, deg, seg, large)

/* carc_game_play of the drawn tile by the current player. */
int bu_play_rc(struct carc_game *g, int x, int y, int deg, const char *segname, int large);
void bu_play_at(int line, struct carc_game *g, int x, int y, int deg, const char *segname,
                int large);
#define play(g, x, y, deg, seg, large) bu_play_at(__LINE__, g, x, y, deg, seg, large)

/* A move of the drawn tile by the current player, no meeple, escaping the knight on
 * segment eseg of the tile at (ex, ey). */
struct carc_move bu_escape_move(const struct carc_game *g, int x, int y, int deg, int ex, int ey,
                                int eseg);

/* Root of the feature of segment `segname` of the tile at (x, y). */
int bu_root(const struct carc_game *g, int x, int y, const char *segname);

/* The one event of `type` in g->events whose feature contains segment `segname` of
 * the tile at (x, y); fails the test if there is none or more than one. */
const struct carc_event *bu_ev_at(int line, const struct carc_game *g, int type, int x, int y,
                                  const char *segname);
#define ev_at(g, type, x, y, seg) bu_ev_at(__LINE__, g, type, x, y, seg)
/* Whether such an event exists (0 or the count). */
int bu_ev_count_at(const struct carc_game *g, int type, int x, int y, const char *segname);

/* Events of type (and kind, 0 = any) in g->events; the n-th of them or NULL. */
int bu_ev_count(const struct carc_game *g, int type, int kind);
const struct carc_event *bu_ev_nth(const struct carc_game *g, int type, int kind, int n);

/* Meeples of player p standing on the board: normal ones (large = 0) or the large one. */
int bu_board_meeples(const struct carc_game *g, int p, int large);
/* The meeple byte on segment `segname` of the tile at (x, y). */
int bu_meeple_on(const struct carc_game *g, int x, int y, const char *segname);

/* Whether the rule-visible parts of two games are equal (scores, supplies, board,
 * features, turn, draw pile position). */
int bu_game_same(const struct carc_game *a, const struct carc_game *b);

/* Assert the main fields of a scoring event: feature kind, distinct tiles, pennants,
 * value per scorer and the scorers bitmask. */
#define BU_EV_CHECK(e, k, ntiles, npennants, pts, who)                                             \
    do {                                                                                           \
        ck_assert_int_eq((e)->type, CARC_EV_SCORE);                                                \
        ck_assert_int_eq((e)->kind, (k));                                                          \
        ck_assert_int_eq((e)->tiles, (ntiles));                                                    \
        ck_assert_int_eq((e)->pennants, (npennants));                                              \
        ck_assert_int_eq((e)->points, (pts));                                                      \
        ck_assert_int_eq((e)->scorers, (who));                                                     \
    } while (0)

/* Sum of all score deltas of events of type for player p. */
int bu_ev_delta_sum(const struct carc_game *g, int type, int p);

/* Play g to the end with random legal moves drawn from seed. After every move it checks
 * that each player's normal meeples (supply + board) are 7, large ones 1 with I&C, 0
 * without, that scores are >= 0 unless Apothecaries and Tithes is in the game, and that
 * the events' score deltas add up to the scores. With try_escape, a random own knight
 * escapes whenever carc_game_escape_check allows it. Returns the moves played; counts
 * of discard and escape events go to *discards and *escapes. */
int bu_random_game(struct carc_game *g, uint64_t seed, int try_escape, int *discards, int *escapes);

/* carc_game_play(m) must fail with code and leave the game unchanged. */
void bu_play_refused_at(int line, struct carc_game *g, const struct carc_move *m, int code);
#define play_refused(g, m, code) bu_play_refused_at(__LINE__, g, m, code)
/* The escape of m is refused by carc_game_escape_check and carc_game_play (game
 * unchanged), and the same move without the escape is then played. */
void bu_escape_refused_at(int line, struct carc_game *g, const struct carc_move *m);
#define bu_escape_refused(g, m) bu_escape_refused_at(__LINE__, g, m)

#endif
