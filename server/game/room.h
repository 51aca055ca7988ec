/* room.h: one game room: seats, spectators, the engine's game, the public
 * state document and the deltas that lead to it.
 *
 * Every change to the public state goes through one path: mutate the room,
 * build the new document, encode ONE delta (seq + 1) against the previous
 * document, keep it in the history ring and queue the same shared buffer to
 * every connected member. A room never sees the transport: it queues to
 * sessions (session.h).
 *
 * The room_* actions are called by the lobby's command table after it has
 * checked who sent the message and the room's phase (lobby_cmd.c); they do not
 * check those again. Each returns 0 (replies queued), or a negative CARC_E_*
 * code with err filled, in which case nothing changed and nothing was queued:
 * the caller answers with an `error`. Passwords and tokens given are buffers
 * of the sizes in struct proto_msg. */
#ifndef CARCD_ROOM_H
#define CARCD_ROOM_H

#include <stdint.h>

#include "conn/sbuf.h"
#include "conn/session.h"
#include "fair.h"
#include "game.h"
#include "history.h"
#include "msg.h"
#include "sha256.h"
#include "state.h"

#define ROOM_CHAT_KEPT 32 /* chat lines a `history` carries */
#define ROOM_TIMED 4      /* held moves timed at once (struct room.timed_ns) */

struct lobby;
struct tz_zone;
struct carc_record;
struct store;
struct bots;
struct bots_job;

struct room_seat {
    char name[PROTO_NAME_MAX];
    char token_hash[SHA256_HEX]; /* SHA-256 of the secret token; the token itself is not kept */
    int taken;
    long long account;  /* the account the seat belongs to (taken signed in), 0: a guest's */
    struct session *s;  /* the connected session, or NULL */
    int bot;            /* 0: a person's seat; else 1 + enum carc_bot_level (no token) */
    int autoplay;       /* enum proto_autoplay: why a bot plays this person's seat now */
    int forfeited;      /* lost the seat to its clock (on_timeout forfeit) */
    int timeouts;       /* clock timeouts in a row (on_timeout skip) */
    long long clock_ms; /* time left when its current (or next) turn starts */
    /* Its account's vacation as the room knows it (wall ms, 0: none): no
     * correspondence clock of the seat runs in [vac_from, vac_until). */
    long long vac_from, vac_until;
    int vac_asking;      /* its account's vacation asked (a clock ran out): no timeout meanwhile */
    int vac_none;        /* 1 + r->nmoves of the turn whose asking found no vacation; 0 */
    uint64_t offline_ms; /* loop ms when its connection went; 0 when never connected since */
    char entropy[CARC_FAIR_HEX]; /* the fair draw: what its player sent, "" none (secret) */
};

/* What a held message is, for when its commit fails (room_hold.c): then
 * nothing waits any more, and each held message is dropped or answered at
 * once according to its kind. An entry with alt sends alt instead, whatever
 * its kind (the mover's storage_error, a reply that goes out as it is). */
enum room_held_kind {
    ROOM_HELD_TELL = 0, /* the room's news (deltas, legal, catch-up deltas): dropped, a fresh
                           state follows */
    ROOM_HELD_SAFE,     /* a message that shows nothing the disk must have first (watching,
                           joined without a token, chat): sent */
    ROOM_HELD_END,      /* the state or synced that ends a catch-up with `ref`: the fresh
                           state with that ref instead */
    ROOM_HELD_SEAT      /* joined with a new seat's token: the seat is freed and the
                           requester gets alt (storage_error); sent when it cannot be freed */
};

/* A message held until batch `gen` is committed (write before tell). alt,
 * when not NULL, goes to s instead if that commit fails (the mover's error).
 * ref: the request's ref (ROOM_HELD_END only; malloc'd, the entry's). */
struct room_held {
    unsigned long gen;
    struct session *s;
    struct sbuf *b, *alt;
    int kind; /* enum room_held_kind */
    char *ref;
};

