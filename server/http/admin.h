/* admin.h: the admin API, HTTP routes under /admin/ (server/README.md "Admin
 * API"), dispatched by api.c. Every request needs `Authorization: Bearer
 * TOKEN` with the admin-token setting; the token is compared in constant
 * time and never logged. With no token configured every request is 403
 * {"error":"admin_disabled"}; a missing or wrong token is 401
 * {"error":"unauthorized"} with `WWW-Authenticate: Bearer`.
 *
 *   GET  /admin/rooms                     every room with its details
 *   GET  /admin/rooms/{id}                those details and the room's `state` message
 *   POST /admin/rooms/{id}/close          members get `notice` and `left`; record closed "admin"
 *   POST /admin/rooms/{id}/seats/{n}/free a lobby seat freed (a person gets `left`)
 *   POST /admin/rooms/{id}/seats/{n}/bot  the seat handed to a bot for good
 *   POST /admin/notice?text=...           `notice` to every connection
 *   POST /admin/backup                    an online backup (store.h), answered when written
 *   GET  /admin/accounts?page=N           accounts by id, 50 a page (admin_accounts.c)
 *   POST /admin/accounts/{name}/disable   the account disabled, its sessions ended
 *   POST /admin/accounts/{name}/enable    ... enabled again
 *   POST /admin/accounts/{name}/reset     a new random password, in the answer only
 *   POST /admin/invites                   201: a new invite code
 *
 * Replies are JSON, errors {"error":code}: 404 no_such_route / no_such_room /
 * no_such_account, 405 method_not_allowed, 400 bad_seat / bad_text, 409
 * wrong_phase / seat_empty / already_bot, 503 no_storage / backup_failed /
 * busy / storage_error. Every action is
 * logged with the peer's address. The admin owns nothing but its settings:
 * the lobby and the store are borrowed. */
#ifndef CARCD_ADMIN_H
#define CARCD_ADMIN_H

#include <stddef.h>

#include "http/api.h"
#include "msg.h"
#include "players/account.h"

struct lobby;
struct store;
struct accounts;

struct admin {
    struct lobby *lobby;       /* borrowed */
    struct store *store;       /* borrowed; NULL: storage off, no backups */
    struct accounts *accounts; /* borrowed (set after admin_init); NULL: no accounts */
    char token[256];           /* "": the admin API is refused */
    char data_dir[256];        /* backups go to data_dir/backups */
    int test_clock;            /* 1: POST /admin/clock moves the clocks (tests); else 404 */
};

void admin_init(struct admin *ad, struct lobby *lb, struct store *st, const char *token,
                const char *data_dir);

/* Answer rq (a path under /admin) into out, which api_route_request zeroed
 * and gave its ready callback: POST /admin/backup and the accounts' and
 * invites' routes are deferred (out->deferred, cancelled by api_reply_free). ad may be NULL: 403
 * admin_disabled. */
void admin_route(struct admin *ad, const struct api_request *rq, struct api_reply *out);

/* ---- pure parts (tests/test_admin.c) ---- */

enum admin_route_kind {
    ADMIN_R_NONE = 0, /* no such route: 404 */
    ADMIN_R_ROOMS,
    ADMIN_R_ROOM,
    ADMIN_R_CLOSE,
    ADMIN_R_SEAT_FREE,
    ADMIN_R_SEAT_BOT,
    ADMIN_R_NOTICE,
    ADMIN_R_BACKUP,
    ADMIN_R_ACCOUNTS,
    ADMIN_R_ACCOUNT_DISABLE,
    ADMIN_R_ACCOUNT_ENABLE,
    ADMIN_R_ACCOUNT_RESET,
    ADMIN_R_INVITES,
    ADMIN_R_CLOCK, /* POST /admin/clock: the test clock (setting test-clock) */
};

struct admin_path {
    int kind;                  /* enum admin_route_kind */
    char room[PROTO_ROOM_MAX]; /* ROOM, CLOSE, SEAT_*: the id ("" when too long: no room) */
    int seat;                  /* SEAT_*: 0..99, or -1 when not a seat number (400) */
    /* ACCOUNT_*: the name as in the path ("" when too long: nobody's) */
    char account[ACCOUNT_NAME_MAX + 1];
};

/* Parse an /admin path (no query). Returns the kind (ADMIN_R_NONE for an
 * unknown path) and fills out. */
int admin_path_parse(const char *path, struct admin_path *out);
/* The method each kind takes: "GET" (HEAD too) or "POST". */
const char *admin_route_method(int kind);
/* 1 when the Authorization value authorization is "Bearer <token>" (the
 * scheme in any case) and the token equals token (not ""): both are hashed
 * and the digests compared without an early exit, so the time taken says
 * nothing about how much of a guess was right, nor about the length. */
int admin_authorized(const char *authorization, const char *token);
/* Constant-time equality of two n-byte buffers. */
int admin_bytes_equal(const void *a, const void *b, size_t n);

#endif
