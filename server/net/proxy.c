#include "net/proxy.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text (len bytes, not NUL-terminated) as 16 bytes; IPv4 as ::ffff:a.b.c.d.
 * Returns 4 or 6 for the family read, 0 for anything else. */
static int addr_parse(const char *text, size_t len, unsigned char out[16])
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, text, len);
    buf[len] = '\0';
    struct in_addr v4;
    if (inet_pton(AF_INET, buf, &v4) == 1) {
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &v4, 4);
        return 4;
    }
    struct in6_addr v6;
    if (inet_pton(AF_INET6, buf, &v6) == 1) {
        memcpy(out, &v6, 16);
        return 6;
    }
    return 0;
}

static int is_mapped(const unsigned char a[16])
{
    static const unsigned char prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(a, prefix, 12) == 0;
}

static void addr_mask(unsigned char a[16], int bits)
{
    for (int i = 0; i < 16; i++) {
        int keep = bits >= 8 * (i + 1) ? 8 : bits <= 8 * i ? 0 : bits - 8 * i;
        a[i] &= (unsigned char)(0xff00u >> keep);
    }
}

static int net_has(const struct proxy_net *n, const unsigned char a[16])
{
    unsigned char m[16];
    memcpy(m, a, 16);
    addr_mask(m, n->bits);
    return memcmp(m, n->addr, 16) == 0;
}

static int list_has(const struct proxy_list *l, const unsigned char a[16])
{
    for (int i = 0; i < l->n; i++)
        if (net_has(&l->nets[i], a))
            return 1;
    return 0;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* [*s, *e) without the spaces around it. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && is_space(**s))
        (*s)++;
    while (*e > *s && is_space((*e)[-1]))
        (*e)--;
}

/* One trusted-proxies entry: "addr" or "addr/bits". */
static int entry_parse(const char *s, const char *e, struct proxy_net *n)
{
    const char *slash = memchr(s, '/', (size_t)(e - s));
    int fam = addr_parse(s, (size_t)((slash != NULL ? slash : e) - s), n->addr);
    if (fam == 0)
        return -1;
    int bits = fam == 4 ? 32 : 128;
    if (slash != NULL) {
        const char *d = slash + 1;
        if (d == e || e - d > 3)
            return -1;
        int v = 0;
        for (; d < e; d++) {
            if (*d < '0' || *d > '9')
                return -1;
            v = v * 10 + (*d - '0');
        }
        if (v > bits)
            return -1;
        bits = v;
    }
    n->bits = fam == 4 ? bits + 96 : bits;
    addr_mask(n->addr, n->bits);
    return 0;
}

int proxy_list_parse(struct proxy_list *l, const char *spec, char *err, size_t errlen)
{
    l->n = 0;
    const char *p = spec;
    const char *end = spec + strlen(spec);
    const char *s0 = p, *e0 = end;
    trim(&s0, &e0);
    if (s0 == e0)
        return 0;
    while (p <= end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *s = p, *e = comma != NULL ? comma : end;
        trim(&s, &e);
        if (l->n == PROXY_MAX) {
            snprintf(err, errlen, "trusted-proxies: more than %d entries", PROXY_MAX);
            l->n = 0;
            return -1;
        }
        if (entry_parse(s, e, &l->nets[l->n]) != 0) {
            snprintf(err, errlen, "trusted-proxies: '%.*s' is not an IPv4 or IPv6 address or CIDR",
                     (int)(e - s), s);
            l->n = 0;
            return -1;
        }
        l->n++;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return 0;
}

int proxy_list_has(const struct proxy_list *l, const char *addr)
{
    unsigned char a[16];
    return addr_parse(addr, strlen(addr), a) != 0 && list_has(l, a);
}

static void addr_text(const unsigned char a[16], char *out, size_t size)
{
    char buf[INET6_ADDRSTRLEN];
    const char *r = is_mapped(a) ? inet_ntop(AF_INET, a + 12, buf, sizeof buf)
                                 : inet_ntop(AF_INET6, a, buf, sizeof buf);
    snprintf(out, size, "%s", r != NULL ? buf : "");
}

#define XFF_MAX 64 /* entries read from one X-Forwarded-For; more: ignored as malformed */

/* The client in an X-Forwarded-For value: 0 with *a set, or -1 (malformed). */
static int xff_walk(const struct proxy_list *l, const char *xff, unsigned char a[16])
{
    unsigned char hops[XFF_MAX][16];
    int n = 0;
    for (const char *p = xff;;) {
        const char *comma = strchr(p, ',');
        const char *s = p, *e = comma != NULL ? comma : p + strlen(p);
        trim(&s, &e);
        if (n == XFF_MAX || addr_parse(s, (size_t)(e - s), hops[n]) == 0)
            return -1;
        n++;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    /* Right to left: each trusted proxy appended the address it heard from. */
    int i = n - 1;
    while (i > 0 && list_has(l, hops[i]))
        i--;
    memcpy(a, hops[i], 16);
    return 0;
}

int proxy_client_find(const struct proxy_list *l, const char *peer, const char *xff,
                      const char *xri, char *out, size_t size)
{
    unsigned char a[16];
    if (peer != NULL && l->n > 0 && proxy_list_has(l, peer)) {
        if (xff != NULL && xff[0] != '\0') {
            if (xff_walk(l, xff, a) == 0) {
                addr_text(a, out, size);
                return 1;
            }
        } else if (xri != NULL && xri[0] != '\0') {
            const char *s = xri, *e = xri + strlen(xri);
            trim(&s, &e);
            if (addr_parse(s, (size_t)(e - s), a) != 0) {
                addr_text(a, out, size);
                return 1;
            }
        }
    }
    snprintf(out, size, "%s", peer != NULL ? peer : "");
    return 0;
}
