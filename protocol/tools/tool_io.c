/* tool_io.c: see tool_io.h. */
#include "tool_io.h"

#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "tiles.h"

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

/* "a,b,c" or "all" into a set mask, base always included. */
int tool_sets_parse(const char *s, unsigned *sets)
{
    *sets = 1u << CARC_SET_BASE;
    if (strcmp(s, "all") == 0) {
        *sets = CARC_SETS_ALL;
        return 0;
    }
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf)
        return -1;
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        int set = carc_set_find(tok);
        if (set < 0)
            return -1;
        *sets |= 1u << set;
    }
    return 0;
}
