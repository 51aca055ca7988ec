/* api.h: carcd's HTTP routes as plain functions: a request (method, path)
 * in, a reply (status, content type, body or a file to stream) out. net/net_http.c
 * does the I/O; nothing here knows about sockets.
 *
 *   GET /healthz      200 "ok"; 503 with the reason ("shutting down", "redis
 *                     unreachable", "storage failing: disk full") while the node
 *                     should get no players: shutting down, a cluster node cut off
 *                     from Redis, or storage commits failing (store_health)
 *   GET /api/rooms    the public rooms (JSON array, see PROTOCOL.md `rooms`)
 *   GET /api/tiles    the tile catalogue (JSON)
 *   GET /api/games?page=N[&status=abandoned]   finished (or abandoned) games,
 *                     newest first (JSON, see server/README.md)
 *   GET /api/games/{id}     the record (PROTOCOL.md "Game records", seed included) of a game that
 *                     ended or was abandoned; 404 for a running or unknown game
 *   GET /api/games/{id}/replay   that record played through the engine: every
 *                     move's events, scores and meeples (PROTOCOL.md "Replays")
 *   POST, GET /api/games/{id}/analysis   the game's analysis (analysis_routes.c,
 *                     PROTOCOL.md "Game analysis"): asked for, then read; deferred
 *   GET /api/stats    how busy the loop is, and what storage costs it (JSON)
 *   GET /metrics      Prometheus text (metrics/metrics.h): 404 unless a metrics
 *                     token is set, then 401 without `Authorization: Bearer TOKEN`.
 *                     The metrics listener (metrics-port) serves it without a token.
 *   /admin/...        the admin API (admin/admin.h), GET and POST, behind admin-token
 * The /api/games routes read the database on the thread pool: their reply is
 * deferred (reply.deferred) and handed over later through the ready callback.
 *   POST /api/account, POST and DELETE /api/session, GET /api/me,
 *   POST /api/me/password, POST /api/me/delete, POST /api/me/invites
 *                     accounts (account_routes.c, PROTOCOL.md "Accounts"): JSON
 *                     bodies (none for invites), deferred answers
 *   GET /api/players/NAME, GET /api/ladder?pool=2p|multi&page=N
 *                     ratings (rating_routes.c, PROTOCOL.md "Ratings"),
 *                     deferred answers
 *   GET /api/me/games?page=N   the signed-in account's games (me_games.c),
 *                     deferred
 *   POST /api/me/claim  a guest's seats made the account's (claim_route.c),
 *                     deferred
 *   GET /ws           426: websocket upgrades only
 *   GET /...          a static file of the web root, from memory (webroot.h;
 *                     "/" and directories serve index.html); 404 when missing
 *                     or not allowed
 *   HEAD of any GET route: its headers alone
 *   anything else     405 */
#ifndef CARCD_API_H
#define CARCD_API_H

#include <stddef.h>

#include "http/webroot.h"

struct lobby;
struct store;
struct store_read;
struct loopstat;
struct api_reply;
struct admin;
struct accounts;

/* A deferred reply is filled: write it. Runs on the loop. */
typedef void (*api_ready_cb)(struct api_reply *r, void *arg);

struct vapid;
struct accounts_result;
struct notifier;
struct attempts;
struct analysis;

