/* store/accounts_vacation.h: an account's vacation bank (account tables
 * version 6), on both backends: days a year it may be away from its
 * correspondence games without their clocks running (PROTOCOL.md "Clocks
 * and bots", "Vacations").
 *
 *   vacations(account PRIMARY KEY, year, used, from_ms, until_ms)
 *
 * year: the UTC calendar year `used` (days taken) counts in; a take in a
 * later year starts from 0. [from_ms, until_ms): the account's last vacation
 * (until_ms <= now: none going on). Each change is one statement, so two
 * nodes taking a day at once take it once. Blocking, on a struct
 * store_accounts handle (store/accounts.h), as the other account statements. */
#ifndef CARCD_STORE_ACCOUNTS_VACATION_H
#define CARCD_STORE_ACCOUNTS_VACATION_H

#include "store/accounts.h"

#define STORE_DAY_MS 86400000LL

struct store_vacation {
    int year, used;
    long long from_ms, until_ms; /* both 0: never on vacation */
};

/* account's row into *out (zeros and year when it has none). 0, STORE_E_ARGS,
 * STORE_E_DB. */
int store_vacation_get(struct store_accounts *a, long long account, int year,
                       struct store_vacation *out);
/* days (>= 1) taken in year, at most max a year: a vacation from now, or
 * one going on lengthened by them; with idle, only when none is going on (a
 * day taken because a clock ran out). *taken: 1 when it was, 0 when the bank
 * (or idle) refused. 0, STORE_E_ARGS, STORE_E_DB. */
int store_vacation_take(struct store_accounts *a, long long account, int year, int days, int max,
                        long long now_ms, int idle, int *taken);
/* A vacation going on ends at now; its whole days not begun go back to the
 * bank. *ended: 0 when none was going on. 0, STORE_E_ARGS, STORE_E_DB. */
int store_vacation_end(struct store_accounts *a, long long account, int year, long long now_ms,
                       int *ended);

#endif
