/* accounts.h: accounts and sessions as a service of the loop (issue 27).
 *
 * The HTTP routes (and later the WebSocket upgrade) ask here; every request
 * that touches the database or a password runs on libuv's thread pool, and
 * its answer comes back through a callback on the loop. The loop never waits:
 * Argon2id (tens of ms, 64 MiB) and the database are off it.
 *
 * Sharing: at most ACCOUNTS_RUNNING jobs run at once, each on a database
 * handle of its own (store/accounts.h), so that sign-ups cannot take every
 * thread of the pool from storage's commits and the bots. Further requests
 * wait in one FIFO of at most ACCOUNTS_QUEUE; past it a request is refused at
 * once (accounts_* returns NULL: the caller answers 503). An answer known
 * without the pool (a refused name or password, registration closed, a
 * sign-in over its limit, a token that is no token) still comes through the
 * callback, on a later turn of the loop (an idle handle), never from inside
 * the accounts_* call; such requests count against ACCOUNTS_QUEUE too.
 *
 * Sign-in limits (players/attempts.h), checked on the loop before anything is
 * queued: per address (the peer as conn/ counts it) and per account name.
 * An unknown name costs a hash check like a known one, so the answer's time
 * does not tell whether the name exists.
 *
 * A password given to a request is copied into the request and wiped
 * (sodium_memzero) once used; it is never logged, nor is a session token.
 *
 * Owner: the process (main.c) owns struct accounts; a request belongs to the
 * service until its callback returns or accounts_cancel is called. Loop
 * thread only. */
#ifndef CARCD_PLAYERS_ACCOUNTS_H
#define CARCD_PLAYERS_ACCOUNTS_H

#include <stddef.h>

#include "players/account.h"
#include "players/token.h"

struct uv_loop_s;
struct store;
struct accounts;
struct accounts_req;

#define ACCOUNTS_RUNNING 2
#define ACCOUNTS_QUEUE 256
#define ACCOUNTS_LIST_MAX 100  /* accounts in one list answer */
#define ACCOUNTS_RESET_LEN 16  /* characters of a password made by a reset */
#define ACCOUNTS_INVITE_LEN 22 /* characters of an invite code (16 random bytes, base64url) */

/* Who may create an account (setting `registration`). */
enum accounts_registration {
    ACCOUNTS_OPEN,   /* anyone */
    ACCOUNTS_INVITE, /* with an unused invite code */
    ACCOUNTS_CLOSED, /* nobody (the admin API still can) */
};

struct accounts_config {
    int registration;       /* enum accounts_registration */
    int session_days;       /* a session's life from sign-in (default 30) */
    unsigned hash_ops;      /* Argon2id passes (ACCOUNT_HASH_OPS) */
    size_t hash_mem;        /* ... and bytes (ACCOUNT_HASH_MEM) */
    int fail_per_account;   /* failed sign-ins per account name per window (default 5) */
    int fail_per_address;   /* ... per address (default 20) */
    int fail_window_s;      /* the window (default 900) */
    int invite_days;        /* an invite's life from its making (default 7) */
    int member_invites;     /* 1: members may make invites (default 0) */
    int invites_per_member; /* unused, unexpired invites a member may hold (default 10) */
    int vacation_days;      /* days of vacation a year (default ACCOUNTS_VACATION_DAYS; 0: none) */
};

/* The shipped defaults. */
void accounts_config_defaults(struct accounts_config *c);

/* One account of a list (no hash). */
struct accounts_entry {
    long long id;
    char name[ACCOUNT_NAME_MAX + 1]; /* "deleted player" once deleted */
    long long created_ms;
    int disabled, deleted;
};

/* ---- ratings (ratings_job.c; PROTOCOL.md "Ratings") ---- */

#define ACCOUNTS_HISTORY_MAX 50 /* history points of a pool in a player's answer */
#define ACCOUNTS_LADDER_PAGE 50 /* players in one page of a ladder */
#define ACCOUNTS_POOLS 2        /* 0: "2p" (Glicko-2), 1: "multi" (Plackett-Luce) */
/* The rated identities of the built-in bots, by level (enum carc_bot_level):
 * accounts with no password, made by accounts_new, that nobody signs in as
 * (a dot is in no name a person can have). */
#define ACCOUNTS_BOT_NAMES                                                                         \
    {                                                                                              \
        "bot.random", "bot.greedy", "bot.strong"                                                   \
    }
