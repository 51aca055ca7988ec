/* store/accounts_mail.h: an account's e-mail settings (account tables
 * version 5), on both backends.
 *
 *   account_mail(account PRIMARY KEY, address, digest, reminders,
 *                unsub UNIQUE, digest_day, created_ms)
 *
 * One row per account that gave an address: whether it wants the daily
 * digest and the low-clock reminders, its unsubscribe token (the capability
 * in the link of every mail: whoever has it may turn both off, nothing
 * more), and the UTC day (days since 1970) of the last digest it was sent,
 * claimed before a digest goes (store_mail_digest_claim), so that a restart,
 * or a second node, never sends the same day's digest twice. Rows of a
 * deleted or disabled account are never read for mail. Not copied by
 * --import-db / --export-db (a player gives the address again). Blocking, on
 * a struct store_accounts handle (store/accounts.h), as the other account
 * statements. */
#ifndef CARCD_STORE_ACCOUNTS_MAIL_H
#define CARCD_STORE_ACCOUNTS_MAIL_H

#include "store/accounts.h"

#define STORE_MAIL_ADDRESS_MAX 254 /* RFC 5321's limit of a forward path */
#define STORE_MAIL_UNSUB_LEN 43    /* base64url of 32 random bytes */

struct store_mail {
    long long account;
    char address[STORE_MAIL_ADDRESS_MAX + 1];
    int digest, reminders; /* 1: on */
    char unsub[STORE_MAIL_UNSUB_LEN + 1];
    long long digest_day; /* the UTC day of the last digest claimed, 0: none */
};

/* account's settings: the address and both flags written; the row made with
 * unsub (a fresh token, STORE_MAIL_UNSUB_LEN characters) when the account has
 * none, else its token and digest_day kept. 0, STORE_E_ARGS (no account, an
 * empty or too long address, an unsub of another length), STORE_E_DB. */
int store_mail_put(struct store_accounts *a, long long account, const char *address, int digest,
                   int reminders, const char *unsub, long long now_ms);
/* account's settings into *out: 0, STORE_E_NOT_FOUND (no address, or the
 * account is deleted or disabled), STORE_E_ARGS, STORE_E_DB. */
int store_mail_get(struct store_accounts *a, long long account, struct store_mail *out);
/* account's row removed: 0, STORE_E_NOT_FOUND, STORE_E_ARGS, STORE_E_DB. */
int store_mail_delete(struct store_accounts *a, long long account);
/* The row whose token is unsub: digest and reminders turned off (the
 * address kept, so that the page can say where mail went), its account in
 * *account. 0 (also when both were off already), STORE_E_NOT_FOUND,
 * STORE_E_ARGS, STORE_E_DB. */
int store_mail_unsubscribe(struct store_accounts *a, const char *unsub, long long *account);
/* Today's digest claimed for account: *claimed 1 when its row has the digest
 * on and had no digest on day or later (digest_day is now day), 0 otherwise
 * (nothing changed). One UPDATE: two claims of one day, on any handles or
 * nodes, give one 1. 0, STORE_E_ARGS, STORE_E_DB. */
int store_mail_digest_claim(struct store_accounts *a, long long account, long long day,
                            int *claimed);

#endif
