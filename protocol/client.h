/* client.h: the client side of protocol v2 for C programs (bots, the load
 * generator, tests). It never includes jansson.h, so code outside protocol/
 * can use it.
 *
 * A struct proto_client_doc holds one room's public state document as the
 * client sees it. Feed it every text frame from the server with
 * proto_client_handle(): a `state` replaces the document, a `delta` whose seq
 * is the previous one + 1 is applied as a JSON Patch, a `legal` (sent to the
 * mover alone) is kept for proto_client_legal(); anything else is only
 * classified into a struct proto_client_event. Then read the document through
 * the accessors (fixed-size C values, caller-owned buffers).
 *
 *     struct proto_client_doc *d = proto_client_doc_new();
 *     struct proto_client_event ev;
 *     for each frame:
 *         if (proto_client_handle(d, text, len, &ev) < 0) { resync or give up }
 *         if (ev.type == PROTO_S_JOINED) proto_client_seat_set(d, ev.seat);
 *         if (ev.gap) send(proto_client_encode_sync(proto_client_doc_seq(d), NULL));
 *         if (proto_client_my_turn(d) && proto_client_legal_ready(d)) { pick from
 *             proto_client_legal(), send(proto_client_encode_play(...)) }
 *
 * Conventions of this API (not of the wire): rotations are quarter turns
 * clockwise 0..3 (the wire says degrees), tiles are catalogue indexes
 * (carc_tiles[t], the wire says ids), segments are indexes into
 * carc_tiles[t].segs with the wire's feature name beside them.
 *
 * Every function that returns char * returns malloc'd NUL-terminated text the
 * caller frees, or NULL when out of memory or an argument is out of range. */
#ifndef PROTO_CLIENT_H
#define PROTO_CLIENT_H

#include <stddef.h>

#include "game.h"
#include "msg.h"
#include "state.h"

#define PROTO_CLIENT_NODE_MAX 33  /* a node id ([A-Za-z0-9_-]{1,32}), NUL included */
#define PROTO_CLIENT_PATH_MAX 128 /* a redirect's path ("/n/NODE/ws"), NUL included */

/* What one server message said. Fields not named for a type keep their
 * "absent" value: -1 for numbers, "" for texts, 0 for flags. Read from the
 * text itself what no field holds: a history's turns and chat, a notice's
 * text and room. A legal message gives seq; its list is kept by the doc
 * holder (proto_client_legal). */
struct proto_client_event {
    int type;               /* enum proto_server_type (msg.h, the table of msg_types.h) */
    char ref[PROTO_ID_MAX]; /* compact JSON of "ref" ("7", "\"a\""), "" when absent */
    long long ref_num;      /* "ref" when it is an integer >= 0, else -1 */
    long long seq;          /* state, delta, ack, synced */
    /* error */
    int code;           /* CARC_E_* for the wire code (carc_err_from_name), 0 when unknown */
    char code_name[32]; /* the wire code as sent */
    char message[160];
    /* joined, watching, redirect; chat: seat (-1 for a spectator), name and text */
    char room[PROTO_ROOM_MAX];
    int seat;
    char token[PROTO_TOKEN_MAX]; /* joined after taking a seat; "" on resume */
    char name[PROTO_NAME_MAX];
    char text[PROTO_CHAT_MAX + 1];
    /* welcome */
    int message_bytes, messages_per_second, chat_bytes;
    /* redirect (PROTOCOL.md "Redirects between nodes"): the owner's node id, its WebSocket
       path on the same host and port (always starts with '/'; a longer one is refused), and
       the wait before trying again through the base URL (-1 when absent) */
    char node[PROTO_CLIENT_NODE_MAX];
    char path[PROTO_CLIENT_PATH_MAX];
    int retry_ms;
    /* rooms: how many (read them with proto_client_rooms) */
    int nrooms;
    /* state, delta */
    int applied;   /* the document changed (a state, or a delta that applied) */
    int gap;       /* a delta after a missing one, or with no document yet: the
                      document is unchanged; send sync with proto_client_doc_seq() */
    int nevents;   /* delta: number of events */
    int turn_over; /* delta: it holds a "placed" event (someone played a tile) */
};

