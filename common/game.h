/* game.h: libcarc, the pure Carcassonne rules engine.
 *
 * A game is one plain value (struct carc_game) owned by the caller: no I/O,
 * no allocation, no globals, no clock. The same configuration (seed or deck)
 * and the same moves give the same game: every field is equal except slots past
 * the live counts (frontier entries past nfront, nodes of unplaced tiles, events
 * past nevents), which init does not clear because nothing reads them.
 *
 * Turn flow: carc_game_init() places the start tile and draws the first tile
 * for player 0. Each carc_game_play() validates the whole move (placement,
 * meeple, escape) before touching anything; on success it places, scores,
 * applies the escape, draws the next tile (discarding tiles that cannot be
 * placed) and, when the draw pile is empty, runs final scoring. g->events
 * then describes everything that happened in that call. */
#ifndef CARC_GAME_H
#define CARC_GAME_H

#include <stdint.h>

#include "err.h"
#include "rng.h"
#include "tiles.h"

#define CARC_MAX_PLAYERS 6
#define CARC_MEEPLES 7 /* normal meeples in each supply */
#define CARC_HERBS 5   /* herb tokens in the game */

/* Every fixed array below is sized from a proof of its bound; tests/test_bounds.c
 * plays the worst cases and carc_game_check() verifies the counts after a move.
 *
 * The deck: an explicit deck (records, `deck`; lobby_test_game) holds at most
 * CARC_MAX_DECK tiles, a full deck of every set 115; carc_game_init refuses more
 * (CARC_E_DECK). With the start tile, a game places at most CARC_MAX_TILES. */
#define CARC_MAX_DECK 125
#define CARC_MAX_TILES (CARC_MAX_DECK + 1)
#define CARC_MAX_MOVES 256 /* moves of one game record: placements and skips */
/* The grid: CARC_GRID x CARC_GRID slots of one byte, where position (x, y) has
 * its home slot (x mod CARC_GRID, y mod CARC_GRID). A position gets a slot when it
 * becomes a frontier cell (or a setup tile lands on it) and keeps it for the rest
 * of the game, its frontier entry turning into its tile in place: slots are never
 * emptied. A board that spans fewer than CARC_GRID - 1 columns and rows keeps
 * every position in its home slot: seeded games span at most 26 (40,000 random
 * games of the base set and of every set; bots' and recorded games less). Else a
 * position whose home slot holds another goes to the first empty slot of its
 * probe sequence, home + k * CARC_GRID_STEP (an odd step: the sequence visits
 * every slot, and at most CARC_MAX_TILES + CARC_MAX_FRONTIER of them are ever
 * taken), and g->displaced counts such positions. A lookup reads the home slot
 * and compares the position stored there; only when g->displaced is not 0 does
 * a mismatch walk on. Until the placed tiles' box spans more than CARC_GRID - 4
 * columns or rows (g->wide), no two positions within 2 of it share a home slot:
 * then placing a tile, and looking at the neighbours of a placed tile or of a
 * position next to the box, read home slots and compare no position. Moves name
 * |x|, |y| <= CARC_COORD_MAX, and no frontier entry lies beyond it, so the
 * frontier holds exactly the placeable cells and int8_t holds every coordinate. */
#define CARC_GRID 32
/* Half the grid east and one row more than half south: odd, and a line of tiles
 * along a row or a column is left behind at the first step. */
#define CARC_GRID_STEP ((CARC_GRID / 2 + 1) * CARC_GRID + CARC_GRID / 2 - 1)
/* carc_game_setup_place keeps the board with its frontier and the tiles still to
 * come within this many columns and rows, as when it kept a 128 x 128 grid from
 * aliasing; the grid needs it no more, but setups that were refused still are. */
#define CARC_SETUP_SPAN 128
#define CARC_COORD_MAX 120
/* The frontier: the start tile leaves 4 empty neighbours; each later tile fills
 * one frontier cell and adds at most 3 (one side touches the tile it is placed
 * against), so n placed tiles leave at most 2n + 2 (a straight line reaches it).
 * carc_game_setup_place, which may place apart from the board, refuses a tile
 * that could overflow it. */
