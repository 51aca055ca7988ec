#include "fair.h"

#include <stdio.h>
#include <string.h>

#include "record.h"
#include "sha256.h"

int carc_fair_hex_ok(const char *s)
{
    return s != NULL && strlen(s) == 2 * CARC_FAIR_BYTES &&
           strspn(s, "0123456789abcdef") == 2 * CARC_FAIR_BYTES;
}

void carc_fair_hex(const uint8_t *b, size_t n, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        hex[2 * i] = digits[b[i] >> 4];
        hex[2 * i + 1] = digits[b[i] & 15];
    }
    hex[2 * n] = '\0';
}

static int nibble(char c)
{
    return c <= '9' ? c - '0' : c - 'a' + 10;
}

int carc_fair_commitment(const char *secret_hex, char out[CARC_FAIR_HEX])
{
    out[0] = '\0';
    if (!carc_fair_hex_ok(secret_hex))
        return -1;
    uint8_t secret[CARC_FAIR_BYTES], digest[SHA256_LEN];
    for (int i = 0; i < CARC_FAIR_BYTES; i++)
        secret[i] = (uint8_t)(nibble(secret_hex[2 * i]) << 4 | nibble(secret_hex[2 * i + 1]));
    sha256(secret, sizeof secret, digest);
    carc_fair_hex(digest, sizeof digest, out);
    return 0;
}

uint64_t carc_fair_seed(const char *secret_hex, const char (*entropy)[CARC_FAIR_HEX], int n,
                        char digest_hex[CARC_FAIR_HEX])
{
    /* The tag, the secret and at most CARC_MAX_PLAYERS entropies, a line each (64 digits and
     * a newline: CARC_FAIR_HEX bytes), and the NUL snprintf writes. */
    char text[sizeof CARC_FAIR_SCHEME + CARC_FAIR_HEX * (1 + CARC_MAX_PLAYERS) + 1];
    size_t len = (size_t)snprintf(text, sizeof text, "%s\n%.64s\n", CARC_FAIR_SCHEME, secret_hex);
    for (int i = 0; i < n && i < CARC_MAX_PLAYERS; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%.64s\n", entropy[i]);
    uint8_t digest[SHA256_LEN];
    sha256(text, len, digest);
    if (digest_hex != NULL)
        carc_fair_hex(digest, sizeof digest, digest_hex);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | digest[i];
    return v >> 11;
}

int carc_fair_verify(const struct carc_record *rec, struct carc_game *g, char *why, size_t size)
{
    if (!rec->has_fair) {
        snprintf(why, size,
                 "not verifiable: no commitment (a record written before the fair "
                 "draw, or a game dealt from a fixed seed or deck)");
        return CARC_FAIR_NONE;
    }
    char c[CARC_FAIR_HEX];
    if (carc_fair_commitment(rec->fair_secret, c) != 0 || strcmp(c, rec->fair_commitment) != 0) {
        snprintf(why, size,
                 "the commitment does not match the secret: SHA-256 of the secret is %s, the "
                 "record commits to %s",
                 c, rec->fair_commitment);
        return CARC_FAIR_FAILED;
    }
    if (rec->fair_n != rec->nplayers) {
        snprintf(why, size, "the record lists %d entropies for %d players", rec->fair_n,
                 rec->nplayers);
        return CARC_FAIR_FAILED;
    }
    char digest[CARC_FAIR_HEX];
    uint64_t seed = carc_fair_seed(rec->fair_secret, rec->fair_entropy, rec->fair_n, digest);
    if (!rec->has_seed || rec->seed != seed) {
        snprintf(why, size,
                 "the seed does not follow from the secret and the entropies: they give %llu, "
                 "the record says %llu",
                 (unsigned long long)seed, (unsigned long long)rec->seed);
        return CARC_FAIR_FAILED;
    }
    if (rec->has_deck) {
        snprintf(why, size, "the record deals from an explicit deck, not from the seed");
        return CARC_FAIR_FAILED;
    }
    struct carc_error err = {0, ""};
    if (carc_record_start(rec, g, &err) != 0) {
        snprintf(why, size, "the game cannot be dealt: %s", err.text);
        return CARC_FAIR_FAILED;
    }
    for (int i = 0; i < rec->nmoves; i++) {
        if (g->phase == CARC_PHASE_OVER) {
            snprintf(why, size, "the draw pile from the seed ends before move %d", i);
            return CARC_FAIR_FAILED;
        }
        if (rec->moves[i].tile != g->tile) {
            snprintf(why, size,
                     "the draw order does not match the seed: move %d is %s, the seed draws %s", i,
                     carc_tiles[rec->moves[i].tile].id, carc_tiles[g->tile].id);
            return CARC_FAIR_FAILED;
        }
        if (carc_record_step(rec, i, g, &err) != 0) {
            snprintf(why, size, "move %d does not replay: %s", i, err.text);
            return CARC_FAIR_FAILED;
        }
    }
    int given = 0;
    for (int i = 0; i < rec->fair_n; i++)
        given += rec->fair_entropy[i][0] != '\0';
    snprintf(why, size,
             "draw verified: the commitment is SHA-256 of the secret, seed %llu follows from the "
             "secret and %d entropies (%d given), and all %d moves draw the tiles of that seed",
             (unsigned long long)seed, rec->fair_n, given, rec->nmoves);
    return CARC_FAIR_VERIFIED;
}
