/* tool_io.c: see tool_io.h. */
#include "tool_io.h"

#include <stdlib.h>

char *tool_input_read(FILE *f, size_t cap, size_t *len)
{
    size_t size = 0, used = 0;
    char *buf = NULL;
    for (;;) {
        if (used == size) {
            size = size == 0 ? 65536 : size * 2;
            char *nb = realloc(buf, size);
            if (nb == NULL) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
        size_t want = size - used;
        if (used + want > cap + 1)
            want = cap + 1 - used;
        size_t got = fread(buf + used, 1, want, f);
        used += got;
        if (got < want || used > cap)
            break;
    }
    if (ferror(f)) {
        free(buf);
        return NULL;
    }
    *len = used;
    return buf;
}
