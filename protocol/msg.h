/* msg.h: protocol v1 messages (protocol/PROTOCOL.md) between JSON text and C.
 *
 * Client messages decode into struct proto_msg, a fixed-size value owned by
 * the caller. Server messages are encoded into malloc'd NUL-terminated text
 * that the caller frees. Decoding is strict and bounded: unknown keys, wrong
 * types, out-of-range values and texts over the limits are errors naming the
 * field. */
#ifndef PROTO_MSG_H
#define PROTO_MSG_H

#include <stddef.h>

#include "game.h"
#include "msg_types.h"
#include "perror.h"

#define PROTO_VERSION 2
#define PROTO_VERSION_TEXT "2" /* the same, for literal message heads */
#define PROTO_MSG_MAX 16384    /* bytes of one inbound message */
#define PROTO_ID_MAX 64        /* bytes of the compact JSON of a message "id" */
#define PROTO_NAME_MAX 33      /* player name: 1-32 bytes of UTF-8, NUL included */
#define PROTO_ROOM_MAX 17      /* room id, NUL included */
#define PROTO_TOKEN_MAX 33     /* seat token: 32 hex digits (128 bits), NUL included */
#define PROTO_PASSWORD_MAX 65
#define PROTO_CHAT_MAX 280 /* bytes of chat text */
#define PROTO_FEATURE_MAX 16
#define PROTO_ENTROPY_MAX 65 /* entropy data: 64 lowercase hex digits (32 bytes), NUL included */
#define PROTO_CLOCK_INITIAL_MAX 2592000  /* seconds: 30 days */
#define PROTO_CLOCK_INCREMENT_MAX 604800 /* seconds: 7 days */
#define PROTO_TZ_MAX 64                  /* bytes of a time zone's name, NUL included */

/* What the server does when a seat's clock runs out (PROTOCOL.md "Clocks and bots"). */
enum proto_timeout { PROTO_TIMEOUT_BOT = 0, PROTO_TIMEOUT_SKIP, PROTO_TIMEOUT_FORFEIT };
/* Wire name of a timeout policy ("skip"), or NULL. */
const char *proto_timeout_name(int policy);

/* A room's time control; initial == 0: no clock. A correspondence clock
 * (per_move > 0) gives every turn per_move seconds, nothing carried over: its
 * initial is per_move and its increment 0. */
struct proto_clock {
    int initial, increment;       /* seconds */
    int on_timeout;               /* enum proto_timeout */
    int per_move;                 /* seconds; 0: a bank clock (initial + increment) */
    int weekend_pause;            /* clocks stop from Saturday 00:00 to Monday 00:00 in time_zone */
    char time_zone[PROTO_TZ_MAX]; /* the tz database's name of the room's zone; "": "UTC" */
};

/* Client message types: PROTO_T_LIST (0) .. in the order of msg_types.h. */
enum proto_type {
#define PROTO__T(name, wire) PROTO_T_##name,
    PROTO_CLIENT_TYPES(PROTO__T)
#undef PROTO__T
        PROTO_T_COUNT
};

/* Wire name of a client message type ("play"), or NULL. */
const char *proto_type_name(int type);

/* Server message types, in the order of msg_types.h after PROTO_S_UNKNOWN: a
 * text that is not a server message (an unknown type, to a client). */
enum proto_server_type {
    PROTO_S_UNKNOWN = 0,
#define PROTO__S(name, wire) PROTO_S_##name,
    PROTO_SERVER_TYPES(PROTO__S)
#undef PROTO__S
        PROTO_S_COUNT
};

/* Wire name of a server message type ("delta"), or NULL (PROTO_S_UNKNOWN too). */
const char *proto_server_type_name(int type);
/* The type with that wire name, or PROTO_S_UNKNOWN. */
int proto_server_type_find(const char *name);
/* The type of a server message text[0..len) that these encoders wrote, from
 * the head they all put first ({"v":2,"type":"NAME"; no JSON is parsed):
 * PROTO_S_UNKNOWN for any other text. *code (code may be NULL) is set to an
 * error's CARC_E_* code, read from its "code" right after the head (and
 * "ref"); 0 when unknown and for every other type. */
int proto_server_type_of(const char *text, size_t len, int *code);

