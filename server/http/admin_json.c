/* admin_json.c: the admin replies' JSON text (admin_int.h). jansson is the
 * protocol layer's; these documents are the server's own and small. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/admin_int.h"
#include "json_str.h"
#include "store/store.h"
#include "util/log.h"
#include "util/mem.h"

void admin__json_init(struct admin_json *j)
{
    j->cap = 256;
    j->len = 0;
    j->buf = mem_alloc(j->cap);
    j->buf[0] = '\0';
}

static void reserve(struct admin_json *j, size_t more)
{
    if (j->len + more + 1 <= j->cap)
        return;
    while (j->len + more + 1 > j->cap)
        j->cap *= 2;
    char *b = mem_resize(j->buf, j->cap);
    j->buf = b;
}

void admin__json_raw(struct admin_json *j, const char *text)
{
    size_t n = strlen(text);
    reserve(j, n);
    memcpy(j->buf + j->len, text, n + 1);
    j->len += n;
}

void admin__json_fmt(struct admin_json *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    reserve(j, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(j->buf + j->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    j->len += (size_t)n;
}

void admin__json_str(struct admin_json *j, const char *s)
{
    /* proto_json_str_append's escaping (the records' too); room for the worst case,
     * every byte a \u00XX, and the slack it keeps. */
    size_t room = strlen(s) * 6 + 10;
    reserve(j, room);
    proto_json_str_append(j->buf, j->len + room + 1, &j->len, s);
}

char *admin__json_take(struct admin_json *j)
{
    char *t = j->buf;
    j->buf = NULL;
    j->len = j->cap = 0;
    return t;
}
