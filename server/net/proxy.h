/* proxy/proxy.h: which peers are trusted proxies (trusted-proxies), and the
 * client address a trusted proxy forwards (X-Forwarded-For, X-Real-IP).
 *
 * Plain data and pure functions over text: net/net_http.c reads the headers and calls
 * proxy_client_find; the lobby never sees anything but the resulting address.
 * An IPv4 address is kept as its IPv4-mapped IPv6 form (::ffff:a.b.c.d), so
 * that "10.0.0.0/8" also matches a dual-stack peer ::ffff:10.1.2.3. */
#ifndef CARCD_PROXY_H
#define CARCD_PROXY_H

#include <stddef.h>

#define PROXY_MAX 64 /* entries in trusted-proxies */

struct proxy_net {
    unsigned char addr[16]; /* the network, host bits cleared */
    int bits;               /* prefix length over the 128 bits */
};

/* Owned by whoever embeds it (net/net_int.h's struct net); no allocation. */
struct proxy_list {
    int n;
    struct proxy_net nets[PROXY_MAX];
};

/* Parse spec: comma-separated IPv4/IPv6 addresses or CIDRs ("127.0.0.1,
 * 10.0.0.0/8, ::1, fd00::/8"), spaces around entries allowed; "" is the empty
 * list. Returns 0, or -1 with a sentence in err (l is then empty). */
int proxy_list_parse(struct proxy_list *l, const char *spec, char *err, size_t errlen);

/* 1 when addr (an IPv4 or IPv6 address as text) is in l, else 0 (also for
 * text that is not an address). */
int proxy_list_has(const struct proxy_list *l, const char *addr);

/* The address to count and log for a connection from peer. Only when peer is
 * in l: the right-most X-Forwarded-For entry (xff, NULL or "" when absent)
 * that is not itself in l (the left-most entry when all are), else the
 * X-Real-IP address (xri). A header with any entry that is not a plain
 * address, or an empty entry, is ignored as a whole: the peer then counts.
 * out (size >= 46) gets the address in canonical form (inet_ntop; IPv4-mapped
 * as dotted IPv4), so that two spellings of one address count as one.
 * Returns 1 when out is a forwarded address, 0 when it is peer's. */
int proxy_client_find(const struct proxy_list *l, const char *peer, const char *xff,
                      const char *xri, char *out, size_t size);

#endif
