/* tool_io.h: what the command-line tools share to read their input and options. */
#ifndef CARC_TOOL_IO_H
#define CARC_TOOL_IO_H

#include <stddef.h>
#include <stdio.h>

/* The whole of f in a malloc'd buffer (the caller frees it), at most cap + 1
 * bytes, so that a loader sees and reports an oversized record; its length in
 * *len. NULL when memory runs out or f has a read error. */
char *tool_input_read(FILE *f, size_t cap, size_t *len);

/* "a,b,c" (set names, tiles.h) or "all" into *sets, base always included.
 * Returns 0, or -1 for an unknown name. */
int tool_sets_parse(const char *s, unsigned *sets);

#endif