#define ACCOUNTS_BOTS 3

/* One player of a rated game. */
struct accounts_rated_player {
    long long account; /* a person's account; 0 for a bot */
    int bot;           /* 0: a person; 1 + enum carc_bot_level: rated as its identity */
    int score;         /* final score */
    int forfeited;     /* ranked after every player who did not forfeit */
};

/* A player's numbers in one pool, as shown (PROTOCOL.md "Ratings"). */
struct accounts_pool_view {
    int present; /* 0 before a first rated game in the pool (the rest is 0) */
    double rating, deviation,
        volatility; /* multi: the display rating and deviation, no volatility */
    int games, provisional;
    int nhistory; /* newest first */
    struct {
        char game[65];
        long long time_ms;
        double rating;
    } history[ACCOUNTS_HISTORY_MAX];
};

struct accounts_player {
    char name[ACCOUNT_NAME_MAX + 1];
    long long created_ms;
    struct accounts_pool_view pool[ACCOUNTS_POOLS];
};

struct accounts_ladder_row {
    int rank;
    char name[ACCOUNT_NAME_MAX + 1];
    double rating, deviation;
    int games, provisional;
};

#define ACCOUNTS_GAMES_PAGE 20 /* games in one page of an account's games */
#define ACCOUNTS_ROOM_MAX 64   /* bytes of a room id there (store/accounts.h STORE_GAME_ID_MAX) */

/* One game of an account's list (accounts_games): a seat it held. */
struct accounts_game {
    char room[ACCOUNTS_ROOM_MAX + 1];
    int seat;
    long long time_ms; /* when the seat was linked (the game's start) */
    char status[16];   /* "finished" or "abandoned" with a record; "" without (running) */
    long long finished_ms;
    const char *players, *scores; /* the record's JSON arrays, NULL without one */
};

/* What a request came to. status: 0, or a negative code of util/status.h:
 *   ACCOUNTS_E_NAME       the name is refused (message: account_refusal_text)
 *   ACCOUNTS_E_PASSWORD   the password is refused (idem)
 *   ACCOUNTS_E_TAKEN      sign-up: the name is someone's (any case)
 *   ACCOUNTS_E_INVITE     sign-up: an invite is needed, or it is unknown, used or expired
 *   ACCOUNTS_E_CLOSED     sign-up: registration is closed
 *   ACCOUNTS_E_CREDENTIALS sign-in, password change, delete: wrong name or password
 *   ACCOUNTS_E_RATE       too many failed sign-ins: retry_after_ms says when
 *   ACCOUNTS_E_SESSION    no such session (unknown, expired, signed out,
 *                         account disabled or deleted)
 *   ACCOUNTS_E_STORAGE    the database failed (logged, without secrets)
 *   ACCOUNTS_E_UNKNOWN    an admin's request: no account has that name
 *   ACCOUNTS_E_INVITES_OFF a member's invite: member invites are off
 *   ACCOUNTS_E_INVITES_MAX a member's invite: invites_per_member unused ones already
 * A sentence for the client is in message (static storage). */
struct accounts_result {
    int status;
    const char *message;
    long long retry_after_ms;
    long long account;               /* the account's id, 0 when none */
    char name[ACCOUNT_NAME_MAX + 1]; /* its name as typed */
    long long created_ms;            /* the account's creation (sign-up, sign-in) */
    char session[TOKEN_LEN + 1];     /* sign-up, sign-in: the new session's token */
    char csrf[TOKEN_LEN + 1];        /* its CSRF token (also from a session lookup) */
    long long expires_ms;            /* the session's end (sign-up, sign-in, lookup); an
                                        invite's end */
    int disabled;                    /* disable and enable: the account's flag now */
    /* A reset: the new password, the only copy there is (wiped once the
     * callback returns). Never log it. */
    char password[ACCOUNTS_RESET_LEN + 1];
    char invite[ACCOUNTS_INVITE_LEN + 1]; /* a new invite's code (never logged) */
    const struct accounts_entry *list;    /* a list: nlist accounts, valid during the call */
    int nlist;
    const struct accounts_player *player;     /* accounts_player: valid during the call */
    const struct accounts_ladder_row *ladder; /* accounts_ladder: nlist rows, valid during
                                                 the call */
    const struct accounts_game *games;        /* an account's games: ngames of them, valid during */
    int ngames;                               /* the call; more: a further page has some */
    int more;
    const struct accounts_stats *stats; /* accounts_stats: valid during the call */
    const struct accounts_claim *claim; /* accounts_claim: its seats with their outcomes, valid
                                     during the call */
    const struct accounts_push *push;   /* accounts_push_list: valid during the call */
    const struct accounts_mail *mail;   /* the e-mail calls: nmail rows, valid during the call */
    int nmail;
    const struct accounts_vacation *vacation; /* accounts_vacation_*: valid during the call */
};

