/* state.h: the public state document of a room and the deltas between two of
 * them (PROTOCOL.md). A struct proto_state is one document, immutable once
 * built, owned by whoever built it (free with proto_state_free). */
#ifndef PROTO_STATE_H
#define PROTO_STATE_H

#include "game.h"
#include "msg.h"

enum proto_phase { PROTO_PHASE_LOBBY = 0, PROTO_PHASE_PLAYING, PROTO_PHASE_OVER };

/* Why a built-in bot plays a person's seat (PROTOCOL.md "Clocks and bots"). */
enum proto_autoplay {
    PROTO_AUTO_NONE = 0,
    PROTO_AUTO_LEFT,
    PROTO_AUTO_OFFLINE,
    PROTO_AUTO_TIMEOUT,
    PROTO_AUTO_IDLE,
    PROTO_AUTO_FORFEIT,
    PROTO_AUTO_COUNT
};
/* Wire name of a reason ("offline"), or NULL for PROTO_AUTO_NONE and out of range. */
const char *proto_autoplay_name(int reason);

struct proto_seat {
    char name[PROTO_NAME_MAX]; /* "" when free */
    int taken;
    int connected;
    int bot;           /* 0: a person's seat; else 1 + enum carc_bot_level */
    int autoplay;      /* enum proto_autoplay */
    long long time_ms; /* time left on the seat's clock; -1 without a clock */
    int entropy; /* the seat's player sent entropy for the fair draw (its value stays hidden) */
};

/* What the document is built from; nothing in it is kept after the call. */
struct proto_room_view {
    const char *room;
    int phase; /* enum proto_phase */
    unsigned sets;
    int no_farmers;
    int escape_rule;
    int farm_rule;   /* enum carc_farm_rule */
    int small_city;  /* 1: options.small_city 2 */
    int seat_random; /* options.seat_order "random" */
    int rated;       /* "rated": true (only then in the document) */
    int host;        /* seat index of the host */
    int nseats;
    struct proto_seat seats[CARC_MAX_PLAYERS];
    const struct carc_game *game; /* NULL in the lobby; seat i plays engine player i */
    struct proto_clock clock;     /* clock.initial == 0: no clock */
    long long turn_started;       /* wall clock ms of the current turn's start; -1: null */
    long long deadline;           /* wall clock ms the mover's time runs out; -1: null */
    const char *commitment;       /* the fair draw's commitment (64 hex digits), NULL: null */
};

struct proto_state;

/* Build the document. NULL when out of memory. */
struct proto_state *proto_state_build(const struct proto_room_view *v);
/* The same document, sharing the parts that did not change with prev (the
 * room's previous document, or NULL): faster to build, and faster to diff
 * against prev. Equal to what proto_state_build gives; prev is unchanged and
 * may be freed before or after the result. */
struct proto_state *proto_state_build_next(const struct proto_state *prev,
                                           const struct proto_room_view *v);
void proto_state_free(struct proto_state *s);

/* {"v":2,"type":"state","seq":seq,"state":{...}} */
char *proto_state_encode(const struct proto_state *s, long long seq, const char *ref);

/* The seat to move in s, or -1 outside `playing`. */
int proto_state_mover(const struct proto_state *s);
/* 1 when the mover of `to` needs a `legal` message after the delta from
 * `from` (NULL: none before): a new turn, mover or tile, or another list. 0
 * when nobody is to move in `to`. */
int proto_state_legal_changed(const struct proto_state *from, const struct proto_state *to);
/* {"v":2,"type":"legal","seq":seq,"turn":..,"player":..,"tile":..,"legal":[...]}:
 * the mover's private list (PROTOCOL.md "legal"). NULL when nobody is to move
 * in s or out of memory. */
char *proto_legal_encode(const struct proto_state *s, long long seq);
/* The legal list of g's current tile as a JSON array, as `legal` carries it
 * ("[]" when g is not waiting for a placement). NULL when out of memory. */
char *proto_legal_list(const struct carc_game *g);

/* Room-level events that are not engine events, for deltas. */
enum proto_room_event {
    PROTO_EV_NONE = 0,
    PROTO_EV_SEAT,    /* seat, name, taken, connected, bot */
    PROTO_EV_START,   /* the players' names come from the new document */
    PROTO_EV_TIMEOUT, /* seat, value: enum proto_timeout */
    PROTO_EV_AUTOPLAY /* seat, value: enum proto_autoplay (NONE: the player is back) */
};
struct proto_extra_event {
    int kind; /* enum proto_room_event */
    int seat;
    const char *name;
    int taken, connected;
    int bot;   /* SEAT: 0 or 1 + enum carc_bot_level */
    int value; /* TIMEOUT, AUTOPLAY: see the kinds */
};

/* {"v":2,"type":"delta","seq":seq,"events":[...],"patch":[...]} where patch turns
 * `from` into `to` (RFC 6902). Events: the extra room events first, then, when
 * move is not NULL, a "placed" event for *move (a "skip" event when move->skip)
 * followed by g->events. Returns NULL when out of memory. */
char *proto_delta_encode(const struct proto_state *from, const struct proto_state *to,
                         long long seq, const struct proto_extra_event *extra, int nextra,
                         const struct carc_game *g, const struct carc_move *move);

/* Test helpers: apply a delta message's patch to a state message's document and
 * compare with another state message's document. 0 when equal, else nonzero
 * with a description in err. */
int proto_patch_check(const char *state_msg, const char *const *delta_msgs, int ndeltas,
                      const char *expected_state_msg, struct proto_error *err);

#endif