/* Held messages of every room, counted against one bound (held-bytes),
 * each recipient's reference counted. Owned by the lobby; rooms point to it. */
struct room_holds {
    size_t bytes, max; /* max 0: no bound */
};

struct room {
    char id[PROTO_ROOM_MAX];
    char pw_hash[SHA256_HEX]; /* SHA-256 of the password; "" = none */
    int private_room;         /* left out of `list` and /api/rooms */
    int phase;                /* enum proto_phase */
    unsigned sets;
    int no_farmers, escape_rule;
    int farm_rule, small_city, seat_random; /* the variants (RULES.md 2.8), as created */
    int rated; /* a rated game (PROTOCOL.md "Ratings"): signed-in players and bots only */
    int nseats, host;
    struct room_seat seats[CARC_MAX_PLAYERS];
    struct session *spectators; /* doubly linked through session.rnext/rprev */
    int nspectators;
    int empty; /* nobody connected since empty_since (ms); kept by the lobby */
    /* The address key (lobby__peer_key) that created it ("" unknown: a
     * restored room), and whether the lobby counts the room against it now
     * (lobby-rooms-per-ip: while in the lobby, and while its game goes on with
     * nobody connected). */
    char creator[64];
    int ip_counted;
    uint64_t empty_since;

    struct carc_game *game;    /* NULL in the lobby; engine player i is seat i */
    struct proto_state *state; /* the document at seq */
    long long seq;
    struct sbuf **hist; /* the deltas of seqs hist_first..seq, hist[seq % hist_cap] */
    int hist_cap;
    size_t hist_bytes, hist_max_bytes; /* text kept in hist, and its bound */
    long long hist_first;
    long long snap_below; /* resume/sync from a seq below this gets a state (restored rooms) */

    /* The game as played: seed, the test deck if any, the moves in order. */
    uint64_t seed;
    uint8_t *deck; /* NULL unless dealt from an explicit deck */
    int deck_len;
    struct carc_move *moves; /* moves_cap of them (at most CARC_MAX_MOVES), with the game */
    int moves_cap;
    int nmoves;

    /* The fair draw (fair/fair_room.h): the secret (hex; "" for a room stored before it) and
     * its commitment; once started, the entropies in the order they were hashed and fair = 1
     * when the seed was derived from them. The secret and the entropies are never public
     * while the room lives. */
    char fair_secret[CARC_FAIR_HEX], fair_commit[CARC_FAIR_HEX];
    char fair_entropy[CARC_MAX_PLAYERS][CARC_FAIR_HEX];
    int fair;

    /* Turns (turn.h): the clock, bots playing seats. */
    struct proto_clock clock;  /* clock.initial == 0: none */
    uint64_t turn_ms;          /* loop ms the current turn started; 0: not yet (restored) */
    long long turn_wall;       /* the same on the wall clock (ms since 1970), for the state */
    long long turn_wall_saved; /* restored: the stored turn start of a per-move clock, 0 */
    const struct tz_zone *tz;  /* clock.time_zone's zone (the lobby's); NULL: UTC */
    int turn_moves;            /* nmoves when the current turn started */
    int timed_out;             /* the current turn's clock ran out and was handled */
    int turn_moved;            /* a stall moved the turn's start (turn_stall): publish it */
    struct bots *bots;         /* NULL: no bot ever plays (tests without bots) */
    int bot_pace_ms;           /* a bot's turn lasts at least this while anyone watches */
    struct bots_job *job;      /* the search playing the current turn, or NULL */
    int job_moves;             /* nmoves of the turn the job plays */
    int bot_refused;           /* this turn's bot move was refused: play it at random */
    /* Called once when its game ends by a move (lobby_room_add: the lobby's
     * rated game hook); NULL: nobody is told. */
    void (*over)(void *arg, const struct room *r);
    void *over_arg;
    /* A player may need telling (lobby.h notice): kind ROOM_NOTICE_TURN when
     * the turn passes to another seat (after a move that does not end the
     * game, and at the start), ROOM_NOTICE_LOW when the seat to move has a
     * quarter of its turn's time left, or an hour, ROOM_NOTICE_OVER for each
     * seat when the game ends by a move. NULL: nobody is told. */
    void (*notice)(void *arg, const struct room *r, int seat, int kind);
    void *notice_arg;
    /* The mover's correspondence clock ran out: its account's vacation is
     * asked (lobby.h vacation; the answer: room_vacation). NULL: none. */
    void (*vacation)(void *arg, const struct room *r, int seat);
    void *vacation_arg;
    int low_told; /* ROOM_NOTICE_LOW bits told this turn (1: a quarter, 2: the last hour) */
    /* Bots alone (turn.h): the game pauses once nobody has been connected to
     * it for alone_grace_ms (bots-alone-grace; 0: never). */
    uint64_t alone_grace_ms;
    uint64_t alone_ms;   /* loop ms since which nobody is connected to its game; 0: someone is */
    uint64_t paused_ms;  /* loop ms it paused (no bot, no clock); 0: it goes on */
    uint64_t resumed_ms; /* loop ms it last went on after a pause: a bot's pace counts from it */