struct proto_msg {
    int type;              /* enum proto_type */
    char id[PROTO_ID_MAX]; /* compact JSON of "id" ("7", "\"abc\""), "" when absent */
    union {
        struct {
            char name[PROTO_NAME_MAX];
            int seats;     /* 2..6 */
            unsigned sets; /* bitmask of (1 << enum carc_set), base included */
            int no_farmers;
            int escape_rule; /* enum carc_escape_rule */
            int farm_rule;   /* options.farms: enum carc_farm_rule */
            int small_city;  /* options.small_city == 2 */
            int seat_random; /* options.seat_order == "random" */
            int private_room;
            int rated;                         /* "rated": true (PROTOCOL.md "Ratings") */
            char password[PROTO_PASSWORD_MAX]; /* "" = none */
            struct proto_clock clock;
        } create;
        struct {
            int level; /* enum carc_bot_level */
        } add_bot;
        struct {
            int seat;
        } remove_bot;
        struct {
            char room[PROTO_ROOM_MAX];
            char name[PROTO_NAME_MAX];
            char password[PROTO_PASSWORD_MAX];
        } join;
        struct {
            char room[PROTO_ROOM_MAX];
            char token[PROTO_TOKEN_MAX];
            long long seq; /* -1 when absent */
        } resume;
        struct {
            char room[PROTO_ROOM_MAX];
            long long seq; /* -1 when absent */
        } watch;
        struct {
            long long seq; /* -1 when absent: the client wants a fresh state */
        } sync;
        struct {
            int tile;                        /* tile type */
            int x, y, rot;                   /* rot in quarter turns */
            char feature[PROTO_FEATURE_MAX]; /* meeple feature, "" = no meeple */
            int large;
            int escape;
            int ex, ey;
            char efeature[PROTO_FEATURE_MAX]; /* escaping knight's feature */
        } play;
        struct {
            char text[PROTO_CHAT_MAX + 1];
        } chat;
        struct {
            char data[PROTO_ENTROPY_MAX]; /* 64 lowercase hex digits (fair.h) */
        } entropy;
    } u;
};

/* Decode one client message. Returns 0, or a negative code with err naming the
 * field (CARC_E_JSON, CARC_E_VERSION, CARC_E_TYPE, CARC_E_INVAL for a bad or
 * unknown field, CARC_E_TOO_BIG). m->id is filled as soon as it is read, so an
 * error reply can carry "ref" even when a later field is bad. */
int proto_msg_decode(const char *text, size_t len, struct proto_msg *m, struct proto_error *err);

/* Server messages. `ref` is the compact JSON of the request's id or "" (then
 * no "ref" key). Each returns malloc'd text, or NULL when out of memory. */
/* now_ms: the server's wall clock (ms since 1970), for clients' clocks. */
char *proto_encode_welcome(const char *server, int message_bytes, int messages_per_second,
                           long long now_ms);
char *proto_encode_error(int code, const char *message, const char *ref);
char *proto_encode_joined(const char *room, int seat, const char *token /* NULL: none */,
                          const char *ref);
char *proto_encode_watching(const char *room, const char *ref);
char *proto_encode_left(const char *ref);
char *proto_encode_pong(const char *ref);
/* rematch: the finished game's host opened room `room` for a new game with the
 * same settings (PROTOCOL.md "rematch"); seat: the recipient's seat in the
 * finished game, -1 for a spectator (null). */
char *proto_encode_rematch(const char *room, const char *host, int seat, const char *ref);
char *proto_encode_ack(long long seq, const char *ref);
/* The end of a catch-up by deltas (sync, or resume/watch with seq): seq is the
 * room's, the last delta just sent. */
char *proto_encode_synced(long long seq, const char *ref);
char *proto_encode_chat(int seat /* -1: spectator */, const char *name, const char *text);
/* {"v":2,"type":"notice","text":..[,"room":..]}: a word from the server's
 * administrator (room: the room it is about, NULL: none). NULL when text is
 * not valid UTF-8 (or out of memory). */
char *proto_encode_notice(const char *text, const char *room);
/* {"v":2,"type":"redirect",["ref",]"room","node","path","retry_ms"}: the room
 * is served by another node of the cluster (PROTOCOL.md "Redirects between
 * nodes"); path is that node's WebSocket path on the same host. */
char *proto_encode_redirect(const char *room, const char *node, const char *path, int retry_ms,
                            const char *ref);

struct proto_room_summary {
    const char *room;
    int seats, taken;
    int phase; /* enum proto_phase */
    unsigned sets;
    int password;
    const char *host; /* host's name */
    /* options, as in the state document */
    int no_farmers, escape_rule, farm_rule, small_city, seat_random;
    int rated; /* "rated": true, only when rated */
    /* Not NULL: the entry is this text instead, an object that
     * proto_encode_room_entry wrote (another node's room, from the room
     * directory); an entry whose text is not a JSON object is left out. */
    const char *json;
};
/* {"v":1,"type":"rooms","rooms":[...]} ; with type NULL just the JSON array (for HTTP). */
char *proto_encode_rooms(const struct proto_room_summary *rooms, int n, const char *ref,
                         int as_message);
/* One entry of that list, as a JSON object (the room directory's text). */
char *proto_encode_room_entry(const struct proto_room_summary *room);

/* GET /api/tiles: the catalogue with geometry (edges, segments with masks and flags). */
char *proto_encode_tiles(void);

#endif
