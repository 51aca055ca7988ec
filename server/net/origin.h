/* origin.h: which web pages may open a websocket to carcd (allowed-origins).
 *
 * A browser names the page that opens a websocket in the upgrade's Origin
 * header, and a page on another site can open one to any server: without a
 * check, a page elsewhere could play, chat and create rooms in its visitors'
 * names. net.c asks origin_allowed at the upgrade; a refusal is answered 403.
 *
 * Plain data and pure functions over text, like proxy.h: no allocation.
 * Origins are compared in a normal form: scheme and host in lower case, the
 * port always there (80 for http, 443 for https when the text has none). */
#ifndef CARCD_ORIGIN_H
#define CARCD_ORIGIN_H

#include <stddef.h>

#define ORIGIN_MAX 32       /* entries in allowed-origins */
#define ORIGIN_HOST_MAX 256 /* bytes of a host name, brackets of an IPv6 address included */

struct origin {
    char scheme[16];
    char host[ORIGIN_HOST_MAX];
    int port; /* given, or the scheme's default (80, 443); 0 for neither */
};

/* Owned by whoever embeds it (net/net_int.h's struct net). */
struct origin_list {
    int any; /* "*" was listed: every origin is allowed */
    int n;
    struct origin list[ORIGIN_MAX];
};

/* Parse text, an origin as RFC 6454 serialises it: scheme "://" host
 * [":" port], nothing after (no path, not even "/"). The host is a name of
 * letters, digits, '-', '.' and '_', or an IPv6 address in brackets. 0, or -1
 * when text is not one ("null", a path, a user, a bad port). */
int origin_parse(const char *text, struct origin *o);

/* Parse spec, comma-separated origins (spaces around entries allowed) or "*";
 * "" is the empty list. 0, or -1 with a sentence in err (l is then empty). */
int origin_list_parse(struct origin_list *l, const char *spec, char *err, size_t errlen);

/* 1 when a websocket upgrade whose Origin header is origin (NULL or "": the
 * request has none, as bots and tools send) and whose Host header is host
 * (NULL when absent) may go on: no Origin; or l->any; or the origin's host
 * and port are the Host's (its port defaulting to the origin scheme's); or
 * the origin is in l. 0 otherwise. */
int origin_allowed(const struct origin_list *l, const char *origin, const char *host);

#endif
