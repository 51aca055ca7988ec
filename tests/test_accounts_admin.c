/* test_accounts_admin.c: the admin's requests of the accounts service and
 * invites (server/players/accounts.h, accounts_admin.c), run in suite
 * accounts (tests/test_accounts.c: a real loop and thread pool, SQLite, a
 * fake clock; accounts_util.h). Covered: the list paged by id with deleted
 * accounts in it, disable (sessions ended, sign-in refused) and enable, a
 * reset (the new password's form, the old one refused, every session ended),
 * names that are nobody's, the admin's invite (its code's form, its expiry by
 * invite-days, used once, refused once expired), members' invites off, on,
 * limited to invites_per_member unused and unexpired ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_util.h"
#include "players/token.h"
#include "store/accounts.h"
#include "tests.h"
#include "util/status.h"

#define DAY_MS 86400000LL
#define PW "correct horse battery"

/* What a callback brought: the last result, and a list's accounts copied. */
struct got {
    int n;
    struct accounts_result r;
    struct accounts_entry list[ACCOUNTS_LIST_MAX];
};

static void on_got(void *arg, const struct accounts_result *r)
{
    struct got *g = arg;
    g->n++;
    g->r = *r;
    if (r->list != NULL)
        memcpy(g->list, r->list, (size_t)r->nlist * sizeof *r->list);
    g->r.list = NULL; /* the service's, gone after the call */
}

static struct got got;

static struct accounts_result wait1(struct accounts_req *req)
{
    ck_assert_ptr_nonnull(req);
    ck_assert_int_eq(got.n, 0); /* never from inside the call */
    uv_run(ta_loop(), UV_RUN_DEFAULT);
    ck_assert_int_eq(got.n, 1);
    got.n = 0;
    return got.r;
}

#define ck_status(res, want)                                                                       \
    do {                                                                                           \
        int got_ = (res).status; /* res once: it may be a request */                               \
        ck_assert_msg(got_ == (want), "status %s, wanted %s", srv_status_name(got_),               \
                      srv_status_name(want));                                                      \
    } while (0)

static struct accounts_result signup(const char *name, const char *pw, const char *invite)
{
    return wait1(
        accounts_signup(ta_service(), name, pw, strlen(pw), invite, "10.0.0.1", on_got, &got));
}

static struct accounts_result signin(const char *name, const char *pw)
{
    return wait1(accounts_signin(ta_service(), name, pw, strlen(pw), "10.0.0.9", on_got, &got));
}

static int signed_in(const char *token)
{
    return wait1(accounts_session(ta_service(), token, on_got, &got)).status == 0;
}

START_TEST(list_paged_by_id)
{
    struct accounts_result a = signup("Ann", PW, NULL), b = signup("Ben", PW, NULL);
    struct accounts_result c = signup("Cal", PW, NULL);
    ck_status(c, 0);
    ck_status(wait1(accounts_delete(ta_service(), b.session, PW, strlen(PW), "", on_got, &got)), 0);
    /* The bots' rated identities come first (accounts_new makes them). */
    struct accounts_result r = wait1(accounts_list(ta_service(), 0, 10, on_got, &got));
    ck_assert_int_eq(r.nlist, ACCOUNTS_BOTS + 3);
    ck_assert_str_eq(got.list[0].name, "bot.random");
    r = wait1(accounts_list(ta_service(), ACCOUNTS_BOTS, 2, on_got, &got));
    ck_status(r, 0);
    ck_assert_int_eq(r.nlist, 2);
    ck_assert_int_eq(got.list[0].id, a.account);
    ck_assert_str_eq(got.list[0].name, "Ann");
    ck_assert_int_eq(got.list[0].created_ms, *ta_clock());
    ck_assert_int_eq(got.list[0].disabled + got.list[0].deleted, 0);
    ck_assert_int_eq(got.list[1].id, b.account);
    ck_assert_str_eq(got.list[1].name, STORE_DELETED_NAME);
    ck_assert_int_eq(got.list[1].deleted, 1);
    r = wait1(accounts_list(ta_service(), ACCOUNTS_BOTS + 2, 1000, on_got, &got)); /* 100 at most */
    ck_status(r, 0);
    ck_assert_int_eq(r.nlist, 1);
    ck_assert_int_eq(got.list[0].id, c.account);
    r = wait1(accounts_list(ta_service(), ACCOUNTS_BOTS + 3, 50, on_got, &got));
    ck_status(r, 0);
    ck_assert_int_eq(r.nlist, 0);
}
END_TEST