/* Called once on the loop, unless the request was cancelled first. r is valid
 * during the call only. */
typedef void (*accounts_cb)(void *arg, const struct accounts_result *r);

/* A service on loop over st's database (its own handles: store_accounts_open).
 * NULL with a sentence in err when st is NULL (no storage: accounts need one)
 * or the database cannot be opened. now_ms() for tests: NULL is the wall
 * clock (util/clock.h). */
struct accounts *accounts_new(struct uv_loop_s *loop, struct store *st,
                              const struct accounts_config *cfg, long long (*now_ms)(void),
                              char *err, size_t errlen);
/* Stops taking requests, cancels the queued ones (their callbacks are not
 * called), waits for the running ones (their callbacks are called, unless
 * cancelled), closes the handles (on the pool), then done(arg) on the loop,
 * never from inside this call; a is freed before done runs. */
void accounts_close(struct accounts *a, void (*done)(void *arg), void *arg);

/* Each returns the request, or NULL when the queue is full or the service
 * is closing (nothing happens). Inputs are copied; `peer` is the client's
 * address (the per-address limit; NULL counts as ""). A sign-up's invite is
 * used only while registration is ACCOUNTS_INVITE (else it is ignored). */
struct accounts_req *accounts_signup(struct accounts *a, const char *name, const char *password,
                                     size_t len, const char *invite /* NULL: none */,
                                     const char *peer, accounts_cb cb, void *arg);
struct accounts_req *accounts_signin(struct accounts *a, const char *name, const char *password,
                                     size_t len, const char *peer, accounts_cb cb, void *arg);
/* The session of a token (a cookie's value): the account, its name, the CSRF
 * token and the expiry. */
struct accounts_req *accounts_session(struct accounts *a, const char *token, accounts_cb cb,
                                      void *arg);
/* Ends the session of a token (0 even if there was none: signing out twice is
 * no error). */
struct accounts_req *accounts_signout(struct accounts *a, const char *token, accounts_cb cb,
                                      void *arg);
/* Changes the password of the token's account after checking the old one;
 * every other session of the account ends. */
struct accounts_req *accounts_password(struct accounts *a, const char *token, const char *old_pw,
                                       size_t old_len, const char *new_pw, size_t new_len,
                                       const char *peer, accounts_cb cb, void *arg);
/* Deletes the token's account after checking its password (its games stay,
 * under "deleted player"); every session ends. */
struct accounts_req *accounts_delete(struct accounts *a, const char *token, const char *password,
                                     size_t len, const char *peer, accounts_cb cb, void *arg);

/* ---- the admin's requests and invites (accounts_admin.c) ---- */

/* Up to max (at most ACCOUNTS_LIST_MAX) accounts from the offset-th by id,
 * deleted ones too, into r->list. */
struct accounts_req *accounts_list(struct accounts *a, int offset, int max, accounts_cb cb,
                                   void *arg);
/* Disables (disabled 1) or enables (0) the account named name (any case):
 * disabling ends every session of it at once (a disabled account's sessions
 * are refused anyway; an enabled one signs in again). ACCOUNTS_E_UNKNOWN for
 * a name that is nobody's; r->name is the account's, r->disabled its flag. */
struct accounts_req *accounts_disable(struct accounts *a, const char *name, int disabled,
                                      accounts_cb cb, void *arg);
/* A new random password for the account named name (ACCOUNTS_RESET_LEN
 * characters of an alphabet without look-alikes), hashed and stored; every
 * session of the account ends. The password is in r->password, once. */
struct accounts_req *accounts_reset(struct accounts *a, const char *name, accounts_cb cb,
                                    void *arg);
/* A new invite code made by the admin (created_by 0): r->invite, and its end
 * (now + invite_days) in r->expires_ms. */
struct accounts_req *accounts_invite_admin(struct accounts *a, accounts_cb cb, void *arg);
/* The same made by the account of a session token: ACCOUNTS_E_INVITES_OFF
 * unless member_invites, ACCOUNTS_E_SESSION, ACCOUNTS_E_INVITES_MAX when the
 * account holds invites_per_member unused, unexpired invites already. */