    /* The last ROOM_CHAT_KEPT chat lines, for `history` (allocated with the first). */
    struct proto_chat_line *chat;
    int nchat, chat_next;

    /* Storage (store.h); store NULL = memory only, nothing is held. */
    struct store *store;
    int dirty;                       /* marked in the store's batch being filled (roomdb.c) */
    unsigned long wait_gen;          /* sends wait for this batch */
    int moves_saved;                 /* moves handed to a batch */
    int moves_committed;             /* moves known to be on disk */
    long long seq_stored;            /* the seq the disk holds for the room; -1: not stored */
    struct room_holds *holds;        /* the lobby's bound on held messages, or NULL */
    int finish_saved;                /* the finished record was handed to a batch */
    uint64_t created_ms, updated_ms; /* wall clock, set by the store */
    struct room_held *held;          /* FIFO of held messages, held[held_head..nheld) */
    int nheld, held_head, held_cap;
    /* Moves whose delta is held: when each was accepted (metrics_now_ns) and
     * the batch it waits for, for carcd_move_broadcast_seconds. More than
     * ROOM_TIMED at once (bots in a slow commit) are not timed. */
    uint64_t timed_ns[ROOM_TIMED];
    unsigned long timed_gen[ROOM_TIMED];
    int ntimed;

    /* The cluster's room directory (roomnode.c): what was last published. */
    uint64_t dir_hash;    /* of the entry's text */
    uint64_t dir_ms;      /* loop ms of the last put */
    uint64_t dir_updated; /* updated_ms when it was computed */
    int dir_listed;       /* published (and not taken off) */
    /* Owned by the lobby. */
    struct room *hnext;         /* hash chain */
    struct room *newer, *older; /* creation order */
};

/* A new room in the lobby phase at seq 0, with no seat taken. c is a decoded
 * `create` message (its name is not used here). history: deltas to keep, as
 * long as they add up to at most history_bytes (then a resume gets a state,
 * which costs less than that many deltas anyway).
 * Never NULL (out of memory aborts). */
struct room *room_new(const char *id, const struct proto_msg *c, int history, int history_bytes);
/* room_record.c: the room that the store kept as e (store/store.h), built
 * again: its settings, seats, password, host and times, its fair draw and,
 * once started, its game dealt from its seed (or deck) and its stored moves
 * (read by the record codec) replayed; it resumes at e->seq + 1 (room_restore).
 * Not in a lobby yet and without a store, like room_new's. NULL with a
 * sentence in err when the row's seats or host are bad, or its moves do not
 * load or replay. */
struct store_room;
struct room *room_new_restored(const struct store_room *e, int history, int history_bytes,
                               char *err, size_t errlen);
