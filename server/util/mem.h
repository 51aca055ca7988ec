/* mem.h: allocation that aborts on failure, the server's one check of malloc.
 *
 * Like Redis' zmalloc, carcd does not try to limp on after malloc fails: every
 * size it allocates is bounded by its limits, so running out means the host
 * is out, and a clear abort beats a half-applied change. None of these
 * returns NULL. The names say where: an abort prints the file and line. */
#ifndef CARCD_UTIL_MEM_H
#define CARCD_UTIL_MEM_H

#include <stddef.h>

/* Print "carcd: out of memory (where)" on stderr and abort. For an encoder or
 * builder that returned NULL because its own malloc failed. */
_Noreturn void mem_oom(const char *where);

/* malloc, calloc, realloc, strdup and strndup that abort instead of failing. */
#define mem_alloc(n) mem__alloc((n), __FILE__, __LINE__)
#define mem_zalloc(count, size) mem__zalloc((count), (size), __FILE__, __LINE__)
#define mem_resize(p, n) mem__resize((p), (n), __FILE__, __LINE__)
#define mem_strdup(s) mem__strndup((s), (size_t)-1, __FILE__, __LINE__)
#define mem_strndup(s, n) mem__strndup((s), (n), __FILE__, __LINE__)

void *mem__alloc(size_t n, const char *file, int line);
void *mem__zalloc(size_t count, size_t size, const char *file, int line);
void *mem__resize(void *p, size_t n, const char *file, int line);
/* The first n bytes of s (all of it when shorter), NUL-terminated. */
char *mem__strndup(const char *s, size_t n, const char *file, int line);

#endif
