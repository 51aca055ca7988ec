/* fair.h: the provably fair draw (PROTOCOL.md "The fair draw"): commit, contribute, reveal.
 *
 * When a room is created the server draws a 32-byte secret and publishes its commitment,
 * SHA-256 of the secret's bytes. Before the start every seated player may contribute 32
 * bytes of entropy. At the start the engine seed is derived from the secret and every
 * player's entropy (scheme CARC_FAIR_SCHEME):
 *
 *   digest = SHA-256 of the ASCII text
 *            "carcd-draw/1\n" <secret hex> "\n" <entropy 0 hex or ""> "\n" ... <entropy n-1> "\n"
 *   seed   = the digest's first 8 bytes as a big-endian integer, shifted right by 11 (53 bits)
 *
 * Hex is lowercase; a player that sent nothing contributes an empty line. The record of the
 * game (record.h) carries the secret and the entropies, so anyone can recompute the
 * commitment, the seed and the draw order. Pure computation: no I/O, no allocation. */
#ifndef CARC_FAIR_H
#define CARC_FAIR_H

#include <stddef.h>
#include <stdint.h>

#define CARC_FAIR_SCHEME "carcd-draw/1"
#define CARC_FAIR_BYTES 32 /* of the secret, and of one player's entropy */
#define CARC_FAIR_HEX 65   /* 64 lowercase hex digits, NUL included */

struct carc_record;
struct carc_game;

/* 1 when s is exactly 64 lowercase hex digits. */
int carc_fair_hex_ok(const char *s);
/* hex[2n + 1] = the n bytes of b as lowercase hex. */
void carc_fair_hex(const uint8_t *b, size_t n, char *hex);

/* out = the commitment (SHA-256 of the secret's 32 bytes, hex) of secret_hex, which must pass
 * carc_fair_hex_ok. Returns 0, or -1 (out "") when it does not. */
int carc_fair_commitment(const char *secret_hex, char out[CARC_FAIR_HEX]);

/* The engine seed derived from secret_hex and the n entropies in order (each 64 hex digits
 * or "" for none); digest_hex (may be NULL) gets the digest. secret_hex and each non-empty
 * entropy must pass carc_fair_hex_ok (the caller checks). */
uint64_t carc_fair_seed(const char *secret_hex, const char (*entropy)[CARC_FAIR_HEX], int n,
                        char digest_hex[CARC_FAIR_HEX]);

enum carc_fair_verdict {
    CARC_FAIR_VERIFIED = 0, /* commitment, seed and draw order all check */
    CARC_FAIR_FAILED = 1,   /* one of them does not: why says which, and where */
    CARC_FAIR_NONE = 2,     /* not verifiable: the record has no commitment */
};

/* Check rec's draw: the commitment is the secret's, the seed follows from the secret and the
 * entropies (one per player), there is no explicit deck, and every move's tile is the tile the
 * engine draws from that seed (the game replayed in g, caller-owned). Returns a verdict, with
 * a sentence in why (size bytes) that says what was checked or what failed. */
int carc_fair_verify(const struct carc_record *rec, struct carc_game *g, char *why, size_t size);

#endif
