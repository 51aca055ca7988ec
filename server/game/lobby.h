/* lobby.h: every room and session of one carcd process, and the table of
 * client message types.
 *
 * The transport tells the lobby about connections (open, message, close) and
 * drives time (tick); the lobby answers by queueing to sessions. Nothing here
 * knows about sockets, libuv or libwebsockets, so tests drive it directly.
 *
 * A message goes: size cap -> flood bucket (close 1008) -> decode (error with
 * the decoder's code) -> rate bucket (error rate_limited) -> the command table
 * (who may send it, the room's phase, the named room) -> its handler. */
#ifndef CARCD_LOBBY_H
#define CARCD_LOBBY_H

#include <stddef.h>
#include <stdint.h>

#include "conn/limits.h"
#include "conn/session.h"
#include "game.h"
#include "game/room.h"

struct lobby_ip;
struct store;
struct bots;
struct roomnode;
struct tz_db;

/* Something a person who is not there should hear of: plain data for the
 * notice hook (the notifications). */
struct lobby_notice {
    int kind; /* enum room_notice: turn, low (time), over (the game), rematch */
    char room[PROTO_ROOM_MAX];
    long long account;  /* the seat's account (never 0: guests are not told) */
    int seat;           /* its index in play order */
    long long deadline; /* when its clock runs out (ms since 1970), 0 without a clock */
    int moves;          /* moves played so far: with kind, for deduplication */
    int rank;           /* over: 1 + the seats that scored more (ties share a rank) */
    int from;           /* rematch: the seat (of the finished game) that offers it; room:
                           the new room */
    int n;              /* players, in seat order */
    char names[CARC_MAX_PLAYERS][PROTO_NAME_MAX];
    int scores[CARC_MAX_PLAYERS];
};

/* A rated game that ended: plain data for the rated_game hook. */
struct lobby_rated_game {
    char room[PROTO_ROOM_MAX];
    long long time_ms; /* the end, wall clock */
    int n;             /* players, in seat order */
    struct {
        long long account; /* the seat's account; 0 for a bot the host added */
        int bot;           /* 0: a person's seat (whoever played it at the end); 1 + enum
                              carc_bot_level */
        int score;         /* final score */
        int forfeited;     /* lost the seat to its clock: ranked after those who did not */
    } p[CARC_MAX_PLAYERS];
};

struct lobby {
    struct lobby_limits lim;
    const char *server_name; /* in `welcome` */

    struct room **buckets; /* rooms by id */
    unsigned nbuckets;
    int nrooms;
    struct room *newest, *oldest;

    struct session *idle_head, *idle_tail; /* open sessions, least recently active first */
    int nsessions;
    unsigned long next_id;

    struct lobby_ip **ips; /* websocket connections per peer address */
    unsigned nips;

    struct room_holds holds; /* what every room holds for its commits (held-bytes) */

    int shutting_down;
    uint64_t now; /* the loop's clock at the last call that gave one (ms) */
    /* Stalls of the loop (lobby_stall): the last one logged (loop ms, 0: none
     * yet), and those not logged since, their count and time. */
    uint64_t stall_logged, stall_quiet_ms;
    int stall_quiet;
    struct store *store;    /* NULL: memory only (lobby_store_set) */
    struct bots *bots;      /* NULL: no bot plays (lobby_bots_set) */
    const struct tz_db *tz; /* the time zones clocks may name (lobby_zones_set); NULL: UTC */
    struct roomnode *node;  /* NULL: one node alone; else the cluster (roomnode.h) */

    /* Seats of accounts (issue 27): when a game starts, called once for
     * each seat that belongs to an account (room.h room_seat.account), with
     * its final index and the wall clock; main.c hands it to the accounts
     * service (the games of an account). NULL: nobody is told. */
    void (*account_game)(void *arg, const char *room, int seat, long long account,
                         long long time_ms);
    void *account_game_arg;
    /* Ratings (PROTOCOL.md "Ratings"): when a rated room's game ends by a
     * move (not when it is abandoned or closed), called once with its players
     * in seat order; main.c hands it to the accounts service, which rates
     * them. NULL: rated rooms cannot be created (bad_request). */
    void (*rated_game)(void *arg, const struct lobby_rated_game *g);
    void *rated_game_arg;
    /* Notifications (PROTOCOL.md "Notifications"): a seat of an account
     * whose player has no connection to the room: its turn came (and no bot
     * plays it), its clock runs low, or the game ended. NULL: nobody is told. */
    void (*notice)(void *arg, const struct lobby_notice *t);
    void *notice_arg;
    /* Vacations (PROTOCOL.md "Vacations"): the correspondence clock of seat
     * `seat` (an account's) of room ran out at `at` (wall ms; its deadline)
     * after `moves` moves: main.c asks
     * the accounts service, whose answer comes back by lobby_vacation_answer
     * (exactly once, maybe from inside the call). NULL: no vacations. */
    void (*vacation)(void *arg, long long account, const char *room, int seat, int moves,
                     long long at);
    void *vacation_arg;

    /* Test hooks (lobby_test_game): every game started uses them. */
    int fixed_seed;
    uint64_t seed;
    uint8_t deck[CARC_MAX_TILES];
    int deck_len;
};