/* Free r; it must have no members (room_evict first). */
void room_free(struct room *r);

/* Check a `create` message's game settings against the engine (sets, seat
 * count for those sets). 0 or a CARC_E_* code with err. */
int room_settings_check(const struct proto_msg *c, struct carc_error *err);

/* The creator takes seat 0 and is the host: `joined` with the token, then
 * `state` seq 0. No delta (nobody else is there). A seat taken by a signed-in
 * session (s->account, here and in room_join) belongs to its account: the
 * seat's name is the account's (name is ignored) and it keeps the account's
 * id (room_account_seat). */
void room_create_seat(struct room *r, struct session *s, const char *name, const char *ref);

/* Take the first free seat: everyone else gets a delta; s gets `joined` with
 * its token, then `state`. CARC_E_PASSWORD, CARC_E_ROOM_FULL, then
 * CARC_E_NAME_TAKEN when a taken seat (a bot's too) has the same name to
 * people (protocol/name.h: case and surrounding spaces aside). */
int room_join(struct room *r, struct session *s, const char *name, const char *password,
              const char *ref, struct carc_error *err);

/* Watch as a spectator: `watching`, then the deltas after seq, or `state`
 * when seq < 0 or too old. */
void room_watch(struct room *r, struct session *s, long long seq, const char *ref);

/* The seat whose token this is, or -1 (CARC_E_TOKEN for the caller). token
 * must be a buffer of PROTO_TOKEN_MAX bytes (as in struct proto_msg). */
int room_token_seat(const struct room *r, const char *token);

/* s takes back seat i (from room_token_seat): `joined` (no token), then the
 * deltas after seq, or a state when seq < 0 or too old. A session already on
 * that seat is detached and closed with 4000 (no delta: the seat stays
 * connected); else everyone else gets a delta. s must be in no room, or on
 * that very seat. */
void room_resume(struct room *r, struct session *s, int i, long long seq, const char *ref,
                 uint64_t now);

/* s leaves: in the lobby its seat is freed (the host passes to the next taken
 * seat), during or after a game the seat is kept for `resume`. s gets `left`. */
void room_leave(struct room *r, struct session *s, const char *ref, uint64_t now);

/* The connection of s is gone: its seat shows disconnected, or the spectator
 * is dropped. Nothing is sent to s. */
void room_detach(struct room *r, struct session *s, uint64_t now);

/* Start the game (host, lobby phase): empty seats are dropped keeping the
 * order, then with options.seat_order "random" shuffled (room_seat_order:
 * from the game's seed; each connected player gets `joined` with its new
 * seat), and the engine deals from seed (or from deck when deck_len > 0).
 * seed ROOM_SEED_FAIR: the fair draw's, derived from the room's secret and
 * the players' entropy in seat order before any shuffle (fair/fair_room.h);
 * any other seed (tests) is used as it is and the record has no commitment.
 * CARC_E_NOT_ENOUGH, or an engine code (CARC_E_PLAYERS ...). */
#define ROOM_SEED_FAIR UINT64_MAX
int room_start(struct room *r, uint64_t seed, const uint8_t *deck, int deck_len, uint64_t now,
               struct carc_error *err);

/* The play order of n seated players under seat_order "random": order[k] is
 * the seat (counted over the taken seats, in seat order) that plays k-th. A
 * Fisher-Yates shuffle by the engine's generator (rng.h) seeded with
 * seed ^ ROOM_SEAT_SALT, so that it is not the draw's first numbers and
 * anyone holding the record's seed can recompute it (PROTOCOL.md create). */
#define ROOM_SEAT_SALT 0x5EA7000000000000ull
void room_seat_order(uint64_t seed, int n, int *order);
/* room_order.c: put the taken seats 0..nseats-1 of a room being started into
 * the play order of room_seat_order(seed); see room_start. */
void room__seats_shuffle(struct room *r, uint64_t seed);