struct api {
    const struct lobby *lobby;
    struct webroot web;           /* the web root's files, read at start */
    char *tiles;                  /* GET /api/tiles, built once */
    struct store *store;          /* NULL: no storage, /api/games is empty */
    const struct loopstat *stats; /* NULL: GET /api/stats is 404 */
    const char *metrics_token;    /* NULL or "": GET /metrics is 404 on the public port */
    struct admin *admin;          /* NULL: /admin/ is 403 admin_disabled */
    /* A cluster node's Redis (NULL: one node alone): while it is down GET
     * /healthz answers 503, so that a proxy sends nobody to a node that
     * can neither take nor find rooms. */
    const struct redis *redis;
    /* Accounts and sessions (players/accounts.h; account_routes.c): NULL
     * without storage, and the account routes answer 404 accounts_off. */
    struct accounts *accounts;
    int session_days;     /* a session cookie's Max-Age, in days */
    int ladder_min_games; /* GET /api/ladder: games a player needs to appear (0: 5) */
    /* The lobby (the same as lobby) whose rooms POST /api/me/claim changes
     * (claim_route.c, game/claim.h); NULL: every room counts as not held
     * here, and its seats are claimed in the store only. */
    struct lobby *claim_lobby;
    /* carcd's Web Push key (notify/vapid.h; push_routes.c): NULL without
     * push, and the push routes answer 404 push_off. */
    const struct vapid *vapid;
    /* Webhooks (push_routes.c): allowed at all, and a comma-separated list of
     * the hosts a webhook may name ("" or NULL: any public host). */
    int webhooks;
    const char *webhook_hosts;
    /* E-mail (mail_routes.c): 1 when smtp-url is set; 0: /api/me/email
     * answers 404 mail_off. */
    int mail;
    /* /api/me/vacation (vacation_routes.c): 0 answers 404 vacations_off
     * (no accounts, or vacation-days 0); a change is told to claim_lobby's
     * rooms. */
    int vacations;
    /* POST /api/push/test (push_routes.c): the notifier that sends the test
     * notices (NULL: 503 busy, as while closing), how many an account may ask
     * for in an hour (push_tests: 0 none), and their count per account, made
     * at the first test (players/attempts.h; freed by api_fini). */
    struct notifier *notifier;
    int push_tests;
    struct attempts *push_tested;
    /* The analyses' queue (analysis/analysis.h; analysis_routes.c): NULL with
     * analysis = off or without storage, and the routes answer 404. */
    struct analysis *analysis;
};

struct api_reply {
    int status;
    const char *content_type;
    const char *cache_control;    /* NULL: none */
    const char *etag;             /* NULL: none */
    const char *content_encoding; /* "gzip" or NULL */
    const char *www_authenticate; /* a 401's challenge ("Bearer"), or NULL */
    char *set_cookie;             /* a Set-Cookie value (malloc'd), or NULL */
    long long retry_after;        /* a 429's Retry-After in seconds, 0: none */
    int head;                     /* HEAD: the headers of the GET, no body */
    const char *body;
    size_t len;
    char *owned; /* malloc'd body, freed by api_reply_free */
    /* Deferred: the fields above are filled later, then ready(reply, arg). */
    int deferred;
    struct store_read *rq; /* the read in flight; api_reply_free cancels it */
    /* Other deferred work (an admin backup): api_reply_free calls
     * cancel(cancel_arg) while it is in flight, after which ready is never called. */
    void (*cancel)(void *arg);
    void *cancel_arg;
    api_ready_cb ready;
    void *ready_arg;
};

/* Set up the routes for this lobby and web root (read into memory now; when
 * it cannot be read, a warning is logged and static files are 404). 0, or -1
 * when out of memory. */
int api_init(struct api *a, const struct lobby *lb, const char *web_root);
void api_fini(struct api *a);

/* Answer one request; path is the URL path without the query. Fills out
 * (free it with api_reply_free). Never fails: errors are replies too. */
void api_route(struct api *a, const char *method, const char *path, struct api_reply *out);
/* The same with the URL's query string (without '?', NULL or "" when none),
 * for a caller that can wait: routes that read the database set
 * out->deferred and call ready(out, arg) once out is filled (ready NULL: they
 * answer 503 at once). out must stay where it is until then, or be freed
 * with api_reply_free, which cancels the read. */
void api_route_query(struct api *a, const char *method, const char *path, const char *query,
                     struct api_reply *out, api_ready_cb ready, void *arg);
/* The same with the request headers that matter: accept_encoding (gzip is
 * sent to a client that lists it) and if_none_match (a static file whose
 * ETag it names gets 304 and no body). Either may be NULL. */
