/* store/accounts_push.h: where accounts are told of their games: their Web
 * Push subscriptions (account tables version 3) and their webhook (version
 * 4), on both backends.
 *
 *   push_subscriptions(endpoint PRIMARY KEY, account, p256dh, auth, created_ms, failures)
 *   webhooks(account PRIMARY KEY, url, created_ms, failures)
 *
 * One row per browser subscription (its endpoint is unique: a browser that
 * subscribes again while another account is signed in moves to it). The keys
 * are kept as the browser gave them (base64url); notify/push.h checks them.
 * Not copied by --import-db / --export-db: a signed-in page sends its
 * subscription again at each visit. Blocking, on a struct store_accounts
 * handle (store/accounts.h), as the other account statements. */
#ifndef CARCD_STORE_ACCOUNTS_PUSH_H
#define CARCD_STORE_ACCOUNTS_PUSH_H

#include "store/accounts.h"

#define STORE_PUSH_ENDPOINT_MAX 1024
#define STORE_PUSH_KEY_MAX 96 /* base64url of a 65-byte point is 87 characters */
#define STORE_PUSH_PER_ACCOUNT 10

struct store_push_sub {
    char endpoint[STORE_PUSH_ENDPOINT_MAX + 1];
    char p256dh[STORE_PUSH_KEY_MAX + 1];
    char auth[STORE_PUSH_KEY_MAX + 1];
    long long account;
    long long created_ms;
    int failures;
};

/* The subscription s (its account, endpoint and keys) stored, replacing the
 * row of its endpoint (failures back to 0); past STORE_PUSH_PER_ACCOUNT of
 * the account, its oldest go. In one transaction. 0, STORE_E_ARGS (an empty or
 * too long field, no account), STORE_E_DB. */
int store_push_put(struct store_accounts *a, const struct store_push_sub *s, long long now_ms);
/* The subscription of endpoint removed if it is account's (account 0: any
 * account's, as when the push service says it is gone). 0, STORE_E_NOT_FOUND,
 * STORE_E_ARGS, STORE_E_DB. */
int store_push_delete(struct store_accounts *a, long long account, const char *endpoint);
/* A failed delivery to endpoint counted; at max failures in a row the row
 * goes. *dropped: 1 when it went. 0, STORE_E_NOT_FOUND, STORE_E_DB. */
int store_push_failed(struct store_accounts *a, const char *endpoint, int max, int *dropped);
/* A delivery worked: failures back to 0. 0, STORE_E_NOT_FOUND, STORE_E_DB. */
int store_push_delivered(struct store_accounts *a, const char *endpoint);
/* The account's subscriptions (at most max, newest first) into out, their
 * number in *n. 0, STORE_E_ARGS, STORE_E_DB. */
int store_push_list(struct store_accounts *a, long long account, struct store_push_sub *out,
                    int max, int *n);

/* ---- webhooks: one URL an account's notices are posted to ---- */

#define STORE_WEBHOOK_MAX 1024

/* account's webhook set to url (replacing any, failures back to 0). 0,
 * STORE_E_ARGS, STORE_E_DB. */
int store_webhook_put(struct store_accounts *a, long long account, const char *url,
                      long long now_ms);
/* account's webhook into out (size > STORE_WEBHOOK_MAX): 0, STORE_E_NOT_FOUND,
 * STORE_E_DB. */
int store_webhook_get(struct store_accounts *a, long long account, char *out, size_t size);
/* account's webhook removed: 0, STORE_E_NOT_FOUND, STORE_E_DB. */
int store_webhook_delete(struct store_accounts *a, long long account);
/* A delivery to account's webhook failed (max in a row remove it: *dropped
 * 1) or worked (ok: failures back to 0). 0, STORE_E_NOT_FOUND, STORE_E_DB. */
int store_webhook_outcome(struct store_accounts *a, long long account, int ok, int max,
                          int *dropped);

#endif