/* A move of the seat of s: everyone gets the delta, s gets `ack` {seq}.
 * CARC_E_TURN, CARC_E_TIME_OUT (the clock ran out: the timeout is applied),
 * CARC_E_FEATURE, CARC_E_ESCAPE or any engine code. */
int room_play(struct room *r, struct session *s, const struct proto_msg *m, uint64_t now,
              struct carc_error *err);

/* The first free seat, or -1 when every seat is taken. */
int room_seat_free(const struct room *r);
/* The taken seat whose name is name to people (proto_name_same), or -1. */
int room_name_seat(const struct room *r, const char *name);
/* The name a seat taken by s gets: its account's when s is signed in, else
 * name. */
const char *room_seat_name(const struct session *s, const char *name);
/* The seat of a person (not a bot) that belongs to account (> 0), or -1. */
int room_account_seat(const struct room *r, long long account);
/* Seat i becomes s's: its name (room_seat_name) and its account. */
void room__seat_own(struct room *r, int i, const struct session *s, const char *name);
/* Seats held by people (not bots). */
int room_humans(const struct room *r);

/* A reply to s, a member of r (text is taken): queued behind whatever is
 * still held for s until a commit, so that s hears its replies in the order
 * of its requests (a refused `play` after an accepted one comes after that
 * one's delta and ack); sent at once when nothing is held for s. */
void room_reply(struct room *r, struct session *s, char *text);

/* `entropy` from the seat of s (lobby phase, a seated player: the lobby has
 * checked; fair_room.h): everyone gets a delta when the seat's `entropy` flag
 * changes; s gets `ack` {seq} once it is stored. */
void room_entropy(struct room *r, struct session *s, const char *data, const char *ref);

/* Everyone in the room (s included) gets `chat`. */
void room_chat(struct room *r, struct session *s, const char *text);

/* The configuration r's game was dealt from (seed, or deck); cfg->deck points
 * into r. r must have a game. */
void room__deal(const struct room *r, struct carc_config *cfg);
/* Keep a chat line for `history` (the last ROOM_CHAT_KEPT). */
void room__chat_keep(struct room *r, int seat, const char *name, const char *text);
/* s gets `history` (with ref): every turn's events since the start and the
 * last ROOM_CHAT_KEPT chat lines. */
void room_history(struct room *r, struct session *s, const char *ref);

/* The deltas after seq, or a `state` (with ref) when they are not kept. */
void room_sync(struct room *r, struct session *s, long long seq, const char *ref);

/* Detach every member (players' sessions and spectators) without telling
 * them; used before freeing a room. Each member gets `left` when send_left. */
void room_evict(struct room *r, int send_left);

/* The host's seat was freed: the next seat held by a person hosts. */
void room__host_pass(struct room *r);

/* Seats taken, and sessions connected (players and spectators). */
int room_taken(const struct room *r);
int room_members(const struct room *r);

/* A lobby room whose last person left (bots alone do not keep it): the
 * lobby deletes it. */
static inline int room_is_dead(const struct room *r)
{
    return r->phase == PROTO_PHASE_LOBBY && room_humans(r) == 0;
}

/* The room's line in `rooms` (pointers borrowed from r). */
void room_summary(const struct room *r, struct proto_room_summary *out);

/* ---- room_turn.c: acting on turn.h's decisions ---- */

struct turn_outcome;
/* Do what a turn.h decision asks (turn.h struct turn_outcome): publish its
 * delta or play its skip, then look for a bot's turn when it says so. */
void room__turn_apply(struct room *r, const struct turn_outcome *o, uint64_t now);
/* If a bot plays the seat to move and none is searching yet for this turn,
 * start one (turn_bot_level); its move comes back through room__move if the
 * turn it was searched for is still the current one. Call after publishing
 * a change. */
void room__schedule(struct room *r, uint64_t now);
/* The notice hook told of the seat to move, unless the game is over or that
 * seat is mover's (-1: at the start). */