struct accounts_req *accounts_invite_member(struct accounts *a, const char *token, accounts_cb cb,
                                            void *arg);

/* Seat `seat` of the game of room `room` is account's, from time_ms (wall
 * clock): store_account_game_add on the pool (the games of an account).
 * Fire and forget: nothing is called back; a failure, or a full queue
 * (returns -1, else 0), is logged. */
int accounts_game_link(struct accounts *a, const char *room, int seat, long long account,
                       long long time_ms);

/* The game `game` (a room id), rated and ended at time_ms (wall clock), of n
 * players (2 .. 6) in seat order, rated on the pool (2 players: "2p", else
 * "multi") in one transaction: the game marked rated (store_rated_game_claim:
 * a game marked already, here or by another node, changes nothing), each
 * one's rating read (a newcomer's when none; a Glicko-2 deviation aged by the
 * days since its last game), updated from the ranks (final scores; equal
 * scores tie; forfeited seats last), written with games + 1 and a history
 * row. A game that cannot be rated (a seat of no account) is marked alone.
 * Fire and forget, like accounts_game_link: -1 (logged) when the queue is
 * full or n is bad. */
int accounts_rate_game(struct accounts *a, const char *game, long long time_ms,
                       const struct accounts_rated_player *p, int n);
/* The catch-up (PROTOCOL.md "Ratings"): the finished rated games the store
 * holds and no rated_games row marks (their end stored, their rating lost in
 * a crash or a failure) rated as accounts_rate_game would, oldest first, the
 * players rebuilt from the store (seats.account, seats.bot, games.scores,
 * seats.forfeited); with all, every such game, else those that ended in the
 * last 24 hours (a cheap read along the games' index). One job rates at most
 * 32, each in its own transaction; a job that found 32 queues the next. main.c
 * calls it with all at start, then each minute without; two runs at once (two
 * handles, two nodes) rate each game once. Fire and forget: -1 (logged) when
 * the queue is full or the service closing. */
int accounts_rate_pending(struct accounts *a, int all);
/* The player named name (any case; a bot's identity too): r->player, or
 * ACCOUNTS_E_UNKNOWN for a name that is nobody's, or a deleted account's. */
struct accounts_req *accounts_player(struct accounts *a, const char *name, accounts_cb cb,
                                     void *arg);
/* Page `page` (from 0) of pool's ladder (0 "2p", 1 "multi"): the players with
 * at least min_games games, neither disabled nor deleted, highest first, at
 * most ACCOUNTS_LADDER_PAGE in r->ladder (r->nlist of them). */
struct accounts_req *accounts_ladder(struct accounts *a, int pool, int page, int min_games,
                                     accounts_cb cb, void *arg);
/* The games of the token's account (accounts_games.c): page (from 1) of
 * ACCOUNTS_GAMES_PAGE, newest first, each with its record's summary when the
 * store has one; into r->games and r->more. ACCOUNTS_E_SESSION as
 * accounts_session. */
struct accounts_req *accounts_games(struct accounts *a, const char *token, int page, accounts_cb cb,
                                    void *arg);

/* ---- a player's statistics (accounts_stats.c; PROTOCOL.md "Ratings") ---- */

#define ACCOUNTS_STATS_GAMES 5000 /* an account's newest game links counted */
#define ACCOUNTS_STATS_PLAYERS 6  /* player counts (seats of a game) */
#define ACCOUNTS_STATS_SETS 16    /* sets told apart */

/* The statistics of a player's finished games (store/accounts_stats.h says
 * what counts): totals, then per player count (ascending, counts > 0 only)
 * and per set (most played first, then by name). */
struct accounts_stats {
    long long played, won;
    int nby;
    struct {
        int players;
        long long played, won;
        double average_score; /* unrounded */
    } by[ACCOUNTS_STATS_PLAYERS];
    int nsets;
    struct {
        char set[32];
        long long played;
    } sets[ACCOUNTS_STATS_SETS];
};

/* The statistics of the player named name (any case; a bot's identity too,
 * whose games are never linked: zeros) over its newest ACCOUNTS_STATS_GAMES
 * game links: r->stats, or ACCOUNTS_E_UNKNOWN for a name that is nobody's, or
 * a deleted account's. */
struct accounts_req *accounts_stats(struct accounts *a, const char *name, accounts_cb cb,
                                    void *arg);

