/* json_str.h: the one JSON string writer of carcd. The codec's state and
 * patch encoders, the stored rows (seat names), the admin API and the JSON
 * log lines all escape strings through it. (Prometheus label values follow
 * their own rules: server/metrics/.)
 *
 * Plain C, no jansson, no allocation: it fills a caller's buffer. */
#ifndef CARC_PROTO_JSON_STR_H
#define CARC_PROTO_JSON_STR_H

#include <stddef.h>

/* Flags of proto_json_escape. */
enum {
    /* s may hold any bytes (a log line's fields, whatever a peer sent): a
     * byte that does not start valid UTF-8 is written as \ufffd, DEL as
     * \u007f, and control escapes use lower-case hex. Without it s must be
     * valid UTF-8 (text that came through the decoder or from our own tables)
     * and is written as jansson writes it: \u001F, DEL as it is. */
    PROTO_JSON_ANY_BYTES = 1,
};

/* The worst case: one input byte becomes at most 6 output bytes. */
#define PROTO_JSON_ESCAPE_MAX(n) ((n)*6)

/* Write s[0..n) escaped as the inside of a JSON string (no quotes) into
 * out[0..cap). Only whole escapes and whole characters are written. Returns
 * the bytes written; *used (may be NULL) gets the input bytes consumed, less
 * than n when out was too small. Never writes a NUL. */
size_t proto_json_escape(char *out, size_t cap, const char *s, size_t n, size_t *used,
                         unsigned flags);

/* Append s as a quoted JSON string to out, a NUL-terminated text of *len
 * bytes in a buffer of size bytes: as much of s as fits (the closing quote
 * and the NUL always do when size > *len + 1). *len is updated. */
void proto_json_str_append(char *out, size_t size, size_t *len, const char *s);

#endif