#define CARC_MAX_FRONTIER (2 * CARC_MAX_TILES + 2)
/* Feature segments of all placed tiles together: every tile of every set has
 * 404 with the start tile; an explicit deck with more is refused (CARC_E_DECK). */
#define CARC_MAX_NODES 512
/* Events of one call (a turn, a skip, or init), and of a turn followed by
 * carc_game_finish (bots, tests), in four parts:
 * - scorings of roads, cities, cloisters and farms (in the turn or at the end),
 *   escapes and discards together: at most CARC_MAX_TILES - 1. Each scoring or
 *   escape has meeples of its own: a scored feature holds one or more, which go
 *   home when it is completed; an escape takes one home; features are disjoint.
 *   Every meeple on the board came with a placed tile other than the start tile,
 *   so these events are at most ntiles - 1; a discarded tile was still in the
 *   pile, and placed tiles plus the pile never exceed CARC_MAX_TILES (init,
 *   carc_game_setup_place);
 * - tithe barns: CARC_MAX_BARN_EVENTS, the placed tile's own and its 4 orthogonal
 *   neighbours' (they count meeples but take none);
 * - herbs at the end: one per player who holds tokens, at most CARC_HERBS;
 * - first-edition farm scoring (CARC_FARMS_FIRST) at the end: one per player,
 *   instead of the farms' own events in the first part.
 * carc_game_check verifies the four parts after every move. */
#define CARC_MAX_BARN_EVENTS 5
#define CARC_MAX_EVENTS                                                                            \
    ((CARC_MAX_TILES - 1) + CARC_MAX_BARN_EVENTS + CARC_HERBS + CARC_MAX_PLAYERS)

/* carc_config.sets and carc_game.sets are bitmasks of (1 << enum carc_set). */
#define CARC_SETS_ALL ((1u << CARC_SET_COUNT) - 1)

enum carc_escape_rule {
    CARC_ESCAPE_SIEGE_TILE = 0, /* cloister next to a siege tile of the city (Cathars, Besiegers) */
    CARC_ESCAPE_ANY_TILE = 1    /* cloister next to any tile of the city (Siege, RGG) */
};

/* Farm scoring at the end (RULES.md 2.6, 2.8): options.farms. */
enum carc_farm_rule {
    CARC_FARMS_THIRD = 0,  /* each farm: 3 per completed city it touches (the current rule) */
    CARC_FARMS_SECOND = 1, /* the same, but a player scores a given city once over all farms */
    CARC_FARMS_FIRST = 2   /* each completed city: 4 to the most farmers over its farms together */
};

struct carc_config {
    int nplayers;
    unsigned sets;       /* 0 means base only */
    int no_farmers;      /* options.farmers = false: no farmers, no farm scoring */
    int escape_rule;     /* enum carc_escape_rule */
    int start;           /* tile type of the start tile; -1 means BA.D */
    uint64_t seed;       /* shuffles the full tile set when deck is NULL */
    const uint8_t *deck; /* explicit draw order (tile types), or NULL */
    int deck_len;
    int farm_rule;  /* enum carc_farm_rule; 0 is the current rule */
    int small_city; /* options.small_city = 2: a completed 2-tile city scores 1 per tile */
};

enum carc_phase { CARC_PHASE_PLACE = 0, CARC_PHASE_OVER = 1 };

#define CARC_MEEPLE_LARGE 0x80 /* carc_node.meeple: owner + 1, | this for the large meeple */

struct carc_placement {
    int8_t x, y;
    uint8_t rot; /* quarter turns clockwise, 0..3 */
};

