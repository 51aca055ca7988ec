/* account.c: names and password hashes (account.h). */
#include "players/account.h"

#include <sodium.h>
#include <string.h>

/* Names a player may not take: the server's own words in the interface and
 * the API ("deleted player", the admin) and the bots' family name. */
static const char *const reserved[] = {
    "admin", "administrator", "anonymous", "bot",    "carcd",  "deleted",
    "guest", "moderator",     "root",      "server", "system",
};

static int is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

int account_name_check(const char *name, char key[ACCOUNT_NAME_MAX + 1])
{
    key[0] = '\0';
    size_t len = strnlen(name, ACCOUNT_NAME_MAX + 1);
    if (len < ACCOUNT_NAME_MIN || len > ACCOUNT_NAME_MAX)
        return ACCOUNT_NAME_LENGTH;
    if (!is_alnum(name[0]))
        return ACCOUNT_NAME_CHARS;
    for (size_t i = 0; i < len; i++)
        if (!is_alnum(name[i]) && name[i] != '_' && name[i] != '-')
            return ACCOUNT_NAME_CHARS;
    char k[ACCOUNT_NAME_MAX + 1];
    for (size_t i = 0; i <= len; i++)
        k[i] = lower(name[i]);
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(k, reserved[i]) == 0)
            return ACCOUNT_NAME_RESERVED;
    memcpy(key, k, len + 1);
    return ACCOUNT_OK;
}

int account_password_check(const char *name, const char *password, size_t len)
{
    if (len < ACCOUNT_PASSWORD_MIN || len > ACCOUNT_PASSWORD_MAX)
        return ACCOUNT_PASSWORD_LENGTH;
    size_t nlen = strlen(name);
    if (nlen == len) {
        size_t i = 0;
        while (i < len && lower(name[i]) == lower(password[i]))
            i++;
        if (i == len)
            return ACCOUNT_PASSWORD_NAME;
    }
    return ACCOUNT_OK;
}

const char *account_refusal_text(int refusal)
{
    switch (refusal) {
    case ACCOUNT_OK:
        return "accepted";
    case ACCOUNT_NAME_LENGTH:
        return "a name has 2 to 24 characters";
    case ACCOUNT_NAME_CHARS:
        return "a name has only letters A-Z, digits, '_' and '-', and starts with a letter or a "
               "digit";
    case ACCOUNT_NAME_RESERVED:
        return "this name is kept by the server";
    case ACCOUNT_PASSWORD_LENGTH:
        return "a password has 8 to 256 bytes";
    case ACCOUNT_PASSWORD_NAME:
        return "the password may not be the name";
    default:
        return "refused";
    }
}

int account_crypto_init(void)
{
    return sodium_init() < 0 ? -1 : 0; /* 1: already done, which is fine */
}

int account_hash(char out[ACCOUNT_HASH_SIZE], const char *password, size_t len, unsigned ops,
                 size_t mem)
{
    /* crypto_pwhash_str uses libsodium's default algorithm, Argon2id since 1.0.15;
     * ask for it by name so that a future default cannot change what we store. */
    if (crypto_pwhash_str_alg(out, password, len, ops, mem, crypto_pwhash_ALG_ARGON2ID13) != 0) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}

int account_verify(const char *hash, const char *password, size_t len)
{
    if (strncmp(hash, crypto_pwhash_argon2id_STRPREFIX, strlen(crypto_pwhash_argon2id_STRPREFIX)))
        return 0;
    return crypto_pwhash_str_verify(hash, password, len) == 0;
}

int account_hash_stale(const char *hash, unsigned ops, size_t mem)
{
    return crypto_pwhash_str_needs_rehash(hash, ops, mem) != 0;
}
