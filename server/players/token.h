/* token.h: session ids and CSRF tokens: 32 random bytes written as base64url
 * (43 characters, no padding), and the digest under which storage keeps a
 * session id, so that a copy of the database holds no usable session. */
#ifndef CARCD_PLAYERS_TOKEN_H
#define CARCD_PLAYERS_TOKEN_H

#define TOKEN_LEN 43        /* characters of a token */
#define TOKEN_DIGEST_LEN 64 /* hex characters of its SHA-256 */

/* A new token in out[TOKEN_LEN + 1]. Needs account_crypto_init. */
void token_make(char out[TOKEN_LEN + 1]);

/* 1 if `text` has a token's form (TOKEN_LEN characters of A-Z a-z 0-9 - _). */
int token_valid(const char *text);

/* The SHA-256 of a valid token, as lower-case hex in out[TOKEN_DIGEST_LEN + 1]:
 * 0, or -1 (out empty) if `text` is not a token. */
int token_digest(const char *text, char out[TOKEN_DIGEST_LEN + 1]);

/* 1 if two tokens are equal, compared in constant time (a CSRF check must not
 * tell how much of a guess was right); 0 if not or either is not a token. */
int token_equal(const char *a, const char *b);

#endif
