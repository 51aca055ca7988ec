/* tiles.h: the tile catalogue of every set carcd knows (RULES.md section 3).
 *
 * The catalogue is one constant table (tiles_data.c, generated from RULES.md by
 * common/gen/tiles.py). Every record is the tile at rotation 0. Segment masks:
 * cities and roads use the 4-bit edge mask (N=1 E=2 S=4 W=8), fields the 8-bit
 * half-edge mask (Nw=0x01 .. Wn=0x80). Rotating by 90 degrees clockwise is a
 * left-rotate by 1 bit (edges) or 2 bits (half-edges). */
#ifndef CARC_TILES_H
#define CARC_TILES_H

#include <stdint.h>

#define CARC_MAX_SEGS 8 /* segments on one tile, cloister included (the most any tile has) */
#define CARC_SEG_NONE 0xFF

enum carc_set {
    CARC_SET_BASE = 0,
    CARC_SET_INNS_CATHEDRALS,
    CARC_SET_BESIEGERS,
    CARC_SET_CATHARS,
    CARC_SET_SIEGE,
    CARC_SET_APOTHECARIES_TITHES,
    CARC_SET_COUNT
};

/* Edge kinds, two bits each in carc_tile.edges (N in bits 0-1, E 2-3, S 4-5, W 6-7). */
enum carc_edge { CARC_EDGE_FIELD = 1, CARC_EDGE_ROAD = 2, CARC_EDGE_CITY = 3 };

enum carc_dir { CARC_N = 0, CARC_E = 1, CARC_S = 2, CARC_W = 3 };

enum carc_seg_kind { CARC_SEG_CITY = 1, CARC_SEG_ROAD, CARC_SEG_FIELD, CARC_SEG_CLOISTER };

/* Segment flags. */
#define CARC_SF_CATHEDRAL 0x01
#define CARC_SF_SIEGE 0x02
#define CARC_SF_INN 0x04
#define CARC_SF_APOTHECARY 0x08
#define CARC_SF_BARN 0x10 /* field segment the tile's tithe barn lies in */

/* Where a road that touches one edge stops on the tile (informational). */
enum carc_road_end {
    CARC_END_NONE = 0, /* road passes through (two edges) */
    CARC_END_CITY,
    CARC_END_CLOISTER,
    CARC_END_JUNCTION,
    CARC_END_VILLAGE,
    CARC_END_BARN
};

struct carc_seg {
    const char *name; /* "c1", "r2", "f1", "cloister" */
    uint8_t kind;     /* enum carc_seg_kind */
    uint8_t mask;     /* edge mask (city, road) or half-edge mask (field); 0 for cloister */
    uint8_t flags;    /* CARC_SF_* */
    uint8_t pennants; /* coats of arms (cities) */
    uint8_t touches;  /* fields: bit i set = borders segment i (a city) on this tile */
    uint8_t end;      /* enum carc_road_end */
};

/* Tile flags. */
#define CARC_TF_CLOISTER 0x01
#define CARC_TF_BARN 0x02
#define CARC_TF_START 0x04 /* the type of the start tile */

struct carc_tile {
    const char *id;   /* "BA.A", "IC.01", ... */
    const char *what; /* one-line description from RULES.md */
    uint8_t set;      /* enum carc_set */
    uint8_t count;    /* physical copies */
    uint8_t edges;    /* packed enum carc_edge per direction, at rotation 0 */
    uint8_t sig;      /* row of carc_tile_fits for this tile's edges */
    uint8_t flags;    /* CARC_TF_* */
    uint8_t nsegs;
    uint8_t edge_seg[4]; /* city/road segment on each edge, CARC_SEG_NONE on fields */
    uint8_t half_seg[8]; /* field segment on each half-edge, CARC_SEG_NONE on cities */
    struct carc_seg segs[CARC_MAX_SEGS];
};

/* The whole catalogue, in set order; stable indexes are used as tile type ids. */
extern const struct carc_tile carc_tiles[];
extern const int carc_tiles_count;

/* carc_tile_fits[sig][c]: bitmask of rotations of a tile with edge signature sig
 * that satisfy constraint c (2 bits a side as in carc_tile.edges, 0 = free). */
extern const uint8_t carc_tile_fits[][256];

/* Index of the tile type with this id ("BA.D"), or -1. */
int carc_tile_find(const char *id);

/* Index of segment `name` on tile type t, or -1. */
int carc_tile_seg_find(int t, const char *name);

/* Set by wire name ("base", "inns-cathedrals", ...): its enum value, or -1. */
int carc_set_find(const char *name);
const char *carc_set_name(int set);

/* Edge kind of tile t at rotation rot (quarter turns clockwise) on side dir. */
static inline int carc_tile_edge(int t, int rot, int dir)
{
    return (carc_tiles[t].edges >> (2 * ((dir - rot + 4) & 3))) & 3;
}

static inline uint8_t carc_rot4(uint8_t m, int rot)
{
    return (uint8_t)(((m << rot) | (m >> (4 - rot))) & 0xF);
}

static inline uint8_t carc_rot8(uint8_t m, int rot)
{
    rot *= 2;
    return (uint8_t)((m << rot) | (m >> ((8 - rot) & 7)));
}

#endif
