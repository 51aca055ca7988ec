/* origin.c: see origin.h. */
#include "net/origin.h"

#include <stdio.h>
#include <string.h>

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int default_port(const char *scheme)
{
    return strcmp(scheme, "http") == 0 ? 80 : strcmp(scheme, "https") == 0 ? 443 : 0;
}

/* host [":" port] at *p, up to end: the host into out (lower case), the port
 * into *port (0 when absent). 0, or -1 when it is not one. */
static int authority_parse(const char *p, const char *end, char out[ORIGIN_HOST_MAX], int *port)
{
    size_t n = 0;
    if (p < end && *p == '[') {
        for (; p < end && *p != ']'; p++) {
            if (n + 2 >= ORIGIN_HOST_MAX ||
                !(is_digit(*p) || (lower(*p) >= 'a' && lower(*p) <= 'f') || *p == ':' ||
                  *p == '.' || (*p == '[' && n == 0)))
                return -1;
            out[n++] = lower(*p);
        }
        if (p == end || n < 2)
            return -1;   /* no ']', or nothing between the brackets */
        out[n++] = *p++; /* ']' */
    } else {
        for (; p < end && *p != ':'; p++) {
            if (n + 1 >= ORIGIN_HOST_MAX ||
                !(is_alpha(*p) || is_digit(*p) || *p == '-' || *p == '.' || *p == '_'))
                return -1;
            out[n++] = lower(*p);
        }
    }
    out[n] = '\0';
    if (n == 0)
        return -1;
    *port = 0;
    if (p == end)
        return 0;
    if (*p++ != ':' || p == end || end - p > 5)
        return -1;
    long v = 0;
    for (; p < end; p++) {
        if (!is_digit(*p))
            return -1;
        v = v * 10 + (*p - '0');
    }
    if (v < 1 || v > 65535)
        return -1;
    *port = (int)v;
    return 0;
}

static int origin_parse_n(const char *text, size_t len, struct origin *o)
{
    const char *p = text, *end = text + len;
    size_t n = 0;
    if (p == end || !is_alpha(*p))
        return -1;
    for (; p < end && *p != ':'; p++) {
        if (n + 1 >= sizeof o->scheme ||
            !(is_alpha(*p) || is_digit(*p) || *p == '+' || *p == '-' || *p == '.'))
            return -1;
        o->scheme[n++] = lower(*p);
    }
    o->scheme[n] = '\0';
    if (end - p < 3 || memcmp(p, "://", 3) != 0)
        return -1;
    if (authority_parse(p + 3, end, o->host, &o->port) != 0)
        return -1;
    if (o->port == 0)
        o->port = default_port(o->scheme);
    return 0;
}

int origin_parse(const char *text, struct origin *o)
{
    return origin_parse_n(text, strlen(text), o);
}

static int same(const struct origin *a, const struct origin *b)
{
    return a->port == b->port && strcmp(a->scheme, b->scheme) == 0 && strcmp(a->host, b->host) == 0;
}

int origin_list_parse(struct origin_list *l, const char *spec, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    if (spec[strspn(spec, " \t")] == '\0')
        return 0; /* blank: the empty list */
    for (const char *s = spec;;) {
        const char *e = strchr(s, ',');
        if (e == NULL)
            e = s + strlen(s);
        const char *a = s, *b = e;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        struct origin o;
        if (b - a == 1 && *a == '*') {
            l->any = 1;
        } else if (a == b || origin_parse_n(a, (size_t)(b - a), &o) != 0) {
            snprintf(err, errlen,
                     "allowed-origins: '%.*s' is not an origin (scheme://host[:port], no path, "
                     "or *)",
                     (int)(b - a > 80 ? 80 : b - a), a);
            memset(l, 0, sizeof *l);
            return -1;
        } else if (l->n == ORIGIN_MAX) {
            snprintf(err, errlen, "allowed-origins: more than %d origins", ORIGIN_MAX);
            memset(l, 0, sizeof *l);
            return -1;
        } else {
            l->list[l->n++] = o;
        }
        if (*e != ',')
            return 0;
        s = e + 1;
    }
}

/* The Host header names the origin's host and port. */
static int host_is(const struct origin *o, const char *host)
{
    char h[ORIGIN_HOST_MAX];
    int port;
    if (authority_parse(host, host + strlen(host), h, &port) != 0)
        return 0;
    if (port == 0)
        port = default_port(o->scheme);
    return port == o->port && strcmp(h, o->host) == 0;
}

int origin_allowed(const struct origin_list *l, const char *origin, const char *host)
{
    if (origin == NULL || origin[0] == '\0' || l->any)
        return 1;
    struct origin o;
    if (origin_parse(origin, &o) != 0)
        return 0;
    if (host != NULL && host_is(&o, host))
        return 1;
    for (int i = 0; i < l->n; i++)
        if (same(&o, &l->list[i]))
            return 1;
    return 0;
}