enum room_notice { ROOM_NOTICE_TURN = 0, ROOM_NOTICE_LOW, ROOM_NOTICE_OVER, ROOM_NOTICE_REMATCH };
void room__turn_to(struct room *r, int mover);
/* The seat to move told when its clock comes to a quarter of the time it had
 * when its turn started (a turn of 20 minutes or more), and to its last hour
 * (a turn of more than 2 hours); once each per turn. room_tick calls it. */
void room__time_check(struct room *r, uint64_t now);

/* Seat i's account's vacation [from, until) (turn.h turn_vacation): the
 * answer to the room's vacation hook for the turn after `moves` moves, or
 * moves -1 for one taken by hand. Publishes the mover's new deadline. */
void room_vacation(struct room *r, int i, int moves, long long from, long long until);
/* Time passes (lobby_clock_tick, about ten times a second): a restored
 * room's turn starts (or a stall moved its start: turn_stall), everyone gets
 * a delta of it, then room_presence, turn_tick's decision, then a bot's
 * turn. */
void room_tick(struct room *r, uint64_t now, uint64_t grace_ms);
/* Who is connected to r may have changed (and time passes): the game pauses
 * when nobody has been for r->alone_grace_ms (its bot's search is dropped,
 * logged at info), and goes on as soon as someone is (a delta when the
 * turn's start moved; a bot's search is then asked for at the pace). A
 * waiting search of a room someone came back to goes before those of rooms
 * nobody watches (bots_job_promote). The lobby calls it after each change
 * of members, room_tick at every tick. */
void room_presence(struct room *r, uint64_t now);
/* A restored room's turn starts now, if it has not yet: everyone gets a delta
 * of it (a room taken over by a cluster node, before anyone is answered). */
void room_turn_restart(struct room *r, uint64_t now);
/* The loop stalled for ms up to now: turn_stall (nothing is published
 * here; the next room_tick does). 1 when r has a running clock. */
int room_stall(struct room *r, uint64_t ms, uint64_t now);
/* The host seats a bot of level (enum carc_bot_level) in the first free
 * seat of r (lobby): everyone gets a delta. 0, or CARC_E_ROOM_FULL. */
int room_bot_add(struct room *r, int level, struct carc_error *err);
/* The host frees bot seat i (lobby). 0, CARC_E_NOT_BOT or CARC_E_INVAL. */
int room_bot_remove(struct room *r, int i, struct carc_error *err);

/* Publish a change (see room.c): one delta with events ex (and mv's events),
 * to everyone but skip. Returns its seq. */
long long room__publish(struct room *r, const struct proto_extra_event *ex, int nex,
                        const struct carc_move *mv, const struct session *skip);
/* Apply mv (player = the seat to move) as the room's next move: validated by
 * the engine, the mover's clock charged, the next turn started, the delta
 * published with the extra events ex before the move's own. Returns the
 * delta's seq, or a negative code with err (nothing changed): storage
 * failing, or an engine code. */
long long room__move(struct room *r, const struct carc_move *mv, const struct proto_extra_event *ex,
                     int nex, uint64_t now, struct carc_error *err);

/* ---- room_hold.c: write before tell ---- */

/* The room changed: its next batch is where the change goes. Call before
 * queueing what tells of it. */
void room__dirty(struct room *r);
/* 1 while what the room queues must wait for its batch: a commit is due,
 * or something is held already (order). 0 while storage fails: nothing
 * waits for a commit that will not come, and the room tells only what the
 * disk holds (room__rebase). */
int room__holding(const struct room *r);
/* 1 while the room's store fails its commits. */
int room__failing(const struct room *r);
/* Hold b for s until the batch is stored; alt, when not NULL, goes to s
 * instead if that commit fails; kind and ref (ROOM_HELD_END) as in struct
 * room_held. Over the bounds (s's outbound queue with what is held for it,
 * or the lobby's held-bytes) s is closed with 4001 and nothing is held. */