struct carc_move {
    int player; /* must be the current player */
    int tile;   /* must equal the drawn tile type */
    int x, y;
    int rot;          /* quarter turns clockwise, 0..3 */
    int seg;          /* segment index for a meeple, or -1 for none */
    int large;        /* the meeple is the large one */
    int escape;       /* take one knight back at the end of the turn */
    int ex, ey, eseg; /* that knight's tile position and segment index */
    int skip;         /* no placement: the drawn tile goes under the pile, the turn passes
                         (a clock's timeout, PROTOCOL.md); only player and tile are read */
};

enum carc_event_type {
    CARC_EV_SCORE = 1, /* a road, city, cloister or farm scored (or voided) */
    CARC_EV_BARN,      /* a tithe barn scored: bonus or tithe */
    CARC_EV_ESCAPE,    /* a knight escaped a besieged city */
    CARC_EV_DISCARD,   /* a drawn tile had no legal placement and left the game */
    CARC_EV_HERBS      /* end of game: points for herb tokens */
};

#define CARC_EVF_FINAL 0x01      /* end-game scoring */
#define CARC_EVF_INN 0x02        /* the road has an inn: doubled, or void when incomplete */
#define CARC_EVF_CATHEDRAL 0x04  /* the city has a cathedral */
#define CARC_EVF_BESIEGED 0x08   /* the city is besieged */
#define CARC_EVF_APOTHECARY 0x10 /* apothecary bonus and herbs */
#define CARC_EVF_TITHE 0x20      /* barn: tithe paid instead of a bonus */
#define CARC_EVF_VOID 0x40       /* incomplete at the end and worth nothing by an expansion rule */

struct carc_event {
    uint8_t type;       /* enum carc_event_type */
    uint8_t kind;       /* enum carc_seg_kind of the feature (SCORE) */
    uint8_t flags;      /* CARC_EVF_* */
    uint8_t tile;       /* DISCARD: the tile type */
    uint8_t tiles;      /* distinct tiles of the feature (barn: tiles in its area) */
    uint8_t pennants;   /* coats of arms of a city */
    uint8_t cities;     /* farm: completed cities it touches (besieged ones included) */
    uint8_t besieged;   /* farm: how many of those are besieged */
    uint8_t scorers;    /* bitmask of players who scored the feature's points */
    uint8_t herbs_to;   /* player who received herb tokens, or 0xFF */
    uint8_t herbs;      /* herb tokens received (HERBS: tokens held) */
    uint8_t farms;      /* barn: distinct farms the barn lies in */
    int16_t points;     /* the feature's value to each scorer, bonuses excluded */
    int8_t x, y;        /* a tile of the feature (the knight's, for ESCAPE) */
    uint8_t seg;        /* segment index on that tile */
    uint8_t large_back; /* bitmask of players whose large meeple came back */
    int16_t delta[CARC_MAX_PLAYERS];    /* score change per player */
    uint8_t returned[CARC_MAX_PLAYERS]; /* meeples back to each supply (large included) */
};

struct carc_placed {
    uint8_t type;
    uint8_t rot;
    int8_t x, y;
    uint8_t player; /* who placed it; 0xFF for the start tile */
    uint8_t spare;  /* 0: names the byte that would be padding, so memcmp is exact */
    uint16_t node;  /* node id of its segment 0; segment s is node + s */
};

/* One feature segment of a placed tile: node id = carc_game_node(g, placed index, segment).
 * Union-find over nodes; only a root's summary fields are meaningful.
 * open: a feature on k tiles has at most 4k road or city edges, and its members
 * are joined by at least k - 1 matched edges, each closing two: at most
 * 2 * CARC_MAX_TILES + 2 = 254 stay open (a line of all-city tiles reaches it).
 * A union adds both counts before the matched edge takes its 2 off, which can
 * pass 255 for a moment: uint8_t arithmetic wraps and comes back exact.
 * strength: a player has at most CARC_MEEPLES + 2 = 9 strength on the board, so
 * 4 bits each (carc_node_strength), two players a byte; adding two features'
 * bytes never carries from one player into the next. */
