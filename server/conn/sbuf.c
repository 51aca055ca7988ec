#include "conn/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void srv_oom(const char *where)
{
    fprintf(stderr, "carcd: out of memory (%s)\n", where);
    fflush(stderr);
    abort();
}

char *srv_strndup(const char *s, size_t n, const char *where)
{
    char *d = malloc(n + 1);
    if (d == NULL)
        srv_oom(where);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

struct sbuf *sbuf_new(const char *text, size_t len)
{
    struct sbuf *b = malloc(sizeof *b + len + 1);
    if (b == NULL)
        srv_oom("sbuf_new");
    b->refs = 1;
    b->len = len;
    memcpy(b->data, text, len);
    b->data[len] = '\0';
    return b;
}

struct sbuf *sbuf_take(char *text)
{
    if (text == NULL)
        srv_oom("encoding a message");
    struct sbuf *b = sbuf_new(text, strlen(text));
    free(text);
    return b;
}

void sbuf_unref(struct sbuf *b)
{
    if (b != NULL && --b->refs == 0)
        free(b);
}