struct proto_client_doc;

/* A document holder with no document yet (seq -1) and no seat (-1). NULL when
 * out of memory. */
struct proto_client_doc *proto_client_doc_new(void);
void proto_client_doc_free(struct proto_client_doc *d);

/* Classify one server message into *ev and, when d is not NULL, apply it:
 * `state` replaces the document, `delta` with seq == doc seq + 1 patches it,
 * a delta with an older seq is ignored (applied 0, gap 0: a duplicate after a
 * sync), a newer one sets gap. d may be NULL to classify only (load tools).
 * Returns 0, or CARC_E_JSON (not a JSON object with a string "type"), CARC_E_TYPE
 * (unknown type; ev->type is PROTO_S_UNKNOWN), CARC_E_INVAL (a field has the
 * wrong type, or a patch did not apply: the document is then dropped, seq is -1,
 * and proto_client_encode_sync(proto_client_doc_seq(d), ...) asks for a fresh
 * state), CARC_E_NOMEM. ev is filled as far as it could be read in every case. */
int proto_client_handle(struct proto_client_doc *d, const char *text, size_t len,
                        struct proto_client_event *ev);

/* The seq of the document, or -1 when there is none. */
long long proto_client_doc_seq(const struct proto_client_doc *d);

/* The document as compact JSON text (malloc'd), or NULL when none or no memory. */
char *proto_client_doc_dump(const struct proto_client_doc *d);

/* Our own seat, remembered for proto_client_my_turn (-1: spectator, the default). */
void proto_client_seat_set(struct proto_client_doc *d, int seat);
int proto_client_seat(const struct proto_client_doc *d);

/* Top-level values of the document; -1 when there is no document or the value is null. */
int proto_client_phase(const struct proto_client_doc *d);   /* enum proto_phase */
int proto_client_current(const struct proto_client_doc *d); /* seat to move */
int proto_client_tile(const struct proto_client_doc *d);    /* tile type to place */
int proto_client_turn(const struct proto_client_doc *d);
int proto_client_tiles_left(const struct proto_client_doc *d);
int proto_client_host(const struct proto_client_doc *d);
/* 1 when the game runs and the current player is our seat. */
int proto_client_my_turn(const struct proto_client_doc *d);
/* Room options: sets bitmask (1 << enum carc_set), farmers off, enum carc_escape_rule.
 * Returns 0, or -1 when there is no document. */
int proto_client_options(const struct proto_client_doc *d, unsigned *sets, int *no_farmers,
                         int *escape_rule);
/* The scoring variants of options (farms: enum carc_farm_rule, small_city: 1 for 2); absent
 * keys give the defaults. Returns 0, or -1 when there is no document. */
int proto_client_variants(const struct proto_client_doc *d, int *farm_rule, int *small_city);

struct proto_client_seat {
    char name[PROTO_NAME_MAX];
    int taken, connected;
    int score, meeples, large, herbs;
};
/* Number of seats (0 without a document); seat i into *out (0, or -1 when i is out of range). */
int proto_client_nseats(const struct proto_client_doc *d);
int proto_client_seat_get(const struct proto_client_doc *d, int i, struct proto_client_seat *out);

/* Tiles still in the draw pile: count[t] for tile types t < n (others are not
 * written; count may be NULL). Returns the total, or -1 without a document. */
int proto_client_remaining(const struct proto_client_doc *d, int *count, int n);

#define PROTO_CLIENT_SPOTS CARC_MAX_SEGS /* meeple spots of one placement, at most */
#define PROTO_CLIENT_ESCAPES 8           /* escapable knights of one player, at most */

/* A meeple's or knight's place: tile position, segment index on the tile
 * there, and its feature name. */
struct proto_client_spot {
    int x, y;
    int seg;
    char feature[PROTO_FEATURE_MAX];
};

