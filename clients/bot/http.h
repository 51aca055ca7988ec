/* http.h: one blocking HTTP/1.1 GET over TCP, for the tools that read the
 * server's JSON routes (carc-load reads GET /api/stats). Not a general
 * client: no TLS, no redirects, no chunked bodies (carcd sends a
 * Content-Length with every body). */
#ifndef CARC_HTTP_H
#define CARC_HTTP_H

#include <stddef.h>

#define HTTP_BODY_MAX (1u << 20) /* longest response accepted */

/* GET path from host:port, waiting at most about timeout_ms per read or write.
 * Returns 0 with the status code in *status and the body, malloc'd and
 * NUL-terminated, in *body (the caller frees it); or -1 with a sentence in err
 * (nothing to free). */
int http_get(const char *host, const char *port, const char *path, int timeout_ms, int *status,
             char **body, char *err, size_t errlen);

#endif