void api_route_http(struct api *a, const char *method, const char *path, const char *query,
                    const char *accept_encoding, const char *if_none_match, struct api_reply *out,
                    api_ready_cb ready, void *arg);
void api_reply_free(struct api_reply *r);
/* A JSON answer: json (malloc'd; NULL aborts as out of memory) becomes out's
 * body, with cache_control ("no-store" when NULL). account_routes.c. */
void api_reply_json(struct api_reply *out, int status, char *json, const char *cache_control);
/* {"error": code, "message": message}, no-store (PROTOCOL.md "Accounts (HTTP)"). */
void api_reply_json_error(struct api_reply *out, int status, const char *code, const char *message);
/* Overwrite p[0..n) with zeros in a way the compiler keeps (passwords,
 * tokens, before a free). account_routes.c. */
void api_wipe(void *p, size_t n);
/* A state-changing route's session, looked up (accounts_session): 0 when
 * the session is there and csrf (the X-CSRF-Token sent, "" for none) is its
 * CSRF token; else out holds the answer (401 not_signed_in with the cookie
 * cleared, 503 storage_error, 403 csrf) and -1. account_routes.c. */
int api_session_check(const struct accounts_result *r, const char *csrf, int https,
                      struct api_reply *out);
/* A deferred reply is filled: no cancel from now on, and ready(out) called. */
void api_reply_ready(struct api_reply *out);

/* The text of GET /metrics (metrics_page.c): what metrics/ counted, and the
 * rooms and connections of lb counted now (lb NULL: none); ls as
 * metrics_exposition takes it. Malloc'd; NULL when out of memory. */
char *api_metrics_render(const struct lobby *lb, const struct loopstat *ls);

/* GET (or HEAD) /metrics on the public port: 404 when a->metrics_token is
 * unset; 401 (WWW-Authenticate: Bearer) unless authorization (the header's
 * value, NULL when absent) is "Bearer " (the scheme in any case) and the
 * token, compared in constant time; else 200 with the exposition (text/plain; version=0.0.4). */
void api_route_metrics(struct api *a, const char *method, const char *authorization,
                       struct api_reply *out);
/* The metrics listener's routes: GET and HEAD of /metrics (no token asked)
 * and /healthz; 404 for any other path, 405 for other methods. */
void api_route_metrics_port(struct api *a, const char *method, const char *path,
                            struct api_reply *out);
/* One HTTP request as net/net_http.c read it; any field but method and path may be NULL. */
struct api_request {
    const char *method, *path, *query;
    const char *accept_encoding, *if_none_match;
    const char *authorization; /* the Authorization header (the admin API's token) */
    const char *text;          /* the decoded ?text= argument (POST /admin/notice) */
    const char *seconds;       /* the ?seconds= argument (POST /admin/clock) */
    const char *peer;          /* the client's address, for the admin API's log lines */
    /* The account routes (account_routes.c): */
    const char *cookie; /* the Cookie header (the session is its carcd_session) */
    const char *csrf;   /* the X-CSRF-Token header */
    int origin;         /* enum api_origin: the transport judged the Origin header */
    int https;          /* the client used https (a trusted proxy says so): cookies are Secure */
    const char *body;   /* the request body (account routes only), body_len bytes */
    size_t body_len;
};

/* What the transport found of a request's Origin header (net/origin.h). */
enum api_origin {
    API_ORIGIN_NONE = 0, /* no Origin header */
    API_ORIGIN_OK,       /* carcd's own pages (the Host's origin) or allowed-origins */
    API_ORIGIN_BAD,      /* another site's page */
};
/* api_route_http with every header that matters. */
void api_route_request(struct api *a, const struct api_request *rq, struct api_reply *out,
                       api_ready_cb ready, void *arg);

/* The account routes (account_routes.c): 1 when rq is one of them (out is
 * then answered or deferred), 0 when its path is not theirs. */
