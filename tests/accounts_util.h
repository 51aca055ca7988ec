/* accounts_util.h: what tests/test_accounts.c shares with the tests it runs
 * from other files (tests/test_accounts_admin.c) in its suite: the fixture's
 * loop, service and fake clock. Valid inside a test of suite_accounts. */
#ifndef CARC_TESTS_ACCOUNTS_UTIL_H
#define CARC_TESTS_ACCOUNTS_UTIL_H

#include <check.h>
#include <uv.h>

#include "players/accounts.h"

uv_loop_t *ta_loop(void);
struct accounts *ta_service(void);
/* The fake clock every request reads (ms since 1970). */
long long *ta_clock(void);
/* The defaults with cheap hashes (1 pass, 8 KiB). */
void ta_config(struct accounts_config *c);
/* The service closed and opened again with c. */
void ta_reopen(const struct accounts_config *c);

/* tests/test_accounts_admin.c: the admin's requests and invites. */
void accounts_admin_tests_add(TCase *tc);

#endif
