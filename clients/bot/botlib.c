/* botlib.c: see botlib.h. */
#include "botlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int bot_send_take(struct ws_conn *c, char *msg)
{
    if (msg == NULL) {
        snprintf(c->err, sizeof c->err, "out of memory encoding a message");
        return WS_ERROR;
    }
    int rc = ws_send_text(c, msg, strlen(msg));
    free(msg);
    return rc;
}

uint64_t bot_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

char *bot_random_play(const struct proto_client_doc *d, uint64_t *rng,
                      struct proto_client_legal *scratch, int max, const char *id)
{
    int n = proto_client_legal(d, scratch, max);
    if (n > max)
        n = max;
    int me = proto_client_current(d), tile = proto_client_tile(d);
    struct proto_client_seat seat;
    if (n <= 0 || tile < 0 || proto_client_seat_get(d, me, &seat) < 0)
        return NULL;
    const struct proto_client_legal *l = &scratch[bot_rand(rng) % (unsigned)n];
    int seg = -1, large = 0;
    const struct proto_client_spot *escape = NULL;
    if (l->nmeeples > 0 && (seat.meeples > 0 || seat.large > 0) && bot_rand(rng) % 2) {
        seg = l->meeples[bot_rand(rng) % (unsigned)l->nmeeples].seg;
        large = seat.large > 0 && (seat.meeples == 0 || bot_rand(rng) % 4 == 0);
    } else if (l->nescapes > 0 && bot_rand(rng) % 2) {
        escape = &l->escapes[bot_rand(rng) % (unsigned)l->nescapes];
    }
    return proto_client_encode_play(tile, l->x, l->y, l->rot, seg, large, escape, id);
}

uint64_t bot_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