/* ---- a guest's stored seats claimed (accounts_claim.c) ---- */

#define ACCOUNTS_CLAIM_MAX 100 /* seats of one claim */

/* One seat to claim in the store, and what came of it. */
struct accounts_claim_seat {
    char room[ACCOUNTS_ROOM_MAX + 1];
    char token_hash[65]; /* SHA-256 hex of the seat's token */
    int outcome;         /* out: enum store_claim (store/accounts_claim.h) */
    int seat;            /* out: the seat's index, or -1 */
};

struct accounts_claim {
    int n;
    struct accounts_claim_seat seats[ACCOUNTS_CLAIM_MAX];
};

/* The stored seats of c (copied; n 1 .. ACCOUNTS_CLAIM_MAX) claimed for the
 * token's account, each on its own (store_seat_claim: one transaction per
 * seat; a storage failure stops the claim, the seats done so far stay done):
 * r->claim holds each seat's outcome. ACCOUNTS_E_SESSION as accounts_session;
 * ACCOUNTS_E_STORAGE when the store failed. For the seats of rooms this node
 * does not hold (game/claim.h does the others on the loop). */
struct accounts_req *accounts_claim(struct accounts *a, const char *token,
                                    const struct accounts_claim *c, accounts_cb cb, void *arg);

/* The callback of req will not be called (a request still running finishes
 * off the loop and is dropped). */
void accounts_cancel(struct accounts_req *req);

/* ---- Web Push subscriptions (accounts_push.c; PROTOCOL.md "Notifications") ---- */

#define ACCOUNTS_PUSH_MAX 10          /* an account's subscriptions (the store's limit) */
#define ACCOUNTS_PUSH_FAILURES_MAX 20 /* deliveries failed in a row before one is dropped */

/* A subscription as the browser gave it (base64url keys, checked by the
 * caller: notify/push.h push_subscription_make). */
struct accounts_push_sub {
    char endpoint[1025];
    char p256dh[97];
    char auth[97];
};
struct accounts_push {
    long long account;
    int n;
    struct accounts_push_sub subs[ACCOUNTS_PUSH_MAX];
    char webhook[1025]; /* the account's webhook URL, "" for none */
};

/* The subscription s stored for the account of the session of token (it
 * moves there when another account had it). ACCOUNTS_E_SESSION as
 * accounts_session; ACCOUNTS_E_STORAGE. */
struct accounts_req *accounts_push_put(struct accounts *a, const char *token,
                                       const struct accounts_push_sub *s, accounts_cb cb,
                                       void *arg);
/* The subscription of endpoint removed, if it is the session's account's:
 * ACCOUNTS_E_UNKNOWN when it is not (or there is none), ACCOUNTS_E_SESSION,
 * ACCOUNTS_E_STORAGE. */
struct accounts_req *accounts_push_delete(struct accounts *a, const char *token,
                                          const char *endpoint, accounts_cb cb, void *arg);
/* The account's subscriptions, newest first: r->push. */
struct accounts_req *accounts_push_list(struct accounts *a, long long account, accounts_cb cb,
                                        void *arg);
/* What came of a delivery to endpoint (notify/push.h's outcome, as the
 * caller maps it): ACCOUNTS_PUSH_SENT forgives its failures, ..._GONE removes
 * it, ..._FAILED counts a failure (ACCOUNTS_PUSH_FAILURES_MAX in a row remove
 * it). cb may be NULL (nothing to tell). */
enum { ACCOUNTS_PUSH_SENT = 0, ACCOUNTS_PUSH_GONE, ACCOUNTS_PUSH_FAILED };
struct accounts_req *accounts_push_outcome(struct accounts *a, const char *endpoint, int outcome,
                                           accounts_cb cb, void *arg);

/* The session's account's webhook (PROTOCOL.md "Notifications"): set to url
 * (checked by the caller), read (r->push->webhook, "" for none) or removed
 * (ACCOUNTS_E_UNKNOWN when there is none). ACCOUNTS_E_SESSION,
 * ACCOUNTS_E_STORAGE. */
struct accounts_req *accounts_webhook_put(struct accounts *a, const char *token, const char *url,
                                          accounts_cb cb, void *arg);
struct accounts_req *accounts_webhook_get(struct accounts *a, const char *token, accounts_cb cb,
                                          void *arg);
struct accounts_req *accounts_webhook_delete(struct accounts *a, const char *token, accounts_cb cb,
                                             void *arg);
