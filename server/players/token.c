/* token.c: random tokens and their digests (token.h). */
#include "players/token.h"

#include <sodium.h>
#include <string.h>

void token_make(char out[TOKEN_LEN + 1])
{
    unsigned char raw[32];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2base64(out, TOKEN_LEN + 1, raw, sizeof raw,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(raw, sizeof raw);
}

int token_valid(const char *text)
{
    size_t i = 0;
    for (; i < TOKEN_LEN && text[i] != '\0'; i++) {
        char c = text[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_'))
            return 0;
    }
    return i == TOKEN_LEN && text[i] == '\0';
}

int token_digest(const char *text, char out[TOKEN_DIGEST_LEN + 1])
{
    out[0] = '\0';
    if (!token_valid(text))
        return -1;
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)text, TOKEN_LEN);
    sodium_bin2hex(out, TOKEN_DIGEST_LEN + 1, h, sizeof h);
    return 0;
}

int token_equal(const char *a, const char *b)
{
    if (!token_valid(a) || !token_valid(b))
        return 0;
    return sodium_memcmp(a, b, TOKEN_LEN) == 0;
}
