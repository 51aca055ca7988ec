/* store/accounts.h: accounts, sessions, invites, ratings and the games of an
 * account in the store's database (issue 27), on SQLite and PostgreSQL.
 *
 * Every function here BLOCKS on the database: call them from libuv's thread
 * pool (or at start, before the loop runs), never on the loop. A handle is a
 * connection of its own to the store's database (the SQLite file of the data
 * directory, or the PostgreSQL database of postgres-url), beside the store's
 * writer and reader; it is used by ONE thread at a time (a caller that shares
 * it between pool jobs serialises them; two handles may run at once).
 *
 * Status: every int function returns 0 or a negative code of util/status.h:
 * STORE_E_ARGS (an empty or too long text, a pool other than "2p" or "multi",
 * an id <= 0), STORE_E_NOT_FOUND, STORE_E_EXISTS, STORE_E_USED, STORE_E_EXPIRED,
 * or STORE_E_DB (the database failed: store_accounts_error says why, in the
 * database's words; nothing is logged). Strings are always bound as
 * parameters. No password hash, session digest or CSRF token is ever logged.
 *
 * Tables (store/README.md "Accounts"; the store's schema_version is left as
 * it is, so that any carcd opens the database): accounts, sessions, invites,
 * ratings, rating_history, account_games, rated_games (version 2),
 * push_subscriptions (version 3: store/accounts_push.h), webhooks (version 4,
 * idem), account_mail (version 5: store/accounts_mail.h), and
 * accounts_version (one row:
 * STORE_ACCOUNTS_SCHEMA). store_accounts_open creates them when missing, in
 * one transaction, on a database made by any carcd. */
#ifndef CARCD_STORE_ACCOUNTS_H
#define CARCD_STORE_ACCOUNTS_H

#include <stddef.h>

#define STORE_ACCOUNTS_SCHEMA 6
#define STORE_ACCOUNT_NAME_MAX 24   /* bytes of a name (players/account.h ACCOUNT_NAME_MAX) */
#define STORE_ACCOUNT_HASH_MAX 128  /* bytes of a password hash (Argon2id's encoded string) */
#define STORE_SESSION_DIGEST_LEN 64 /* hex characters of a session token's SHA-256 */
#define STORE_SESSION_CSRF_LEN 43   /* characters of a session's CSRF token */
#define STORE_INVITE_MAX 64         /* bytes of an invite code */
#define STORE_GAME_ID_MAX 64        /* bytes of a game id (a room id) */
/* The name every deleted account shows (its row keeps its id for the games
 * and ratings that name it; its own name is free again). */
#define STORE_DELETED_NAME "deleted player"
/* The rating pools. */
#define STORE_POOL_2P "2p"
#define STORE_POOL_MULTI "multi"

struct store;
struct store_accounts;

/* ---- the handle ---- */

/* A new connection to st's database, the account tables created when missing
 * (or NULL with a sentence in err: st NULL (memory only), the database
 * unreachable, or account tables of a newer carcd). The caller owns it. */
struct store_accounts *store_accounts_open(struct store *st, char *err, size_t errlen);
/* a may be NULL. */
void store_accounts_close(struct store_accounts *a);
/* Why the last STORE_E_DB happened (the database's message), or "". */
const char *store_accounts_error(const struct store_accounts *a);

/* Several calls in one transaction (the ratings of a game's players with their
 * history rows). Inside one, a call that fails leaves the transaction to be
 * rolled back (PostgreSQL refuses anything else in it). 0 or STORE_E_DB. */
int store_accounts_begin(struct store_accounts *a);
int store_accounts_commit(struct store_accounts *a);
int store_accounts_rollback(struct store_accounts *a);

/* ---- accounts ---- */

struct store_account {
    long long id;
    char name[STORE_ACCOUNT_NAME_MAX + 1]; /* as typed; STORE_DELETED_NAME once deleted */
    char hash[STORE_ACCOUNT_HASH_MAX + 1]; /* "" once deleted */
    long long created_ms;
    int disabled, deleted;
};

/* A new account named name (its key, the name in ASCII lower case, must be
 * free: else STORE_E_EXISTS), its id in *id. With invite non-NULL the invite
 * is used by the new account in the same transaction (the account is not
 * created when it cannot be: STORE_E_NOT_FOUND, STORE_E_USED, STORE_E_EXPIRED,
 * as store_invite_use). The caller has checked the name (players/account.h). */
int store_account_create(struct store_accounts *a, const char *name, const char *hash,
                         long long now_ms, const char *invite, long long *id);
