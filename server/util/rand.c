#include "util/rand.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

void rand_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            perror("carcd: getrandom");
            abort();
        }
        p += got;
        n -= (size_t)got;
    }
}

void rand_room_id(char *out)
{
    static const char alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    unsigned char pool[32];
    int have = 0, used = 0;
    while (have < RAND_ROOM_LEN) {
        if (used == (int)sizeof pool) {
            used = 0;
        }
        if (used == 0)
            rand_bytes(pool, sizeof pool);
        unsigned v = pool[used++];
        if (v >= 248) /* 248 = 4 * 62: reject to keep the draw uniform */
            continue;
        out[have++] = alphabet[v % 62];
    }
    out[RAND_ROOM_LEN] = '\0';
}

void rand_token(char *out)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char b[RAND_TOKEN_LEN / 2];
    rand_bytes(b, sizeof b);
    for (size_t i = 0; i < sizeof b; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[RAND_TOKEN_LEN] = '\0';
}

uint64_t rand_u64(void)
{
    uint64_t v;
    rand_bytes(&v, sizeof v);
    return v;
}