void room__hold(struct room *r, struct session *s, struct sbuf *b, struct sbuf *alt, int kind,
                const char *ref);
/* Queue b (or the text, taken) to s now, or once the room's change is on
 * disk (ROOM_HELD_TELL). */
void room__send(struct room *r, struct session *s, struct sbuf *b);
void room__send_text(struct room *r, struct session *s, char *text);
/* The same with a kind (ROOM_HELD_SAFE, ROOM_HELD_END with the request's ref). */
void room__send_kind(struct room *r, struct session *s, char *text, int kind, const char *ref);
/* text now, or held with alt (both taken) for a failed commit. */
void room__send_alt(struct room *r, struct session *s, char *text, char *alt);
/* `joined` with a new seat's token (text, taken) to s, the reply to the
 * request with ref: now, or held (ROOM_HELD_SEAT, storage_error for a failed
 * commit). */
void room__send_seat(struct room *r, struct session *s, char *text, const char *ref);
/* s is leaving the room: what was held for it is dropped. */
void room__unhold(struct room *r, const struct session *s);
/* room_free: what is still held is dropped (its sessions are not touched:
 * every member was detached, and with it unheld, before). */
void room__held_fini(struct room *r);
/* Send what waited for batches up to gen. */
void room__release(struct room *r, unsigned long gen);
/* room.c, for room_store_done: the game is dealt again and replayed up to
 * r->moves_committed (the moves on disk), and logged; nothing is sent. */
void room__rollback(struct room *r);
/* room.c: the room's document built anew at seq_stored + 1 with no history
 * (every catch-up then gets a state): what a room tells while its storage
 * fails, never above the seq after the stored one, so that a room restored
 * after a crash (at stored + 1, with a snapshot for every older seq) never
 * meets a client that saw another history under the same seq. */
void room__rebase(struct room *r);
/* A move accepted at t0 (metrics_now_ns) has just been published: its
 * broadcast latency is counted now, or when its batch is released. */
void room__move_timed(struct room *r, uint64_t t0);
/* The batch holding r's change up to gen is done (the store's done hook,
 * through roomdb.c). ok: release what waits for it; moves and seq (what
 * that batch wrote) are on disk. Failed: the seats of joins not yet answered
 * are freed (in the lobby), the moves not committed are undone, the room is
 * rebased (room__rebase) and everything held is answered at once: movers get
 * `storage_error`, catch-ups and everyone else the fresh `state`. A lobby
 * room whose last person was freed so is dead (room_is_dead): the caller
 * reaps it. */
void room_store_done(struct room *r, unsigned long gen, int ok, int moves, long long seq);

/* ---- storage (roomdb.c, store/store.h) ---- */

/* Move i (< r->nmoves) as a record move (PROTOCOL.md "Game records"), the
 * text the store keeps for it: malloc'd, or NULL when the codec cannot write
 * it (a move the engine accepted always can). */
char *room__move_text(const struct room *r, int i);

/* Fill rec's settings, players, start, seed and deck from r (not its moves). */
void room_record_fill(const struct room *r, struct carc_record *rec);
/* The game record of r (seed included): malloc'd JSON, or NULL when r has no
 * game. closed: NULL, or why the room closed before the game's end
 * ("room-ttl", "stale-room"), written as the record's "closed". */
char *room_record_json(const struct room *r, const char *closed);

/* room_new_restored's last step. Restore a stored room: the seats are filled; when phase is not the
 * lobby, deal from seed (or deck) and replay moves (record moves, players filled in). seq: the
 * stored seq; the room resumes at seq + 1 and every resume from an older seq gets a snapshot. 0 or
 * an engine code. */
int room_restore(struct room *r, int phase, uint64_t seed, const uint8_t *deck, int deck_len,
                 const struct carc_move *moves, int nmoves, long long seq, struct carc_error *err);

#endif
