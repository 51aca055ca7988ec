/* botlib.h: what the bot and the load generator share on top of ws.h and
 * protocol/client.h: sending encoded messages, a random legal move, clocks. */
#ifndef CARC_BOTLIB_H
#define CARC_BOTLIB_H

#include <stdint.h>

#include "client.h"
#include "ws.h"

/* Send msg (taken: freed here) as one text frame. NULL msg (the encoder ran out
 * of memory) is an error. Returns WS_OK or WS_ERROR. */
int bot_send_take(struct ws_conn *c, char *msg);

/* xorshift64*: a small seeded generator; state must not be 0. */
uint64_t bot_rand(uint64_t *state);

/* A random legal move for the current player of d (a playing document), as a
 * `play` message with id (may be NULL): a random placement, a meeple on a
 * random spot about half the time when the supply allows (the large one when
 * it is the only one left, or at random), and otherwise an escape now and then.
 * scratch holds at least max entries. Returns the malloc'd message, or NULL
 * when the document offers no placement or out of memory. */
char *bot_random_play(const struct proto_client_doc *d, uint64_t *rng,
                      struct proto_client_legal *scratch, int max, const char *id);

/* Monotonic clock in nanoseconds. */
uint64_t bot_now_ns(void);

#endif
