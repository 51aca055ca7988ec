/* webroot.c: the web root in memory (webroot.h). Runs before the loop. */
#define _DEFAULT_SOURCE /* d_type */
#include "http/webroot.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "sha256.h"
#include "util/mem.h"

struct walk {
    struct webroot *w;
    int cap;
    char *err;
    size_t errlen;
};

static int read_file(const char *fs, char **out, size_t *len, size_t room)
{
    FILE *f = fopen(fs, "rb");
    if (f == NULL)
        return -1;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || (size_t)st.st_size > room) {
        fclose(f);
        errno = EFBIG;
        return -1;
    }
    char *d = mem_alloc((size_t)st.st_size + 1);
    size_t n = fread(d, 1, (size_t)st.st_size, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(d);
        return -1;
    }
    d[n] = '\0';
    *out = d;
    *len = n;
    return 0;
}

/* The gzip form of data, or NULL when it does not save an eighth. */
static char *gzip_of(const char *data, size_t len, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    uLong cap = deflateBound(&z, (uLong)len);
    char *gz = mem_alloc(cap);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)gz;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *out_len = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END || *out_len > len - len / 8) {
        free(gz);
        return NULL;
    }
    return gz;
}

static void etag_of(const char *data, size_t len, char out[20])
{
    static const char hex[] = "0123456789abcdef";
    uint8_t d[SHA256_LEN];
    sha256(data, len, d);
    out[0] = '"';
    for (int i = 0; i < 8; i++) {
        out[1 + 2 * i] = hex[d[i] >> 4];
        out[2 + 2 * i] = hex[d[i] & 15];
    }
    out[17] = '"';
    out[18] = '\0';
}

static int add(struct walk *k, const char *url, const char *fs)
{
    struct webroot *w = k->w;
    if (w->n == WEBROOT_MAX_FILES) {
        snprintf(k->err, k->errlen, "more than %d files", WEBROOT_MAX_FILES);
        return -1;
    }
    if (w->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 32;
        struct webroot_file *f = mem_resize(w->files, (size_t)k->cap * sizeof *f);
        w->files = f;
    }
    struct webroot_file *f = &w->files[w->n];
    if (read_file(fs, &f->data, &f->len, WEBROOT_MAX_BYTES - w->bytes) != 0) {
        snprintf(k->err, k->errlen, "%s: %s", fs,
                 errno == EFBIG ? "over the web root's size bound" : strerror(errno));
        return -1;
    }
    f->path = mem_strdup(url);
    f->gz = f->len >= 256 ? gzip_of(f->data, f->len, &f->gz_len) : NULL;
    if (f->gz == NULL)
        f->gz_len = 0;
    etag_of(f->data, f->len, f->etag);
    w->bytes += f->len;
    w->n++;
    return 0;
}

/* The kinds of file a web client is made of: only these are served, so that
 * what else sits in the web root (a README, notes, sources, backups) is not
 * published with it. */
static const char *const served[] = {".html",  ".css",  ".js",   ".mjs",        ".json", ".svg",
                                     ".png",   ".jpg",  ".jpeg", ".webp",       ".gif",  ".ico",
                                     ".woff2", ".woff", ".wasm", ".webmanifest"};

int webroot_name_served(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot == NULL || dot == name)
        return 0;
    for (size_t i = 0; i < sizeof served / sizeof served[0]; i++)
        if (strcmp(dot, served[i]) == 0)
            return 1;
    return 0;
}

static int walk_dir(struct walk *k, const char *url, const char *fs, int depth)
{
    if (depth > 16) {
        snprintf(k->err, k->errlen, "%s: directories nested too deep", fs);
        return -1;
    }
    DIR *d = opendir(fs);
    if (d == NULL) {
        if (depth == 0) /* the caller names the root */
            snprintf(k->err, k->errlen, "%s", strerror(errno));
        else
            snprintf(k->err, k->errlen, "%s: %s", fs, strerror(errno));
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char u[WEBROOT_PATH_MAX], p[WEBROOT_PATH_MAX * 2];
        int nu = snprintf(u, sizeof u, "%s/%s", url, e->d_name);
        snprintf(p, sizeof p, "%s/%s", fs, e->d_name);
        if (nu < 0 || (size_t)nu >= sizeof u) {
            snprintf(k->err, k->errlen, "%s: path too long", p);
            rc = -1;
            break;
        }
        struct stat st;
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            rc = walk_dir(k, u, p, depth + 1);
        else if (S_ISREG(st.st_mode) && webroot_name_served(e->d_name))
            rc = add(k, u, p);
    }
    closedir(d);
    return rc;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct webroot_file *)a)->path, ((const struct webroot_file *)b)->path);
}

int webroot_load(struct webroot *w, const char *dir, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    struct walk k = {w, 0, err, errlen};
    if (walk_dir(&k, "", dir, 0) != 0) {
        webroot_free(w);
        return -1;
    }
    if (w->n > 0) /* a folder of nothing served: files is NULL, which qsort may not take */
        qsort(w->files, (size_t)w->n, sizeof *w->files, by_path);
    return 0;
}

const struct webroot_file *webroot_find(const struct webroot *w, const char *path)
{
    struct webroot_file key = {.path = (char *)path};
    if (w->n == 0)
        return NULL;
    return bsearch(&key, w->files, (size_t)w->n, sizeof *w->files, by_path);
}

void webroot_free(struct webroot *w)
{
    for (int i = 0; i < w->n; i++) {
        free(w->files[i].path);
        free(w->files[i].data);
        free(w->files[i].gz);
    }
    free(w->files);
    memset(w, 0, sizeof *w);
}
