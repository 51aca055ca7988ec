/* players/accounts_int.h: what the two files of the accounts service share.
 *
 *   accounts.c       the loop's side: the requests, the FIFO, the limits of
 *                    sign-ins, delivery, cancel and close
 *   accounts_job.c   the thread pool's side: one request's hashing and
 *                    statements on the handle it was given
 *   accounts_admin.c both sides of the admin's requests (list, disable,
 *                    reset) and of invites
 *   accounts_games.c both sides of an account's games (GET /api/me/games)
 *   accounts_stats.c both sides of a player's statistics (GET /api/players/NAME)
 *   accounts_claim.c both sides of a claim of stored seats (POST /api/me/claim)
 *   accounts_push.c  both sides of Web Push subscriptions (/api/push/subscriptions)
 *   accounts_mail.c  both sides of e-mail settings (/api/me/email, the digest, reminders)
 *
 * Internal: nothing outside players/accounts*.c includes this. */
#ifndef CARCD_PLAYERS_ACCOUNTS_INT_H
#define CARCD_PLAYERS_ACCOUNTS_INT_H

#include <uv.h>

#include "players/accounts.h"
#include "players/attempts.h"
#include "store/accounts.h"

#define ACCOUNTS__PEER_MAX 64 /* bytes of a peer's address kept (longer ones are cut) */

enum accounts__kind {
    ACCOUNTS__SIGNUP,
    ACCOUNTS__SIGNIN,
    ACCOUNTS__SESSION,
    ACCOUNTS__SIGNOUT,
    ACCOUNTS__PASSWORD, /* phase 0: the session; phase 1: the password */
    ACCOUNTS__DELETE,   /* likewise */
    ACCOUNTS__LIST,     /* accounts_admin.c from here on */
    ACCOUNTS__DISABLE,
    ACCOUNTS__RESET,
    ACCOUNTS__INVITE,   /* the admin's (no digest) or a member's */
    ACCOUNTS__GAME,     /* a seat of a game is an account's (accounts_game_link) */
    ACCOUNTS__RATE,     /* ratings_job.c from here on: a rated game's end */
    ACCOUNTS__PLAYER,   /* a player's ratings */
    ACCOUNTS__LADDER,   /* a page of a ladder */
    ACCOUNTS__GAMES,    /* an account's games (accounts_games.c) */
    ACCOUNTS__STATS,    /* a player's statistics (accounts_stats.c) */
    ACCOUNTS__CLAIM,    /* a guest's stored seats claimed (accounts_claim.c) */
    ACCOUNTS__PUSH,     /* Web Push subscriptions (accounts_push.c; its operation in r->ext) */
    ACCOUNTS__MAIL,     /* e-mail settings (accounts_mail.c; its operation in r->ext) */
    ACCOUNTS__VACATION, /* the vacation bank (accounts_vacation.c; its operation in r->ext) */
};

/* Where a request is: its list (waiting: the FIFO; ready: an answer known on
 * the loop, delivered from the idle handle) or on the thread pool. */
enum accounts__where { ACCOUNTS__WAITING, ACCOUNTS__READY, ACCOUNTS__RUNNING };

struct accounts_req {
    uv_work_t work;
    struct accounts *a;
    struct accounts_req *prev, *next; /* its list while waiting or ready */
    int kind, where, phase;
    int handle;     /* its index in a->db while running */
    accounts_cb cb; /* NULL once cancelled */
    void *arg;
    long long now;   /* a->now_ms() as it went to the pool */
    int bad;         /* the name or the password cannot be anyone's: no match possible */
    int offset, max; /* a list's */
    int flag;        /* a disable's: 1 disable, 0 enable */
    char game[STORE_GAME_ID_MAX + 1]; /* a game link's room id, seat, account and time */
    int seat;
    long long account, time_ms;
    struct accounts_entry *list; /* a list's answer (malloc'd; freed with r) */
    void *ext;                   /* a rating kind's input and answer (malloc'd; freed with r) */
    struct accounts_game *games; /* an account's games (malloc'd; freed with r) */
    int ngames;
    char name[ACCOUNT_NAME_MAX + 1];
    char key[ACCOUNT_NAME_MAX + 1]; /* the name's key ("" for a name that is no name) */
    char peer[ACCOUNTS__PEER_MAX];
    char invite[STORE_INVITE_MAX + 1]; /* "": none */
    char digest[TOKEN_DIGEST_LEN + 1]; /* the token's, for the session kinds */
    char pw[ACCOUNT_PASSWORD_MAX];     /* the password (the old one for a change) */
    char pw2[ACCOUNT_PASSWORD_MAX];    /* the new password */
    size_t pw_len, pw2_len;
    struct accounts_result res;
};

