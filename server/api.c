#include "api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lobby.h"
#include "msg.h"
#include "sbuf.h"
#include "store.h"

int api_init(struct api *a, const struct lobby *lb, const char *web_root)
{
    memset(a, 0, sizeof *a);
    a->lobby = lb;
    snprintf(a->web_root, sizeof a->web_root, "%s", web_root);
    a->tiles = proto_encode_tiles();
    return a->tiles != NULL ? 0 : -1;
}

void api_fini(struct api *a)
{
    free(a->tiles);
    a->tiles = NULL;
}

void api_reply_free(struct api_reply *r)
{
    free(r->owned);
    r->owned = NULL;
    r->body = NULL;
}

static const struct {
    const char *ext;
    const char *type;
} mimes[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".json", "application/json"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".jpg", "image/jpeg"},
    {".jpeg", "image/jpeg"},
    {".webp", "image/webp"},
    {".gif", "image/gif"},
    {".ico", "image/x-icon"},
    {".txt", "text/plain; charset=utf-8"},
    {".woff2", "font/woff2"},
    {".woff", "font/woff"},
    {".wasm", "application/wasm"},
    {".webmanifest", "application/manifest+json"},
};

const char *api_mime(const char *name)
{
    const char *dot = strrchr(name, '.');
    const char *slash = strrchr(name, '/');
    if (dot != NULL && (slash == NULL || dot > slash))
        for (size_t i = 0; i < sizeof mimes / sizeof mimes[0]; i++)
            if (strcmp(dot, mimes[i].ext) == 0)
                return mimes[i].type;
    return "application/octet-stream";
}

int api_static_path(const char *root, const char *path, char *out, size_t size)
{
    if (path[0] != '/')
        return -1;
    for (const char *p = path; *p != '\0'; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch < 0x20 || ch == 0x7f || ch == '\\')
            return -1;
        /* No empty, hidden, "." or ".." segments. */
        if (ch == '/' && (p[1] == '/' || p[1] == '.'))
            return -1;
    }
    const char *index = path[strlen(path) - 1] == '/' ? "index.html" : "";
    int n = snprintf(out, size, "%s%s%s", root, path, index);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static void reply_text(struct api_reply *r, int status, const char *type, const char *text)
{
    r->status = status;
    r->content_type = type;
    r->len = strlen(text);
    r->owned = malloc(r->len + 1);
    if (r->owned == NULL)
        srv_oom("http reply");
    memcpy(r->owned, text, r->len + 1);
    r->body = r->owned;
}

static void reply_static(struct api *a, const char *path, struct api_reply *r)
{
    struct stat st;
    if (api_static_path(a->web_root, path, r->file, sizeof r->file) != 0 ||
        stat(r->file, &st) != 0) {
        r->file[0] = '\0';
        reply_text(r, 404, "text/plain; charset=utf-8", "not found\n");
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        /* A directory without the trailing slash: its index. */
        size_t n = strlen(r->file);
        if (n + sizeof "/index.html" > sizeof r->file ||
            (memcpy(r->file + n, "/index.html", sizeof "/index.html"), stat(r->file, &st) != 0)) {
            r->file[0] = '\0';
            reply_text(r, 404, "text/plain; charset=utf-8", "not found\n");
            return;
        }
    }
    if (!S_ISREG(st.st_mode)) {
        r->file[0] = '\0';
        reply_text(r, 404, "text/plain; charset=utf-8", "not found\n");
        return;
    }
    r->status = 200;
    r->content_type = api_mime(r->file);
    r->cache_control = "no-cache";
}

/* The value of ?page=N (1 when absent or bad). */
static int query_page(const char *q)
{
    for (const char *p = q; p != NULL && *p != '\0';) {
        if (strncmp(p, "page=", 5) == 0) {
            long v = strtol(p + 5, NULL, 10);
            return v >= 1 && v <= 1000000 ? (int)v : 1;
        }
        p = strchr(p, '&');
        if (p != NULL)
            p++;
    }
    return 1;
}

static int reply_games(struct api *a, const char *path, const char *query, struct api_reply *out)
{
    if (strcmp(path, "/api/games") == 0) {
        out->status = 200;
        out->content_type = "application/json";
        out->cache_control = "no-store";
        if (a->store != NULL) {
            out->owned = store_games_page(a->store, query_page(query));
        } else {
            const char *empty = "{\"page\":1,\"per_page\":20,\"total\":0,\"games\":[]}";
            out->owned = malloc(strlen(empty) + 1);
            if (out->owned == NULL)
                srv_oom("http reply");
            strcpy(out->owned, empty);
        }
        out->body = out->owned;
        out->len = strlen(out->body);
        return 1;
    }
    if (strncmp(path, "/api/games/", 11) == 0 && path[11] != '\0') {
        const char *rec = a->store != NULL ? store_game_record(a->store, path + 11) : NULL;
        if (rec == NULL) {
            reply_text(out, 404, "application/json",
                       "{\"error\":\"no finished game with that id\"}");
            return 1;
        }
        reply_text(out, 200, "application/json", rec);
        out->cache_control = "max-age=3600";
        return 1;
    }
    return 0;
}

void api_route(struct api *a, const char *method, const char *path, struct api_reply *out)
{
    api_route_query(a, method, path, NULL, out);
}

void api_route_query(struct api *a, const char *method, const char *path, const char *query,
                     struct api_reply *out)
{
    memset(out, 0, sizeof *out);
    if (strcmp(method, "GET") != 0) {
        reply_text(out, 405, "text/plain; charset=utf-8", "method not allowed\n");
        return;
    }
    if (strcmp(path, "/healthz") == 0) {
        reply_text(out, 200, "text/plain; charset=utf-8", "ok");
        out->cache_control = "no-store";
        return;
    }
    if (strcmp(path, "/api/rooms") == 0) {
        out->status = 200;
        out->content_type = "application/json";
        out->cache_control = "no-store";
        out->owned = lobby_rooms_encode(a->lobby, "", 0);
        out->body = out->owned;
        out->len = strlen(out->body);
        return;
    }
    if (strcmp(path, "/api/tiles") == 0) {
        out->status = 200;
        out->content_type = "application/json";
        out->body = a->tiles;
        out->len = strlen(a->tiles);
        out->cache_control = "max-age=3600";
        return;
    }
    if (reply_games(a, path, query, out))
        return;
    if (strcmp(path, "/ws") == 0) {
        reply_text(out, 426, "text/plain; charset=utf-8",
                   "this is the websocket endpoint: connect with a websocket client\n");
        return;
    }
    if (strncmp(path, "/api/", 5) == 0 || strcmp(path, "/api") == 0) {
        reply_text(out, 404, "application/json", "{\"error\":\"no such endpoint\"}");
        return;
    }
    reply_static(a, path, out);
}