/* One legal placement of the current tile (an entry of the `legal` message). */
struct proto_client_legal {
    int x, y, rot; /* rot in quarter turns */
    int nmeeples;  /* meeple spots on the placed tile (x, y here); empty with no supply */
    struct proto_client_spot meeples[PROTO_CLIENT_SPOTS];
    int nescapes; /* the mover's knights that may escape after this placement */
    struct proto_client_spot escapes[PROTO_CLIENT_ESCAPES];
};
/* Up to max legal placements into out (may be NULL), in the message's order,
 * from the last `legal` message handled with d, while it is the list of the
 * document's turn (same turn, mover and tile). Returns how many it lists (may
 * exceed max); 0 when there is none for this turn (not the mover, or it has
 * not arrived yet: it follows the delta or state that gave the turn). */
int proto_client_legal(const struct proto_client_doc *d, struct proto_client_legal *out, int max);
/* 1 when d holds the mover's `legal` message of the document's current turn. */
int proto_client_legal_ready(const struct proto_client_doc *d);

/* One tile of the board. */
struct proto_client_cell {
    int x, y;
    int tile, rot;                   /* tile type, quarter turns */
    int player;                      /* meeple owner, -1 when no meeple */
    int large;                       /* that meeple is the large one */
    struct proto_client_spot meeple; /* seg -1 and "" when no meeple */
};
/* Up to max board tiles into out (may be NULL), in the order they were
 * placed (the start tile first). Returns how many there are. */
int proto_client_board(const struct proto_client_doc *d, struct proto_client_cell *out, int max);

/* Rebuild an engine position from the document (phase playing): a game
 * with the document's seats, sets and options, every board tile placed in
 * order with carc_game_setup_place and its current meeple, then scores,
 * supplies, herbs, turn, current player and tile copied from the document.
 * The draw pile is the current tile followed by `remaining` in catalogue
 * order (the true order is secret): shuffle g->deck[g->deck_pos..deck_len)
 * for simulations. Legal placements and meeple spots then match the
 * document's. Returns 0, or -1 without a playing document, or a negative
 * CARC_E_* code with err filled (the engine's, or CARC_E_INVAL for a malformed
 * document). g is then not usable. */
int proto_client_game(const struct proto_client_doc *d, struct carc_game *g,
                      struct carc_error *err);

/* Rooms of a `rooms` message (or of GET /api/rooms' array): up to max into out. */
struct proto_client_room {
    char room[PROTO_ROOM_MAX];
    int seats, taken;
    int phase; /* enum proto_phase */
    unsigned sets;
    int password;
    char host[PROTO_NAME_MAX];
};
/* Returns how many rooms the text lists (may exceed max), or CARC_E_JSON. */
int proto_client_rooms(const char *text, size_t len, struct proto_client_room *out, int max);

/* ---- client messages ----
 * `id` is the compact JSON of the message id ("12" or "\"a\""), or NULL / ""
 * for none; it must be a JSON string or an integer, else NULL is returned. */

/* Any client message from the struct the server decodes into (m->id is used as is).
 * proto_msg_decode(proto_client_encode(m)) gives m back. */
char *proto_client_encode(const struct proto_msg *m);

/* list, leave, start, ping: messages with no fields. */
char *proto_client_encode_simple(int type /* enum proto_type */, const char *id);
char *proto_client_encode_create(const char *name, int seats, unsigned sets, const char *id);
char *proto_client_encode_join(const char *room, const char *name, const char *id);
char *proto_client_encode_resume(const char *room, const char *token, long long seq /* -1: none */,
                                 const char *id);
char *proto_client_encode_watch(const char *room, long long seq /* -1: none */, const char *id);
/* seq -1 (no document, see proto_client_doc_seq) asks for a fresh state. */
char *proto_client_encode_sync(long long seq, const char *id);
char *proto_client_encode_chat(const char *text, const char *id);
/* play: tile type, position, quarter turns; meeple: segment index on `tile` or -1;
 * escape: NULL, or the knight (x, y and feature; seg is not read). */
char *proto_client_encode_play(int tile, int x, int y, int rot, int seg, int large,
                               const struct proto_client_spot *escape, const char *id);

#endif
