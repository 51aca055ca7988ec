/* state_int.h: what the state files share (state_build.c builds documents,
 * state.c writes them and the deltas between two of them, state_events.c the
 * events in a delta; history.c and replay_json.c write a move's events too).
 * Not for the rest of the code: state.h is the interface. */
#ifndef PROTO_STATE_INT_H
#define PROTO_STATE_INT_H

#include <stdint.h>
#include <string.h>

#include "patch.h"
#include "state.h"

#define MAX_LEGAL (CARC_MAX_FRONTIER * 4)
#define MAX_KNIGHTS 16

/* The legal list as JSON text, shared by reference count. */
struct legal_text {
    int refs;
    size_t len;
    char text[];
};

struct cell_view {
    uint8_t type, rot;
    int8_t x, y;
    uint8_t meeple; /* carc_node.meeple of the tile's meeple, or 0 */
    uint8_t seg;    /* its segment */
};

struct seat_view {
    char name[PROTO_NAME_MAX]; /* valid UTF-8 ("?" replaces an invalid name) */
    uint8_t null_name;         /* the seat is free: "name": null */
    uint8_t taken, connected;
    uint8_t meeples, large, herbs;
    uint8_t bot, autoplay; /* as in struct proto_seat */
    uint8_t entropy;
    int32_t score;
    long long time_ms; /* -1: null */
};

/* What decides the legal list: while it is the same, the list is too. */
struct legal_key {
    const struct carc_game *g;
    int moving, turn, deck_pos, ntiles, current, tile, meeples, large;
};

struct proto_state {
    char room[PROTO_ROOM_MAX + 16];
    uint8_t phase, farmers, escape_rule, nseats;
    uint8_t farm_rule, small_city, seat_random; /* the rest of options */
    uint8_t rated;                              /* "rated": true, only when rated */
    unsigned sets;
    int host, turn, current, tile, tiles_left, herbs_left; /* current, tile: -1 for null */
    struct seat_view seats[CARC_MAX_PLAYERS];
    int ntiles;
    struct cell_view board[CARC_MAX_TILES];
    uint8_t remaining[256]; /* undrawn tiles by type */
    struct legal_key lkey;
    struct legal_text *legal;
    struct proto_clock clock; /* initial == 0: "clock": null */
    long long turn_started;   /* -1: null */
    long long deadline;       /* -1: null */
    char commitment[65];      /* "": null */
};

/* proto__out_put with the common case (it fits) inlined: small constant-size
 * copies then compile to a few moves. */
static inline void put_raw(struct proto__out *b, const char *s, size_t n)
{
    if (b->n + n < b->cap) {
        memcpy(b->p + b->n, s, n);
        b->n += n;
    } else {
        proto__out_put(b, s, n);
    }
}

/* lit must be a string literal (sizeof gives its length). */
#define PUT(b, lit) put_raw((b), "" lit, sizeof(lit) - 1)

/* A JSON string of s, which may need escapes (seat names, room ids). */
static inline void put_string(struct proto__out *b, const char *s)
{
    proto__out_string(b, s, strlen(s));
}

/* A JSON string of a catalogue name (tile ids, segment and set names, wire
 * enum names): printable ASCII without '"' or '\\', written as it is. */
static inline void put_name(struct proto__out *b, const char *s)
{
    put_raw(b, "\"", 1);
    put_raw(b, s, strlen(s));
    put_raw(b, "\"", 1);
}

static inline void put_int(struct proto__out *b, long long x)
{
    char num[24];
    unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
    char *p = num + sizeof num;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (x < 0)
        *--p = '-';
    put_raw(b, p, (size_t)(num + sizeof num - p));
}

/* "x,y" without snprintf, which showed in profiles; returns its length. */
static inline size_t cell_key(char *out, int x, int y)
{
    char *start = out;
    int v[2] = {x, y};
    for (int k = 0; k < 2; k++) {
        int n = v[k];
        if (n < 0) {
            *out++ = '-';
            n = -n;
        }
        if (n >= 100)
            *out++ = (char)('0' + n / 100);
        if (n >= 10)
            *out++ = (char)('0' + n / 10 % 10);
        *out++ = (char)('0' + n % 10);
        *out++ = k == 0 ? ',' : '\0';
    }
    return (size_t)(out - start - 1);
}

/* {"v":2,"type":NAME of a server message type (enum proto_server_type) and
 * "ref" (compact JSON of the request's id, "" or NULL: none), the same bytes
 * as proto__frame_new writes (frame.c); the caller closes the object. A type
 * not in the table fails b. */
void proto__put_frame(struct proto__out *b, int type, const char *ref);
/* ,"meeple":...,"escape":... of a placing move m, as its "placed" event
 * writes them (g: the game after the move, for the knight's tile). */
void proto__put_meeple_escape(struct proto__out *b, const struct carc_game *g,
                              const struct carc_move *m);
/* A move's events as its delta carries them, comma-separated: its "placed"
 * (or "skip") event, then g->events. g: the game right after the move. */
void proto__put_move_events(struct proto__out *b, const struct carc_game *g,
                            const struct carc_move *m);
/* The room's events of extra[0..nextra) as a delta carries them,
 * comma-separated (kinds out of range left out; a start event reads the
 * players' names from `to`, the new document). Returns how many it wrote. */
int proto__put_extra_events(struct proto__out *b, const struct proto_extra_event *extra, int nextra,
                            const struct proto_state *to);

#endif