/* A lobby with these limits (copied). Never NULL (out of memory aborts). */
struct lobby *lobby_new(const struct lobby_limits *lim);
/* Free every room. Sessions still open are detached first (not told). */
void lobby_free(struct lobby *lb);

/* A new connection; s was set up with session_init(). Queues `welcome`.
 * Returns 0, or -1 when it is refused (too many connections from peer, or
 * shutting down): s is then already closing (1008 or 1001). peer: the
 * address as text ("" when unknown: not counted). */
int lobby_session_open(struct lobby *lb, struct session *s, const char *peer, uint64_t now);

/* One whole inbound text message of s at time now (ms). */
void lobby_session_message(struct lobby *lb, struct session *s, const char *text, size_t len,
                           uint64_t now);

/* The connection of s is gone (whatever closed it): s leaves its room and the
 * lobby forgets it. The caller then calls session_fini(). Idempotent. */
void lobby_session_close(struct lobby *lb, struct session *s);

/* Time passes: idle connections are closed (4002), rooms with nobody
 * connected for room_ttl seconds (lobby_room_ttl for a room in the lobby)
 * are deleted. Call about once a second. */
void lobby_tick(struct lobby *lb, uint64_t now);

/* Clocks and bots (turn.h): about ten times a second. */
void lobby_clock_tick(struct lobby *lb, uint64_t now);

/* The loop stalled for ms milliseconds, up to now (util/stall.h calls it
 * back: a freeze, SIGSTOP, swapping): every running turn starts ms later, so
 * that no clock is charged for the time nobody could play (the deltas of the
 * turns' new starts go out at the next clock tick), and a warning says so,
 * at most once a minute (the stalls in between are added up in the next
 * line). Returns the running clocks credited. */
int lobby_stall(struct lobby *lb, uint64_t ms, uint64_t now);

/* The answer to the vacation hook: the account's vacation [from, until)
 * (wall ms; until <= now: none). Nothing when the room is gone. */
void lobby_vacation_answer(struct lobby *lb, const char *room, int seat, int moves, long long from,
                           long long until);
/* account took or ended a vacation by hand: every seat of it in this
 * lobby's rooms learns [from, until). */
void lobby_vacation_set(struct lobby *lb, long long account, long long from, long long until);

/* Bots play seats from now on (bot seats, takeover). Set before any room exists. */
void lobby_bots_set(struct lobby *lb, struct bots *b);
/* The time zones a clock's time_zone may name (util/tz.h; owned by the
 * caller, kept until lobby_free). Set before any room exists. */
void lobby_zones_set(struct lobby *lb, const struct tz_db *tz);

/* Close every session with 1001 "server restarting, retry" and refuse new
 * ones. */
void lobby_shutdown(struct lobby *lb);

/* The public rooms whose game has not ended, newest first, at most lim.list_max: a `rooms` message
 * (as_message) or the bare JSON array (GET /api/rooms). malloc'd. */
char *lobby_rooms_encode(const struct lobby *lb, const char *ref, int as_message);

struct room *lobby_room_find(const struct lobby *lb, const char *id);

/* ---- requests that waited for the cluster (roomnode.h) ----
 * lobby_cmd.c hands these to roomnode_locate / roomnode_create as their
 * continuations (roomnode_then_fn); the node never names them. */

/* A decoded request of s run as if it had just arrived (past the size and
 * rate checks): the command table's checks, its handler, its error. located:
 * the cluster already looked for its room (a room still missing is then
 * no_such_room, not looked for again). */
void lobby_session_request(struct lobby *lb, struct session *s, const struct proto_msg *m,
                           int located);
/* The room of a create that passed its checks, with id (its lease taken):
 * made, s seated as its host. */
void lobby_room_create(struct lobby *lb, struct session *s, const struct proto_msg *m,
                       const char *id);
/* Unlink r, tell its members they left, free it (the caller has done what
 * the store needs: roomdb_forget / roomdb_close). */
void lobby_room_delete(struct lobby *lb, struct room *r);

/* ---- for the admin API (admin/admin.h) ---- */

/* Close r now: each member gets `notice` {text, room}, then `left`, and is
 * back in no room; the store keeps it as closed for `closed` ("admin",
 * roomdb_close); r is freed. */
void lobby_room_close(struct lobby *lb, struct room *r, const char *closed, const char *text);
/* A lobby room with no person left in it (room_is_dead) is deleted. */
void lobby_room_reap(struct lobby *lb, struct room *r);
/* Every open connection gets `notice` {text}. The number told, or -1 when
 * text is not valid UTF-8. */
int lobby_notice(struct lobby *lb, const char *text);

/* Keep every room in st from now on (rooms write before they tell, store.h).
 * Set before any room exists. */
void lobby_store_set(struct lobby *lb, struct store *st);
/* Add r, new (room_new, room_new_restored), as the newest room: it gets the
 * lobby's store, bots and bot pace. */
void lobby_room_add(struct lobby *lb, struct room *r);

/* Tests: deal every later game from this seed, and from this deck of tile
 * ids when n > 0 (the game ends when it is used up). Returns 0 or CARC_E_DECK
 * for an unknown id. */
int lobby_test_game(struct lobby *lb, uint64_t seed, const char *const *deck, int n);

#endif