START_TEST(disable_and_enable)
{
    struct accounts_result up = signup("Dora", PW, NULL);
    ck_status(up, 0);
    struct accounts_result r = wait1(accounts_disable(ta_service(), "DORA", 1, on_got, &got));
    ck_status(r, 0);
    ck_assert_str_eq(r.name, "Dora");
    ck_assert_int_eq(r.disabled, 1);
    ck_assert(!signed_in(up.session));
    ck_status(signin("Dora", PW), ACCOUNTS_E_CREDENTIALS);
    struct accounts_result list =
        wait1(accounts_list(ta_service(), ACCOUNTS_BOTS, 10, on_got, &got));
    ck_assert_int_eq(list.nlist, 1);
    ck_assert_int_eq(got.list[0].disabled, 1);
    r = wait1(accounts_disable(ta_service(), "dora", 0, on_got, &got));
    ck_status(r, 0);
    ck_assert_int_eq(r.disabled, 0);
    ck_assert(!signed_in(up.session)); /* ended when disabled: enabling brings none back */
    ck_status(signin("dora", PW), 0);
    ck_status(wait1(accounts_disable(ta_service(), "Nobody", 1, on_got, &got)), ACCOUNTS_E_UNKNOWN);
    ck_status(wait1(accounts_disable(ta_service(), "no.name", 1, on_got, &got)),
              ACCOUNTS_E_UNKNOWN);
    ck_status(wait1(accounts_disable(ta_service(), NULL, 1, on_got, &got)), ACCOUNTS_E_UNKNOWN);
}
END_TEST

START_TEST(reset_ends_sessions)
{
    struct accounts_result up = signup("Egon", PW, NULL);
    struct accounts_result in = signin("Egon", PW);
    ck_status(in, 0);
    struct accounts_result r = wait1(accounts_reset(ta_service(), "egon", on_got, &got));
    ck_status(r, 0);
    ck_assert_str_eq(r.name, "Egon");
    ck_assert_uint_eq(strlen(r.password), ACCOUNTS_RESET_LEN);
    ck_assert_uint_eq(strspn(r.password, "23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"),
                      ACCOUNTS_RESET_LEN);
    char pw[ACCOUNTS_RESET_LEN + 1];
    memcpy(pw, r.password, sizeof pw);
    ck_assert(!signed_in(up.session));
    ck_assert(!signed_in(in.session));
    ck_status(signin("Egon", PW), ACCOUNTS_E_CREDENTIALS);
    ck_status(signin("Egon", pw), 0);
    r = wait1(accounts_reset(ta_service(), "Egon", on_got, &got));
    ck_status(r, 0);
    ck_assert_str_ne(r.password, pw); /* a new one each time */
    r = wait1(accounts_reset(ta_service(), "Nobody", on_got, &got));
    ck_status(r, ACCOUNTS_E_UNKNOWN);
    ck_assert_str_eq(r.password, "");
}
END_TEST

