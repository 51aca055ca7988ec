/* attempts.c: failed sign-ins per key, in bounded memory (attempts.h). */
#include "players/attempts.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define WAYS 4 /* slots a key may use, from its hash on */

struct slot {
    uint64_t hash; /* 0: free */
    int64_t start; /* the window's first failure */
    int count;
};

struct attempts {
    struct slot *slots;
    uint64_t mask;
    int max;
    int64_t window_ms;
    unsigned char key[crypto_shorthash_KEYBYTES];
};

struct attempts *attempts_new(int slots, int max, int64_t window_ms)
{
    if (sodium_init() < 0)
        return NULL;
    uint64_t n = WAYS;
    while (n < (uint64_t)slots)
        n <<= 1;
    struct attempts *a = mem_zalloc(1, sizeof *a);
    a->slots = mem_zalloc(n, sizeof *a->slots);
    a->mask = n - 1;
    a->max = max;
    a->window_ms = window_ms;
    randombytes_buf(a->key, sizeof a->key);
    return a;
}

void attempts_free(struct attempts *a)
{
    if (a == NULL)
        return;
    free(a->slots);
    free(a);
}

static uint64_t key_hash(const struct attempts *a, const char *key)
{
    unsigned char out[crypto_shorthash_BYTES];
    crypto_shorthash(out, (const unsigned char *)key, strlen(key), a->key);
    uint64_t h;
    memcpy(&h, out, sizeof h);
    return h != 0 ? h : 1;
}

/* The key's slot, or NULL if it has none. */
static struct slot *find(struct attempts *a, uint64_t h)
{
    for (uint64_t i = 0; i < WAYS; i++) {
        struct slot *s = &a->slots[(h + i) & a->mask];
        if (s->hash == h)
            return s;
    }
    return NULL;
}

int64_t attempts_wait_ms(struct attempts *a, const char *key, int64_t now_ms)
{
    struct slot *s = find(a, key_hash(a, key));
    if (s == NULL || s->count < a->max || now_ms - s->start >= a->window_ms)
        return 0;
    return s->start + a->window_ms - now_ms;
}

void attempts_fail(struct attempts *a, const char *key, int64_t now_ms)
{
    uint64_t h = key_hash(a, key);
    struct slot *s = find(a, h);
    if (s == NULL) {
        /* A free or expired slot, else the one whose window started first. */
        for (uint64_t i = 0; i < WAYS; i++) {
            struct slot *c = &a->slots[(h + i) & a->mask];
            if (c->hash == 0 || now_ms - c->start >= a->window_ms) {
                s = c;
                break;
            }
            if (s == NULL || c->start < s->start)
                s = c;
        }
        *s = (struct slot){.hash = h, .start = now_ms, .count = 0};
    } else if (now_ms - s->start >= a->window_ms) {
        s->start = now_ms;
        s->count = 0;
    }
    s->count++;
}

void attempts_clear(struct attempts *a, const char *key)
{
    struct slot *s = find(a, key_hash(a, key));
    if (s != NULL)
        *s = (struct slot){0};
}
