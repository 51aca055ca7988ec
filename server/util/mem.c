/* mem.c: see mem.h. */
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mem_oom(const char *where)
{
    fprintf(stderr, "carcd: out of memory (%s)\n", where);
    fflush(stderr);
    abort();
}

_Noreturn static void oom_at(const char *file, int line)
{
    char where[256];
    snprintf(where, sizeof where, "%s:%d", file, line);
    mem_oom(where);
}

void *mem__alloc(size_t n, const char *file, int line)
{
    void *p = malloc(n != 0 ? n : 1);
    if (p == NULL)
        oom_at(file, line);
    return p;
}

void *mem__zalloc(size_t count, size_t size, const char *file, int line)
{
    void *p = calloc(count != 0 ? count : 1, size != 0 ? size : 1);
    if (p == NULL)
        oom_at(file, line);
    return p;
}

void *mem__resize(void *p, size_t n, const char *file, int line)
{
    void *q = realloc(p, n != 0 ? n : 1);
    if (q == NULL)
        oom_at(file, line);
    return q;
}

char *mem__strndup(const char *s, size_t n, const char *file, int line)
{
    size_t len = 0;
    while (len < n && s[len] != '\0')
        len++;
    char *d = mem__alloc(len + 1, file, line);
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}