struct carc_node {
    uint16_t parent;
    uint16_t next;  /* circular list of a feature's member nodes */
    uint16_t size;  /* roots: member count (union by size) */
    uint8_t open;   /* roots: unmatched road or city edges */
    uint8_t meeple; /* this segment: owner + 1 (| CARC_MEEPLE_LARGE), or 0 */
    uint8_t flags;  /* roots: OR of CARC_SF_* of members, | CARC_NF_DONE */
    uint8_t pennants;
    uint8_t apothecaries;
    uint8_t
        strength[CARC_MAX_PLAYERS / 2]; /* roots: meeple strength (large = 2), 4 bits a player */
};
#define CARC_NF_DONE 0x80 /* root: completed and scored */

/* carc_game.cells: one byte a slot (see CARC_GRID). 0: empty; 1..CARC_MAX_TILES:
 * placed index + 1; CARC_CELL_FRONT + i (i < CARC_CELL_FRONT_DIRECT): frontier
 * entry i; CARC_CELL_FRONT_FAR: a frontier entry at index CARC_CELL_FRONT_DIRECT or
 * later (found by a scan from there for its slot). The position in a slot is the
 * tile's or the entry's own x, y. */
#define CARC_CELL_FRONT (CARC_MAX_TILES + 1)
#define CARC_CELL_FRONT_FAR 255
#define CARC_CELL_FRONT_DIRECT (CARC_CELL_FRONT_FAR - CARC_CELL_FRONT)

struct carc_front {
    uint16_t cell; /* its slot in carc_game.cells */
    int8_t x, y;
    uint8_t need; /* required edge kind per side, 2 bits a side, 0 = free (see carc_tile_fits) */
};

struct carc_player {
    int32_t score;
    uint8_t meeples; /* normal meeples in the supply */
    uint8_t large;   /* large meeple in the supply (0 or 1) */
    uint8_t herbs;
};

struct carc_game {
    uint8_t nplayers;
    uint8_t sets;
    uint8_t farmers;
    uint8_t escape_rule;
    uint8_t farm_rule;  /* enum carc_farm_rule */
    uint8_t small_city; /* 1: a completed 2-tile city scores 1 per tile and pennant */
    uint8_t phase;      /* enum carc_phase */
    uint8_t current;    /* player to move */
    int16_t tile;       /* drawn tile type, -1 when none */
    uint16_t turn;      /* placed tiles so far, start tile excluded */
    uint8_t herbs_left;
    uint16_t deck_len, deck_pos;
    uint16_t ntiles;
    uint16_t nfront;
    uint16_t nevents;
    uint16_t nnodes;               /* nodes handed out to placed tiles, in placement order */
    uint16_t displaced;            /* positions stored away from their home slot (see CARC_GRID) */
    int8_t xmin, xmax, ymin, ymax; /* the box of the placed tiles */
    uint8_t wide;                  /* the box spans more than CARC_GRID - 4 columns or rows */
    uint8_t nspecial;
    uint8_t special[CARC_MAX_TILES]; /* placed indexes of tiles with a cloister or a barn */
    struct carc_player players[CARC_MAX_PLAYERS];
    uint8_t deck[CARC_MAX_TILES];
    struct carc_placed placed[CARC_MAX_TILES];
    struct carc_front front[CARC_MAX_FRONTIER];
    struct carc_event events[CARC_MAX_EVENTS];
    struct carc_node nodes[CARC_MAX_NODES];
    uint8_t node_tile[CARC_MAX_NODES];    /* placed index of each node */
    uint8_t cells[CARC_GRID * CARC_GRID]; /* slots: see CARC_GRID, CARC_CELL_FRONT */
};

/* Start a game: validates cfg, builds the draw pile (cfg->deck, or every tile of
 * the sets minus the start tile, shuffled from cfg->seed), places the start tile
 * at (0,0) rotation 0 and draws the first tile. Returns 0 or CARC_E_PLAYERS,
 * CARC_E_SETS, CARC_E_DECK, CARC_E_INVAL. */
