/* api.h: carcd's HTTP routes as plain functions: a request (method, path)
 * in, a reply (status, content type, body or a file to stream) out. net.c
 * does the I/O; nothing here knows about sockets.
 *
 *   GET /healthz      200 "ok"
 *   GET /api/rooms    the public rooms (JSON array, see PROTOCOL.md `rooms`)
 *   GET /api/tiles    the tile catalogue (JSON)
 *   GET /api/games?page=N   finished games, newest first (JSON, see server/README.md)
 *   GET /api/games/{id}     a finished game's record (DESIGN 3, seed included); 404 for
 *                     a running or unknown game
 *   GET /ws           426: websocket upgrades only
 *   GET /...          a static file under the web root ("/" and directories
 *                     serve index.html); 404 when missing or not allowed
 *   anything else     405 */
#ifndef CARCD_API_H
#define CARCD_API_H

#include <stddef.h>

struct lobby;
struct store;

struct api {
    const struct lobby *lobby;
    char web_root[256];
    char *tiles;               /* GET /api/tiles, built once */
    const struct store *store; /* NULL: no storage, /api/games is empty */
};

struct api_reply {
    int status;
    const char *content_type;
    const char *cache_control; /* NULL: none */
    const char *body;          /* NULL with a file */
    size_t len;
    char *owned;    /* malloc'd body, freed by api_reply_free */
    char file[768]; /* not "": stream this file instead of body */
};

/* Set up the routes for this lobby and web root. 0, or -1 when out of memory. */
int api_init(struct api *a, const struct lobby *lb, const char *web_root);
void api_fini(struct api *a);

/* Answer one request; path is the URL path without the query. Fills out
 * (free it with api_reply_free). Never fails: errors are replies too. */
void api_route(struct api *a, const char *method, const char *path, struct api_reply *out);
/* The same with the URL's query string (without '?', NULL or "" when none). */
void api_route_query(struct api *a, const char *method, const char *path, const char *query,
                     struct api_reply *out);
void api_reply_free(struct api_reply *r);

/* Content type of a file name by its extension ("application/octet-stream"
 * when unknown). */
const char *api_mime(const char *name);

/* The file under root that URL path names, into out: "/" and paths ending in
 * '/' get index.html. -1 for paths that could leave the root or are not plain
 * ("..", "//", backslashes, control bytes, hidden files), or too long. */
int api_static_path(const char *root, const char *path, char *out, size_t size);

#endif