/* The account whose name is name in any case, into out; STORE_E_NOT_FOUND. */
int store_account_find(struct store_accounts *a, const char *name, struct store_account *out);
/* The account id (deleted ones too) into out; STORE_E_NOT_FOUND. */
int store_account_get(struct store_accounts *a, long long id, struct store_account *out);
int store_account_hash_set(struct store_accounts *a, long long id, const char *hash);
/* A disabled account keeps its rows, and its sessions stop working. */
int store_account_disabled_set(struct store_accounts *a, long long id, int disabled);
/* Deleted: marked, its hash cleared, its sessions deleted, and renamed
 * STORE_DELETED_NAME with a key no name can have ("#" and the id), so that
 * its name may be taken again while games and ratings keep the id. */
int store_account_delete(struct store_accounts *a, long long id);
/* Up to max accounts (deleted ones too) from the offset-th by id, into out;
 * their number in *n. */
int store_account_list(struct store_accounts *a, int offset, int max, struct store_account *out,
                       int *n);

/* ---- sessions (keyed by the SHA-256 hex digest of the token: players/token.h) ---- */

struct store_session {
    long long account;
    char name[STORE_ACCOUNT_NAME_MAX + 1];
    char csrf[STORE_SESSION_CSRF_LEN + 1];
    long long created_ms, expires_ms;
};

/* digest: STORE_SESSION_DIGEST_LEN characters, csrf: STORE_SESSION_CSRF_LEN
 * (else STORE_E_ARGS); STORE_E_EXISTS for a digest already there. */
int store_session_create(struct store_accounts *a, const char *digest, long long account,
                         const char *csrf, long long now_ms, long long expires_ms);
/* The session of digest, if it expires after now_ms and its account is
 * neither disabled nor deleted; else STORE_E_NOT_FOUND. */
int store_session_get(struct store_accounts *a, const char *digest, long long now_ms,
                      struct store_session *out);
/* STORE_E_NOT_FOUND when there was none. */
int store_session_delete(struct store_accounts *a, const char *digest);
/* Every session of account (sign out everywhere); how many in *count (may be NULL). */
int store_session_delete_all(struct store_accounts *a, long long account, long *count);
/* Every session of account but the one of digest keep (a password changed:
 * the other devices sign out, this one stays); how many in *count (may be NULL). */
int store_session_delete_others(struct store_accounts *a, long long account, const char *keep,
                                long *count);
/* Every session expired at now_ms (expires_ms <= now_ms); how many in *count. */
int store_session_expire(struct store_accounts *a, long long now_ms, long *count);

/* ---- invites ---- */

/* created_by: an account id, or 0 for the admin; STORE_E_EXISTS for a code
 * already there. */
int store_invite_create(struct store_accounts *a, const char *code, long long created_by,
                        long long now_ms, long long expires_ms);
/* Marks code used by account (> 0) if it is unused and expires after now_ms,
 * in one statement (two users of one code: one gets 0, the other
 * STORE_E_USED); else STORE_E_NOT_FOUND, STORE_E_USED or STORE_E_EXPIRED. */
int store_invite_use(struct store_accounts *a, const char *code, long long account,
                     long long now_ms);
/* How many invites created_by (an account id, or 0 for the admin) made that
 * are unused and expire after now_ms, into *count (a member's limit). Inside
 * a transaction (store_accounts_begin) the account's row is locked first, so
 * that a count then a store_invite_create in that transaction keep a limit
 * against another handle doing the same. */
int store_invite_count(struct store_accounts *a, long long created_by, long long now_ms,
                       long *count);

/* ---- ratings (per account and pool: STORE_POOL_2P, STORE_POOL_MULTI) ---- */

/* Both models' numbers (players/rating.h); the model a pool does not use
 * leaves its fields 0. display: the rating shown and ranked by, computed by
 * the caller (the ladder orders by it). */
struct store_rating {
    double rating, deviation, volatility; /* Glicko-2 */
    double mu, sigma;                     /* Plackett-Luce (Weng-Lin) */
    double display;
    int games;
    long long updated_ms;
};

/* STORE_E_NOT_FOUND: the account has no rating in pool (never rated). */
int store_rating_get(struct store_accounts *a, long long account, const char *pool,
                     struct store_rating *out);
/* Insert or replace. */
int store_rating_put(struct store_accounts *a, long long account, const char *pool,
                     const struct store_rating *r);

struct store_rating_point {
    char game[STORE_GAME_ID_MAX + 1];
    long long time_ms;
    double rating, deviation;
};

int store_rating_history_add(struct store_accounts *a, long long account, const char *pool,
                             const struct store_rating_point *p);
/* The newest max points of account in pool (by time, then by insertion),
 * newest first; their number in *n. */
int store_rating_history_read(struct store_accounts *a, long long account, const char *pool,
                              int max, struct store_rating_point *out, int *n);

struct store_ladder_row {
    long long account;
    char name[STORE_ACCOUNT_NAME_MAX + 1];
    struct store_rating r;
};

/* The ratings of pool with at least min_games games, of accounts neither
 * disabled nor deleted, by display (highest first; ties by account id), up to
 * max from the offset-th; their number in *n. */