START_TEST(admin_invite_once_then_expired)
{
    struct accounts_config c;
    ta_config(&c);
    c.registration = ACCOUNTS_INVITE;
    c.invite_days = 3;
    ta_reopen(&c);
    struct accounts_result inv = wait1(accounts_invite_admin(ta_service(), on_got, &got));
    ck_status(inv, 0);
    ck_assert_uint_eq(strlen(inv.invite), ACCOUNTS_INVITE_LEN);
    ck_assert_uint_eq(strspn(inv.invite, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                         "0123456789-_"),
                      ACCOUNTS_INVITE_LEN);
    ck_assert_int_eq(inv.expires_ms, *ta_clock() + 3 * DAY_MS);
    struct accounts_result two = wait1(accounts_invite_admin(ta_service(), on_got, &got));
    ck_assert_str_ne(two.invite, inv.invite);
    ck_status(signup("Finn", PW, inv.invite), 0);
    ck_status(signup("Gail", PW, inv.invite), ACCOUNTS_E_INVITE); /* used */
    *ta_clock() += 3 * DAY_MS - 1;
    ck_status(signup("Gail", PW, two.invite), 0);
    struct accounts_result late = wait1(accounts_invite_admin(ta_service(), on_got, &got));
    *ta_clock() += 3 * DAY_MS;
    ck_status(signup("Hugo", PW, late.invite), ACCOUNTS_E_INVITE); /* expired */
}
END_TEST

START_TEST(member_invites_off_on_limited)
{
    struct accounts_result up = signup("Iris", PW, NULL);
    ck_status(up, 0);
    struct accounts_result r =
        wait1(accounts_invite_member(ta_service(), up.session, on_got, &got));
    ck_status(r, ACCOUNTS_E_INVITES_OFF);
    ck_assert_str_eq(r.invite, "");
    struct accounts_config c;
    ta_config(&c);
    ck_assert_int_eq(c.member_invites, 0);
    ck_assert_int_eq(c.invite_days, 7);
    ck_assert_int_eq(c.invites_per_member, 10);
    c.member_invites = 1;
    c.invites_per_member = 2;
    c.registration = ACCOUNTS_INVITE;
    ta_reopen(&c);
    ck_status(wait1(accounts_invite_member(ta_service(), "not a token", on_got, &got)),
              ACCOUNTS_E_SESSION);
    struct accounts_result i1 =
        wait1(accounts_invite_member(ta_service(), up.session, on_got, &got));
    ck_status(i1, 0);
    ck_assert_uint_eq(strlen(i1.invite), ACCOUNTS_INVITE_LEN);
    ck_assert_int_eq(i1.expires_ms, *ta_clock() + 7 * DAY_MS);
    ck_assert_str_eq(i1.csrf, ""); /* the session's lookup hands nothing on */
    struct accounts_result i2 =
        wait1(accounts_invite_member(ta_service(), up.session, on_got, &got));
    ck_status(i2, 0);
    ck_status(wait1(accounts_invite_member(ta_service(), up.session, on_got, &got)),
              ACCOUNTS_E_INVITES_MAX);
    /* Used: a slot again. The admin's invites count for nobody. */
    ck_status(signup("Jude", PW, i1.invite), 0);
    ck_status(wait1(accounts_invite_admin(ta_service(), on_got, &got)), 0);
    ck_status(wait1(accounts_invite_member(ta_service(), up.session, on_got, &got)), 0);
    ck_status(wait1(accounts_invite_member(ta_service(), up.session, on_got, &got)),
              ACCOUNTS_E_INVITES_MAX);
    /* Expired: no longer counted (the session outlives them). */
    *ta_clock() += 7 * DAY_MS;
    ck_status(signup("Kurt", PW, i2.invite), ACCOUNTS_E_INVITE);
    ck_status(wait1(accounts_invite_member(ta_service(), up.session, on_got, &got)), 0);
    /* A disabled member's session makes none. */
    ck_status(wait1(accounts_disable(ta_service(), "Iris", 1, on_got, &got)), 0);
    ck_status(wait1(accounts_invite_member(ta_service(), up.session, on_got, &got)),
              ACCOUNTS_E_SESSION);
}
END_TEST

void accounts_admin_tests_add(TCase *tc)
{
    tcase_add_test(tc, list_paged_by_id);
    tcase_add_test(tc, disable_and_enable);
    tcase_add_test(tc, reset_ends_sessions);
    tcase_add_test(tc, admin_invite_once_then_expired);
    tcase_add_test(tc, member_invites_off_on_limited);
}
