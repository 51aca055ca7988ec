/* account.h: the parts of an account that need no storage: the rules of a
 * name and the password hash (Argon2id, libsodium). Stateless; the only file
 * of carcd besides token.c that includes sodium.h.
 *
 * Hashing and verifying cost tens of milliseconds and 64 MiB on purpose:
 * callers run them on the thread pool, never on the loop. */
#ifndef CARCD_PLAYERS_ACCOUNT_H
#define CARCD_PLAYERS_ACCOUNT_H

#include <stddef.h>

/* A name: 2 to 24 ASCII letters, digits, '_' or '-', starting with a letter or
 * a digit (lichess' rule, so names read the same everywhere and no two look
 * alike across scripts). No dot: names with one are the built-in bots' rated
 * identities (bot.random, bot.greedy, bot.strong). Compared without case. */
#define ACCOUNT_NAME_MIN 2
#define ACCOUNT_NAME_MAX 24
/* A password: 8 to 256 bytes of any UTF-8 (length counted in bytes). */
#define ACCOUNT_PASSWORD_MIN 8
#define ACCOUNT_PASSWORD_MAX 256
/* crypto_pwhash_STRBYTES: the encoded hash with its parameters and salt. */
#define ACCOUNT_HASH_SIZE 128

/* Argon2id parameters of a new hash: libsodium's "interactive" level, above
 * OWASP's minimum for Argon2id (19 MiB, 2 passes). A hash records its own
 * parameters, so raising them later keeps old hashes valid
 * (account_hash_stale says which to redo at the next sign-in). */
#define ACCOUNT_HASH_OPS 2
#define ACCOUNT_HASH_MEM (64u << 20)

/* Why a name or a password is refused; 0 when it is accepted. */
enum account_refusal {
    ACCOUNT_OK = 0,
    ACCOUNT_NAME_LENGTH = -1,   /* outside ACCOUNT_NAME_MIN .. MAX */
    ACCOUNT_NAME_CHARS = -2,    /* a character outside the rule (a dot, a space, non-ASCII) */
    ACCOUNT_NAME_RESERVED = -3, /* one of the names carcd keeps (admin, deleted, bot...) */
    ACCOUNT_PASSWORD_LENGTH = -4,
    ACCOUNT_PASSWORD_NAME = -5, /* the password is the name (any case) */
};

/* Checks `name` (NUL-terminated) and writes its key, the lower-case form that
 * two names share when they are the same name, to key[ACCOUNT_NAME_MAX + 1].
 * Returns an account_refusal. */
int account_name_check(const char *name, char key[ACCOUNT_NAME_MAX + 1]);

/* Checks a password of `len` bytes for the account `name`. */
int account_password_check(const char *name, const char *password, size_t len);

/* A sentence for an account_refusal (static storage). */
const char *account_refusal_text(int refusal);

/* 0 once libsodium is ready; -1 if it cannot start (no entropy source).
 * Safe to call more than once, from any thread. */
int account_crypto_init(void);

/* Hashes the password into out[ACCOUNT_HASH_SIZE] (NUL-terminated,
 * "$argon2id$v=19$m=65536,t=2,p=1$..."), with `ops` passes and `mem` bytes
 * (ACCOUNT_HASH_OPS, ACCOUNT_HASH_MEM; tests may pass less). 0, or -1 when
 * the memory cannot be had. Blocking: thread pool only. */
int account_hash(char out[ACCOUNT_HASH_SIZE], const char *password, size_t len, unsigned ops,
                 size_t mem);

/* 1 if the password matches the stored hash, 0 if not (or the hash is not one
 * of ours). Constant time in the password. Blocking: thread pool only. */
int account_verify(const char *hash, const char *password, size_t len);

/* 1 if `hash` was made with other parameters than ops/mem (re-hash it at the
 * next successful sign-in), 0 if not. */
int account_hash_stale(const char *hash, unsigned ops, size_t mem);

#endif