int api_account_route(struct api *a, const struct api_request *rq, struct api_reply *out);
/* The rating routes (rating_routes.c; PROTOCOL.md "Ratings"): GET /api/players/NAME
 * and GET /api/ladder. 1 when rq is one of them (out is then answered or
 * deferred), 0 when its path is not theirs. */
int api_rating_route(struct api *a, const struct api_request *rq, struct api_reply *out);
/* /api/me/vacation (vacation_routes.c): 1 when rq was it (answered, maybe
 * deferred). */
int api_vacation_route(struct api *a, const struct api_request *rq, struct api_reply *out);
/* POST, GET and HEAD /api/games/{id}/analysis (analysis_routes.c): 1 when
 * rq's path is it (answered, maybe deferred), 0 for any other path. A POST
 * needs rq->origin judged (API_ORIGIN_BAD is refused). */
int api_analysis_route(struct api *a, const struct api_request *rq, struct api_reply *out);

/* The most bytes of JSON body the account route that method and path name
 * takes (the transport reads a body for those only): PROTO_ACCOUNT_BODY_MAX
 * (4096), PROTO_CLAIM_BODY_MAX (16384) for POST /api/me/claim; 0 for a
 * route without a body. */
size_t api_account_body_route(const char *method, const char *path);
/* The carcd_session cookie of a Cookie header (NULL: none) into out
 * (TOKEN_LEN + 1 bytes, players/token.h): 1, or 0 (out "") when there is
 * none of a token's form. */
int api_cookie_session(const char *header, char *out);

/* GET /api/me/games (me_games.c): 1 when rq is it (out is then answered or
 * deferred), 0 for any other path. */
int api_me_games_route(struct api *a, const struct api_request *rq, struct api_reply *out);
/* POST /api/me/claim (claim_route.c): 1 when rq's path is it (out is then
 * answered or deferred), 0 for any other path. */
int api_claim_route(struct api *a, const struct api_request *rq, struct api_reply *out);
/* push_routes.c: GET /api/push/key, POST and DELETE /api/push/subscriptions
 * (PROTOCOL.md "Notifications"). 1 when rq was one of them (out written or
 * deferred), 0 otherwise. */
int api_push_route(struct api *a, const struct api_request *rq, struct api_reply *out);
/* mail_routes.c: GET, PUT and DELETE /api/me/email, GET and POST
 * /unsubscribe (PROTOCOL.md "Notifications", "E-mail"). 1 when rq was one of
 * them (out written or deferred), 0 otherwise. */
int api_mail_route(struct api *a, const struct api_request *rq, struct api_reply *out);
/* The mailer's ops (notify/mail.h struct mail_ops), for main to wire: the
 * games of lb where it is an account's turn now (as GET /api/me/games tells
 * them), and a read of accounts' settings through the accounts service
 * (accounts_mail_read; -1 when its queue is full). */
struct mail_game;
struct mail_ask;
int api_mail_waiting(const struct lobby *lb, struct mail_game *out, int max);
int api_mail_settings(struct accounts *ac, const long long *ids, int n, long long day,
                      struct mail_ask *ask);
/* A Set-Cookie that clears the session cookie (account_routes.c). */
void api_session_cookie_clear(struct api_reply *out, int https);
/* The value of ?page=N in a query string (1 when absent or bad). */
int api_query_page(const char *query);

/* Content type of a file name by its extension ("application/octet-stream"
 * when unknown). */
const char *api_mime(const char *name);

/* The file under root that URL path names, into out: "/" and paths ending in
 * '/' get index.html. -1 for paths that could leave the root or are not plain
 * ("..", "//", backslashes, control bytes, hidden files), or too long. With
 * root "" it is the path of the file in the web root's table. */
int api_static_path(const char *root, const char *path, char *out, size_t size);

/* The web root's file that a page path is served from: "/players.html" for
 * /players/NAME (NAME one segment of 1 to 40 of A-Z a-z 0-9 _ - ., not
 * starting with '.'), "/ladder.html" for /ladder; NULL for any other path
 * (which is then looked up as a file). A static string. */
const char *api_page_alias(const char *path);

#endif