int carc_game_init(struct carc_game *g, const struct carc_config *cfg, struct carc_error *err);

/* Validate and apply one move of the current player. Returns 0, or a negative
 * code with err filled and the game unchanged. A skip (m->skip) puts the drawn
 * tile under the draw pile and passes the turn; the next player draws as usual
 * (the skipped tile again when it was the last). */
int carc_game_play(struct carc_game *g, const struct carc_move *m, struct carc_error *err);

/* Legal placements of tile type t (placement rules only). Fills up to max entries
 * of out (out may be NULL) and returns how many exist. */
int carc_game_placements(const struct carc_game *g, int t, struct carc_placement *out, int max);

/* The k-th entry (0-based) of the list carc_game_placements would fill, without
 * building the list: count with carc_game_placements(g, t, NULL, 0), then pick.
 * Returns 0, or CARC_E_INVAL when k is out of range. */
int carc_game_placement_nth(const struct carc_game *g, int t, int k, struct carc_placement *out);

/* Bitmask of segments of tile t placed at (x, y, rot) where a meeple may stand:
 * the feature holds no meeple after joining. Supply and farmers option not checked
 * except that fields are excluded when farmers are off. The placement must be legal. */
unsigned carc_game_meeple_spots(const struct carc_game *g, int t, int x, int y, int rot);

/* Check the escape part of m (m->escape set) as if the rest of m were applied.
 * Returns 0 or CARC_E_ESCAPE with the reason in err. The rest of m must be legal. */
int carc_game_escape_check(const struct carc_game *g, const struct carc_move *m,
                           struct carc_error *err);

/* Place a tile outside the turn order, for tests and puzzles: position must be
 * free and every touching edge must match, but no adjacency, deck or turn is
 * required. Runs meeple placement and the scoring step for `player`, and does
 * not draw. A tile that touches no other must lie within 40 of (0,0). The tiles
 * still to come (the drawn one and the pile) must keep fitting the arrays, and
 * the board CARC_SETUP_SPAN, once every one of them is placed: else CARC_E_INVAL
 * ("the board is full"). Returns 0 or a negative code with the game unchanged. */
int carc_game_setup_place(struct carc_game *g, int player, int t, int x, int y, int rot, int seg,
                          int large, struct carc_error *err);

/* The invariants of g (counts within their arrays, every placed tile in its slot
 * and its nodes, the displaced positions counted, the frontier exactly the empty cells next to the
 * board with the right constraints, union-find roots and meeples against supplies). Returns 0 or
 * CARC_E_INVAL with the first broken one in err. Reads the whole grid: for tests and fuzzing; built
 * with -DCARC_FUZZ, init and play trap when it fails. */
int carc_game_check(const struct carc_game *g, struct carc_error *err);

/* Run end-of-game scoring now (the game becomes over). */
void carc_game_finish(struct carc_game *g);

/* Placed index + 1 at (x, y), or 0. Any x, y may be asked. */
int carc_game_tile_at(const struct carc_game *g, int x, int y);

/* Tiles still to draw, the drawn tile excluded. */
static inline int carc_game_tiles_left(const struct carc_game *g)
{
    return g->deck_len - g->deck_pos;
}

/* Node id of segment seg of placed tile idx. */
static inline int carc_game_node(const struct carc_game *g, int idx, int seg)
{
    return g->placed[idx].node + seg;
}

/* Placed index of node n, and its segment there in *seg. */
static inline int carc_game_node_tile(const struct carc_game *g, int n, int *seg)
{
    int idx = g->node_tile[n];
    *seg = n - g->placed[idx].node;
    return idx;
}

/* Meeple strength of player p (large = 2) in the feature of root nd. */
static inline int carc_node_strength(const struct carc_node *nd, int p)
{
    return nd->strength[p >> 1] >> ((p & 1) * 4) & 15;
}

/* Root node of the feature that node n belongs to (no path compression). */
int carc_game_feature(const struct carc_game *g, int node);

#endif