struct accounts_list {
    struct accounts_req *head, *tail;
    int n;
};

struct accounts {
    uv_loop_t *loop;
    struct accounts_config cfg;
    long long (*now_ms)(void);
    struct store_accounts *db[ACCOUNTS_RUNNING];
    int busy[ACCOUNTS_RUNNING];
    int nrunning;
    struct accounts_list wait, ready;
    uv_idle_t idle;    /* delivers the ready list; runs only while it has some */
    uv_work_t closing; /* closes the handles off the loop */
    struct attempts *by_addr, *by_account;
    char dummy[ACCOUNT_HASH_SIZE];   /* the hash an unknown name is checked against */
    long long bot_id[ACCOUNTS_BOTS]; /* the bots' rated identities (accounts_new) */
    int closed, close_started;
    void (*done)(void *arg);
    void *done_arg;
};

/* accounts_job.c: run r's kind and phase on the handle h (thread pool);
 * the outcome in r->res. Reads a->cfg and a->dummy only. */
void accounts__job_run(struct accounts_req *r, struct store_accounts *h);

/* The outcome status with its sentence for the client. */
void accounts__set(struct accounts_result *res, int status);
/* A storage failure logged (what, the status, the database's message) and
 * ACCOUNTS_E_STORAGE set. */
void accounts__storage_failed(struct accounts_req *r, struct store_accounts *h, const char *what,
                              int rc);
/* pw hashed with a->cfg's parameters into out: 0, or -1 with the status set. */
int accounts__hash_new(struct accounts_req *r, char out[ACCOUNT_HASH_SIZE], const char *pw,
                       size_t len);
/* The session of r->digest into r->res (account, name, csrf, expiry): 0, or
 * -1 with the status set. */
int accounts__session_read(struct accounts_req *r, struct store_accounts *h);

/* accounts.c: the loop's side shared with accounts_admin.c. */
/* A new request, or NULL when the queue is full or a is closing. */
struct accounts_req *accounts__req_new(struct accounts *a, int kind, accounts_cb cb, void *arg);
/* r to the FIFO (and the pool when a handle is free); returns r. */
struct accounts_req *accounts__queue(struct accounts_req *r);
/* r answered on the loop's next turn with status (message NULL: its sentence). */
struct accounts_req *accounts__answer_soon(struct accounts_req *r, int status, const char *message);
/* A request about the session of token: its digest in r, or r answered soon
 * with status for a token that cannot be anyone's (r->where ACCOUNTS__READY). */
struct accounts_req *accounts__token_req(struct accounts *a, int kind, const char *token,
                                         int status, accounts_cb cb, void *arg);
/* A name's key for the limits and lookups (a reserved name is still a key:
 * the admin API makes such accounts): 0, or -1 when it is no name at all. */
int accounts__name_key(const char *name, char key[ACCOUNT_NAME_MAX + 1]);

/* accounts_admin.c: the pool's side of the kinds from ACCOUNTS__LIST on. */
void accounts__admin_job_run(struct accounts_req *r, struct store_accounts *h);

/* ratings_job.c: the bots' rated identities made when missing, their ids in
 * a->bot_id (blocks: at start, on h): 0, or -1 with a sentence in err. */
int accounts__bots_ensure(struct accounts *a, struct store_accounts *h, char *err, size_t errlen);
/* The pool's side of the kinds from ACCOUNTS__RATE on. */
void accounts__ratings_job_run(struct accounts_req *r, struct store_accounts *h);
/* accounts_games.c: the pool's side of ACCOUNTS__GAMES, and r's games freed. */
void accounts__games_job_run(struct accounts_req *r, struct store_accounts *h);
void accounts__games_free(struct accounts_req *r);
/* accounts_stats.c: the pool's side of ACCOUNTS__STATS. */
void accounts__stats_job_run(struct accounts_req *r, struct store_accounts *h);
/* accounts_push.c: the pool's side of ACCOUNTS__PUSH. */
void accounts__push_job_run(struct accounts_req *r, struct store_accounts *h);
/* accounts_mail.c: the pool's side of ACCOUNTS__MAIL. */
void accounts__mail_job_run(struct accounts_req *r, struct store_accounts *h);
/* accounts_vacation.c: the pool's side of ACCOUNTS__VACATION. */
void accounts__vacation_job_run(struct accounts_req *r, struct store_accounts *h);
/* accounts_claim.c: the pool's side of ACCOUNTS__CLAIM (its seats in r->ext). */
void accounts__claim_job_run(struct accounts_req *r, struct store_accounts *h);

#endif
