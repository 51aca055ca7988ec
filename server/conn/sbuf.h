/* sbuf.h: a refcounted, immutable outbound message shared by every queue it
 * is put on, so a delta is encoded once and sent to many.
 *
 * The text is stored after SBUF_PRE bytes of headroom that the transport may
 * scribble a frame header into (libwebsockets needs LWS_PRE bytes before the
 * payload); the text itself is never modified once built. */
#ifndef CARCD_SBUF_H
#define CARCD_SBUF_H

#include <stddef.h>

#define SBUF_PRE 16 /* >= LWS_PRE of libwebsockets 4.1 on 64-bit; net/net.c checks it */

struct sbuf {
    unsigned refs;
    size_t len; /* bytes of text, NUL excluded */
    /* What the text is, read once from its head when the buffer is built
     * (proto_server_type_of), so that counting each connection it is queued
     * to reads these and never the text: */
    int type; /* enum proto_server_type; PROTO_S_UNKNOWN: not a server message */
    int code; /* an error's CARC_E_* code, 0 when unknown and for other types */
    unsigned char pre[SBUF_PRE];
    char data[]; /* len bytes of text, then a NUL */
};

/* A new buffer holding a copy of text[0..len), with one reference owned by the
 * caller, its type and code set. Never NULL: out of memory aborts the process
 * (util/mem.h). */
struct sbuf *sbuf_new(const char *text, size_t len);

/* Take ownership of malloc'd NUL-terminated text (an encoder's result) and
 * return it as a buffer with one reference; text is freed. text NULL (the
 * encoder ran out of memory) aborts. */
struct sbuf *sbuf_take(char *text);

static inline struct sbuf *sbuf_ref(struct sbuf *b)
{
    b->refs++;
    return b;
}

/* Drop one reference; the last one frees the buffer. b may be NULL. */
void sbuf_unref(struct sbuf *b);

#endif
