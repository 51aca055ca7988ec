/* webroot.h: the static files of the web client, read into memory once at
 * start, so that serving them never touches the disk from the event loop.
 * A file changed or added under the web root shows after a restart.
 *
 * Only plain files and directories are read; names starting with '.' are
 * skipped, and so are symbolic links (nothing outside the root is served),
 * and files whose name does not end in one of a web client's extensions
 * (webroot_name_served: .html .css .js .mjs .json .svg .png .jpg .jpeg .webp
 * .gif .ico .woff2 .woff .wasm .webmanifest): a README or notes beside the
 * client are not published.
 * Bounds: WEBROOT_MAX_FILES files, WEBROOT_MAX_BYTES bytes in all, paths
 * under WEBROOT_PATH_MAX. Each file is also compressed once, at start (gzip,
 * kept when it saves at least an eighth), and gets an ETag from its
 * content. Owned by whoever holds the struct (api.c). */
#ifndef CARCD_WEBROOT_H
#define CARCD_WEBROOT_H

#include <stddef.h>

#define WEBROOT_MAX_FILES 1024
#define WEBROOT_MAX_BYTES (64u << 20)
#define WEBROOT_PATH_MAX 512

struct webroot_file {
    char *path; /* URL path: "/index.html", "/js/main.js" */
    char *data;
    size_t len;
    char *gz; /* the same compressed (gzip), or NULL when that saves little */
    size_t gz_len;
    char etag[20]; /* "\"" + 16 hex digits of the content's SHA-256 + "\"" */
};

struct webroot {
    struct webroot_file *files; /* sorted by path */
    int n;
    size_t bytes;
};

/* Read every file under dir. 0, or -1 with a sentence in err (dir missing or
 * unreadable, a bound passed); w is then empty but usable. */
int webroot_load(struct webroot *w, const char *dir, char *err, size_t errlen);
/* 1 when a file of this name (its last path segment) is one the web root
 * serves, by its extension; else 0. */
int webroot_name_served(const char *name);
/* The file at URL path (exact, case-sensitive), or NULL. */
const struct webroot_file *webroot_find(const struct webroot *w, const char *path);
void webroot_free(struct webroot *w);

#endif