/* What came of a post to account's webhook (ACCOUNTS_PUSH_SENT forgives its
 * failures; _GONE removes it; _FAILED counts one, ACCOUNTS_PUSH_FAILURES_MAX
 * in a row remove it). cb may be NULL. */
struct accounts_req *accounts_webhook_outcome(struct accounts *a, long long account, int outcome,
                                              accounts_cb cb, void *arg);

/* ---- e-mail settings (accounts_mail.c; PROTOCOL.md "Notifications") ---- */

#define ACCOUNTS_MAIL_BATCH 32        /* accounts of one accounts_mail_read */
#define ACCOUNTS_MAIL_ADDRESS_MAX 254 /* bytes of an address (store/accounts_mail.h) */

/* An account's e-mail settings. */
struct accounts_mail {
    long long account;
    char address[ACCOUNTS_MAIL_ADDRESS_MAX + 1]; /* "": none (then both flags 0) */
    int digest, reminders;                       /* 1: on */
    char unsub[TOKEN_LEN + 1];                   /* the unsubscribe token (never logged) */
    int claimed; /* accounts_mail_read with a day: that day's digest is this call's to send */
};

/* The session's account's settings: read (r->mail, one row: address ""
 * when it gave none), written (address checked by the caller; the account's
 * unsubscribe token made at its first address, 32 random bytes in base64url,
 * then kept) or removed (ACCOUNTS_E_UNKNOWN when there was none).
 * ACCOUNTS_E_SESSION, ACCOUNTS_E_STORAGE. */
struct accounts_req *accounts_mail_get(struct accounts *a, const char *token, accounts_cb cb,
                                       void *arg);
struct accounts_req *accounts_mail_put(struct accounts *a, const char *token, const char *address,
                                       int digest, int reminders, accounts_cb cb, void *arg);
struct accounts_req *accounts_mail_delete(struct accounts *a, const char *token, accounts_cb cb,
                                          void *arg);
/* The digest and reminders of the account whose unsubscribe token is unsub
 * turned off (no session: the link of a mail): r->mail its row after,
 * ACCOUNTS_E_UNKNOWN for a token that is nobody's, ACCOUNTS_E_STORAGE. */
struct accounts_req *accounts_mail_unsubscribe(struct accounts *a, const char *unsub,
                                               accounts_cb cb, void *arg);
/* The settings of the accounts ids[0..n) (n <= ACCOUNTS_MAIL_BATCH, copied):
 * r->mail, one row per account that has an address and is neither deleted
 * nor disabled (r->nmail of them). day > 0 (UTC days since 1970): each
 * row's digest of that day claimed as well (store_mail_digest_claim: claimed
 * 1 for this call alone, on any node). ACCOUNTS_E_STORAGE. */
struct accounts_req *accounts_mail_read(struct accounts *a, const long long *ids, int n,
                                        long long day, accounts_cb cb, void *arg);
/* ---- vacations (accounts_vacation.c; PROTOCOL.md "Vacations") ---- */

#define ACCOUNTS_VACATION_DAYS 14 /* the default bank: days a year */

/* An account's bank in this (UTC) year and its last vacation. */
struct accounts_vacation {
    long long account;
    int days_per_year, days_left, year;
    long long from_ms, until_ms; /* until_ms <= now: none going on */
    int taken;                   /* _auto, _start: 1 when days were taken now */
};

/* The bank of the signed-in session token's account: r->vacation. */
struct accounts_req *accounts_vacation_get(struct accounts *a, const char *token, accounts_cb cb,
                                           void *arg);
/* days (1..its days left) taken from now on (or added to a vacation going
 * on): r->vacation, its taken 0 when the bank has not that many. */
struct accounts_req *accounts_vacation_start(struct accounts *a, const char *token, int days,
                                             accounts_cb cb, void *arg);
/* The vacation going on ends now, its days not begun back in the bank:
 * r->vacation, ACCOUNTS_E_UNKNOWN when none was going on. */
struct accounts_req *accounts_vacation_end(struct accounts *a, const char *token, accounts_cb cb,
                                           void *arg);
/* A correspondence clock of account ran out at `at` (wall ms, game/turn.h):
 * its vacation going on then, or else a day taken from then when its bank has
 * one (r->vacation; taken says which; until_ms <= at: none). */
struct accounts_req *accounts_vacation_auto(struct accounts *a, long long account, long long at,
                                            accounts_cb cb, void *arg);

#endif
