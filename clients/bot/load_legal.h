/* load_legal.h: carc-load's cheap hold of the mover's `legal` message.
 *
 * Parsing every legal list with jansson was 80% of carc-load's CPU (a list is
 * up to several KB, and the load tool only needs one random entry of it), so
 * the tool made itself the limit of its own benchmark. A load_legal keeps the
 * message as text and picks an entry by scanning it, relying on the layout
 * carcd writes (PROTOCOL.md "The mover's legal list", compact, keys in that
 * order); anything else is refused and the caller falls back to
 * protocol/client.h. Bots should use protocol/client.h: this is a benchmark
 * shortcut, not a parser. */
#ifndef CARC_LOAD_LEGAL_H
#define CARC_LOAD_LEGAL_H

#include <stddef.h>
#include <stdint.h>

struct load_legal {
    char *text; /* the message (owned), NULL when none */
    size_t len;
    long long seq;
    int turn, player, tile; /* tile: catalogue index */
    const char *list;       /* the text of the "legal" array, inside text */
};

/* Keep text when it is a `legal` message in carcd's layout: returns 1 (l now
 * holds it, the previous one freed), 0 when it is not one (l unchanged), -1
 * out of memory. */
int load_legal_take(struct load_legal *l, const char *text, size_t len);

/* A random move from l as a `play` message (malloc'd), in the manner of
 * botlib's bot_random_play: a uniform entry, then half the time a meeple on
 * one of its spots (the large one now and then, when meeples/large say the
 * supply allows), else half the time one of its escapes. NULL when the list
 * is empty, malformed or out of memory. */
char *load_legal_play(const struct load_legal *l, uint64_t *rng, int meeples, int large);

void load_legal_free(struct load_legal *l);

#endif
