/* http.c: the blocking GET of http.h. */
#include "http.h"

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int dial(const char *host, const char *port, int timeout_ms, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0)
        return fail(err, errlen, "%s: %s", host, gai_strerror(rc));
    int fd = -1;
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0)
            continue;
        /* Also bounds connect() on Linux: a stuck server cannot hang the tool. */
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        return fail(err, errlen, "cannot connect to %s:%s: %s", host, port, strerror(errno));
    return fd;
}

/* The value of header name (with its colon) in head, or NULL. */
static const char *header(const char *head, const char *name)
{
    size_t n = strlen(name);
    for (const char *l = strstr(head, "\r\n"); l != NULL; l = strstr(l, "\r\n")) {
        l += 2;
        if (strncasecmp(l, name, n) == 0) {
            l += n;
            while (*l == ' ' || *l == '\t')
                l++;
            return l;
        }
    }
    return NULL;
}

int http_get(const char *host, const char *port, const char *path, int timeout_ms, int *status,
             char **body, char *err, size_t errlen)
{
    int fd = dial(host, port, timeout_ms, err, errlen);
    if (fd < 0)
        return -1;
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s:%s\r\nAccept: application/json\r\n"
                     "Connection: close\r\n\r\n",
                     path, host, port);
    if (n < 0 || (size_t)n >= sizeof req) {
        close(fd);
        return fail(err, errlen, "request too long");
    }
    for (int off = 0; off < n;) {
        ssize_t w = send(fd, req + off, (size_t)(n - off), 0);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return fail(err, errlen, "send: %s", strerror(errno));
        }
        off += (int)w;
    }
    /* Read to the end of the body: the Content-Length, or the end of the stream.
     * start: offset of the body once the head is complete (0 before). */
    size_t cap = 4096, len = 0, start = 0, want = (size_t)-1;
    char *buf = malloc(cap + 1);
    while (buf != NULL && (start == 0 || len - start < want)) {
        if (len == cap) {
            char *nb = cap >= HTTP_BODY_MAX ? NULL : realloc(buf, 2 * cap + 1);
            if (nb == NULL) {
                free(buf);
                close(fd);
                return fail(err, errlen, "response too long");
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = recv(fd, buf + len, cap - len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            close(fd);
            return fail(err, errlen, "recv: %s",
                        errno == EAGAIN || errno == EWOULDBLOCK ? "timed out" : strerror(errno));
        }
        if (r == 0)
            break;
        len += (size_t)r;
        buf[len] = '\0';
        char *end;
        if (start == 0 && (end = strstr(buf, "\r\n\r\n")) != NULL) {
            start = (size_t)(end + 4 - buf);
            *end = '\0'; /* the head as a string of its own, for now */
            const char *cl = header(buf, "Content-Length:");
            if (cl != NULL)
                want = strtoul(cl, NULL, 10);
            const char *te = header(buf, "Transfer-Encoding:");
            int chunked = te != NULL && strncasecmp(te, "chunked", 7) == 0;
            *end = '\r';
            if (chunked) {
                free(buf);
                close(fd);
                return fail(err, errlen, "chunked responses are not supported");
            }
        }
    }
    close(fd);
    if (buf == NULL)
        return fail(err, errlen, "out of memory");
    if (start == 0 || sscanf(buf, "HTTP/1.%*d %d", status) != 1) {
        free(buf);
        return fail(err, errlen, "not an HTTP response");
    }
    size_t blen = len - start;
    if (want != (size_t)-1) {
        if (blen < want) {
            free(buf);
            return fail(err, errlen, "response cut short");
        }
        blen = want;
    }
    memmove(buf, buf + start, blen);
    buf[blen] = '\0';
    *body = buf;
    return 0;
}