int store_ladder_read(struct store_accounts *a, const char *pool, int min_games, int offset,
                      int max, struct store_ladder_row *out, int *n);

/* ---- the games of an account (the records stay in the store's games table) ---- */

/* Seat seat of game was account's; time_ms orders an account's games (the
 * game's end). Adding the same game and seat again replaces the row. */
int store_account_game_add(struct store_accounts *a, const char *game, int seat, long long account,
                           long long time_ms);

struct store_account_game {
    char game[STORE_GAME_ID_MAX + 1];
    int seat;
    long long time_ms;
};

/* Up to max of account's games from the offset-th, newest first; *n of them. */
int store_account_games_read(struct store_accounts *a, long long account, int offset, int max,
                             struct store_account_game *out, int *n);

/* What the store's games table holds of a game (the record of a game that
 * ended or was abandoned, store.h), as GET /api/me/games shows it. */
struct store_game_summary {
    char status[16];        /* STORE_FINISHED ("finished") or STORE_ABANDONED */
    long long finished_ms;  /* its end (or the room's closing) */
    char *players, *scores; /* JSON arrays as the store wrote them (malloc'd) */
};

/* The summary of game's record into out (free it with
 * store_game_summary_free); STORE_E_NOT_FOUND while it has none (a game
 * still running, or one of another database). */
int store_account_game_record(struct store_accounts *a, const char *game,
                              struct store_game_summary *out);
void store_game_summary_free(struct store_game_summary *g);

/* ---- rated games (accounts_rated.c): each rated once, a lost one found again ---- */

#define STORE_RATED_SEATS 6 /* seats of a game (CARC_MAX_PLAYERS) */

/* First in the transaction of a game's ratings (store_accounts_begin): wait
 * until no other handle (another thread, another node) is inside one, so that
 * two games with a player in common do not both read that player's rating
 * before either writes it (PostgreSQL's read committed would lose one
 * update; its advisory lock 'carc' + 2, held to the transaction's end;
 * SQLite's BEGIN IMMEDIATE orders them already). STORE_E_ARGS outside a
 * transaction. */
int store_ratings_lock(struct store_accounts *a);

/* Inside the transaction of a game's ratings (store_accounts_begin): game
 * marked rated at time_ms. *claimed 1 when this call marked it, 0 when it was
 * already (rated before, here or by another node: write nothing then, and
 * commit or roll back). On PostgreSQL a second transaction marking the same
 * game waits for the first and then finds it marked; SQLite's write lock
 * orders them likewise. */
int store_rated_game_claim(struct store_accounts *a, const char *game, long long time_ms,
                           int *claimed);

/* A finished rated game as the store holds it. */
struct store_rated_game {
    char room[STORE_GAME_ID_MAX + 1];
    long long time_ms; /* its end (games.finished) */
    int n;             /* its seats (rows of seats, by index: the play order) */
    struct {
        long long account; /* seats.account (0: none) */
        int bot;           /* seats.bot: 0, or 1 + the level */
        int score;         /* games.scores */
        int forfeited;     /* seats.forfeited */
    } seat[STORE_RATED_SEATS];
};

/* Up to max finished rated games (games.status "finished", rooms.variants
 * bit 4) that ended at or after since_ms (0: any) and are not in
 * rated_games, oldest end first, into out; their number in *n. A game whose
 * seats or scores cannot be read comes with n 0 (to be marked unratable).
 * The scan runs along games_status (status, finished) from since_ms: a recent
 * window reads only the games of that window. */
int store_rated_games_pending(struct store_accounts *a, long long since_ms, int max,
                              struct store_rated_game *out, int *n);

/* ---- copying between backends (accounts_copy.c: carcd --import-db / --export-db) ---- */

/* The rows copied, per table. */
struct store_accounts_counts {
    long accounts, sessions, invites, ratings, history, games;
};

/* Every row of from's account tables written into to's (created there when
 * missing, as store_accounts_open does), with its id, so that sessions,
 * ratings, history and game links name the same accounts; on PostgreSQL the
 * ids handed out next follow the highest copied. from is read in one read
 * transaction (a live SQLite file as of one commit; nothing is written to
 * it), to is written in one transaction (its store's rooms and records are
 * store_copy's, in another). Rows of to with the same key (an account's id, a
 * session's digest, an invite's code, a rating's account and pool, a history
 * row's id, a game link's game and seat) are replaced, and the sessions of
 * every copied account are those of from alone (a session signed out in from
 * since an earlier copy goes). A database without account tables (a carcd
 * before them) copies nothing: 0 with zero counts. An account whose name is
 * another account's in to (another id) fails the copy. 0 with the counts in
 * *n, or -1 with a sentence in err (to's account tables then unchanged).
 * Blocks; neither store may be started. */
int store_accounts_copy(struct store *from, struct store *to, struct store_accounts_counts *n,
                        char *err, size_t errlen);

#endif
