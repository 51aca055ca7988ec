/* pool.c: see pool.h. */
#include "util/pool.h"

#include <stdlib.h>

int pool_threads_spare(void)
{
    const char *v = getenv("UV_THREADPOOL_SIZE");
    long n = v != NULL ? strtol(v, NULL, 10) : 4;
    if (n < 1)
        n = 1;
    if (n > 1024)
        n = 1024;
    return n - 1 < 1 ? 1 : (int)(n - 1);
}
