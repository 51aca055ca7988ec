#include "conn/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "util/mem.h"

struct sbuf *sbuf_new(const char *text, size_t len)
{
    struct sbuf *b = mem_alloc(sizeof *b + len + 1);
    b->refs = 1;
    b->len = len;
    memcpy(b->data, text, len);
    b->data[len] = '\0';
    b->type = proto_server_type_of(b->data, len, &b->code);
    return b;
}

struct sbuf *sbuf_take(char *text)
{
    if (text == NULL)
        mem_oom("encoding a message");
    struct sbuf *b = sbuf_new(text, strlen(text));
    free(text);
    return b;
}

void sbuf_unref(struct sbuf *b)
{
    if (b != NULL && --b->refs == 0)
        free(b);
}
