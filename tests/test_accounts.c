/* test_accounts.c: the accounts service (server/players/accounts.h) on a real
 * libuv loop and thread pool, over a real database: SQLite in a scratch
 * directory (suite_accounts) and the core flow on a real PostgreSQL
 * (suite_accounts_pg, CARC_PG_URL: tests/pg.sh), through store_util.h's
 * su_store_open. Hashes are cheap (1 pass, 8 KiB) but for one test at the
 * shipped parameters. The clock is a fake one (sessions' expiry, the windows
 * of the sign-in limits). Covered: sign-up and the session it opens, names
 * taken in any case, refused names and passwords, registration closed or by
 * invite (unknown, used), sign-in right and wrong, an unknown name, the
 * limits per account and per address (a right password refused too while
 * limited), sign-out, expiry, a password change ending the other sessions,
 * deletion freeing the name, a stale hash redone, the queue's bound, cancel
 * (waiting, running, ready), close with jobs running, and that no answer
 * comes from inside a call. The admin's requests and invites are tested in
 * tests/test_accounts_admin.c, in this suite (accounts_util.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "accounts_util.h"
#include "metrics/metrics.h"
#include "players/accounts.h"
#include "store/accounts.h"
#include "store/store.h"
#include "store_util.h"
#include "tests.h"
#include "util/status.h"

#define DAY_MS 86400000LL
#define PW "correct horse battery"
#define PW2 "staple tuna sandwich"

static uv_loop_t loop;
static struct store *st;
static struct accounts *svc;
static long long fake_now;

static long long now_fn(void)
{
    return fake_now;
}

/* What callbacks brought: their number and the last result. */
struct got {
    int n;
    struct accounts_result r;
};

static void on_result(void *arg, const struct accounts_result *r)
{
    struct got *g = arg;
    g->n++;
    g->r = *r;
}

static void cheap(struct accounts_config *c)
{
    accounts_config_defaults(c);
    c->hash_ops = 1;
    c->hash_mem = 8192;
}

static void svc_open(const struct accounts_config *c)
{
    char err[512];
    svc = accounts_new(&loop, st, c, now_fn, err, sizeof err);
    ck_assert_msg(svc != NULL, "%s", err);
}

static void on_closed(void *arg)
{
    (*(int *)arg)++;
}

static void svc_close(void)
{
    int done = 0;
    accounts_close(svc, on_closed, &done);
    ck_assert_int_eq(done, 0); /* never from inside the call */
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(done, 1);
    svc = NULL;
}

static void setup_common(void)
{
    fake_now = 1700000000000LL;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    char err[512];
    st = su_store_open(err, sizeof err);
    ck_assert_msg(st != NULL, "%s", err);
    struct accounts_config c;
    cheap(&c);
    svc_open(&c);
}

static void teardown_common(void)
{
    if (svc != NULL)
        svc_close();
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    store_close(st);
    st = NULL;
}

static void sq_setup(void)
{
    dir_setup();
    setup_common();
}

static void sq_teardown(void)
{
    teardown_common();
    dir_teardown();
}

static void pgs_setup(void)
{
    pg_setup();
    setup_common();
}

static void pgs_teardown(void)
{
    teardown_common();
    pg_teardown();
}

/* Run the loop until every request has answered; exactly one answer. */
static struct accounts_result wait1(struct accounts_req *req, struct got *g)
{
    ck_assert_ptr_nonnull(req);
    ck_assert_int_eq(g->n, 0); /* never from inside the call */
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g->n, 1);
    return g->r;
}

static struct accounts_result signup_inv(const char *name, const char *pw, const char *invite)
{
    struct got g = {0};
    return wait1(accounts_signup(svc, name, pw, strlen(pw), invite, "10.0.0.1", on_result, &g), &g);
}

static struct accounts_result signup(const char *name, const char *pw)
{
    return signup_inv(name, pw, NULL);
}

static struct accounts_result signin_from(const char *name, const char *pw, const char *peer)
{
    struct got g = {0};
    return wait1(accounts_signin(svc, name, pw, strlen(pw), peer, on_result, &g), &g);
}

static struct accounts_result signin(const char *name, const char *pw)
{
    return signin_from(name, pw, "10.0.0.1");
}

static struct accounts_result session(const char *token)
{
    struct got g = {0};
    return wait1(accounts_session(svc, token, on_result, &g), &g);
}

static struct accounts_result signout(const char *token)
{
    struct got g = {0};
    return wait1(accounts_signout(svc, token, on_result, &g), &g);
}

static struct accounts_result change(const char *token, const char *old, const char *new_pw)
{
    struct got g = {0};
    return wait1(accounts_password(svc, token, old, strlen(old), new_pw, strlen(new_pw), "10.0.0.1",
                                   on_result, &g),
                 &g);
}

static struct accounts_result delete_acc(const char *token, const char *pw)
{
    struct got g = {0};
    return wait1(accounts_delete(svc, token, pw, strlen(pw), "10.0.0.1", on_result, &g), &g);
}

#define ck_status(res, want)                                                                       \
    ck_assert_msg((res).status == (want), "status %s, wanted %s", srv_status_name((res).status),   \
                  srv_status_name(want))

/* ---- the core flow (SQLite and PostgreSQL) ---- */

START_TEST(signup_then_session)
{
    struct accounts_result r = signup("Alice", PW);
    ck_status(r, 0);
    ck_assert_int_gt(r.account, 0);
    ck_assert_str_eq(r.name, "Alice");
    ck_assert_int_eq(r.created_ms, fake_now);
    ck_assert(token_valid(r.session));
    ck_assert(token_valid(r.csrf));
    ck_assert(!token_equal(r.session, r.csrf));
    ck_assert_int_eq(r.expires_ms, fake_now + 30 * DAY_MS);
    struct accounts_result s = session(r.session);
    ck_status(s, 0);
    ck_assert_int_eq(s.account, r.account);
    ck_assert_str_eq(s.name, "Alice");
    ck_assert_str_eq(s.csrf, r.csrf);
    ck_assert_int_eq(s.expires_ms, r.expires_ms);
    ck_assert_str_eq(s.session, ""); /* a lookup hands out no token */
    /* The database keeps the digest, not the token. */
    char err[512];
    struct store_accounts *h = store_accounts_open(st, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    char digest[TOKEN_DIGEST_LEN + 1];
    ck_assert_int_eq(token_digest(r.session, digest), 0);
    struct store_session ss;
    ck_assert_int_eq(store_session_get(h, digest, fake_now, &ss), 0);
    ck_assert_int_eq(store_session_get(h, "x", fake_now, &ss), STORE_E_ARGS);
    store_accounts_close(h);
    /* Sign-up is no failed sign-in: Alice signs in. */
    ck_status(signin("alice", PW), 0);
}
END_TEST

START_TEST(signin_right_and_wrong)
{
    struct accounts_result up = signup("Bob_1", PW);
    ck_status(up, 0);
    struct accounts_result in = signin("BOB_1", PW);
    ck_status(in, 0);
    ck_assert_int_eq(in.account, up.account);
    ck_assert_str_eq(in.name, "Bob_1"); /* as typed at sign-up */
    ck_assert_int_eq(in.created_ms, up.created_ms);
    ck_assert_str_ne(in.session, up.session);
    ck_status(session(in.session), 0);
    ck_status(session(up.session), 0);
    struct accounts_result bad = signin("Bob_1", PW "!");
    ck_status(bad, ACCOUNTS_E_CREDENTIALS);
    ck_assert_str_eq(bad.session, "");
    ck_assert_int_eq(bad.account, 0);
    ck_status(signin("nobody", PW), ACCOUNTS_E_CREDENTIALS);
    ck_status(signin("no.body", PW), ACCOUNTS_E_CREDENTIALS); /* no name at all */
    ck_status(signin("Bob_1", ""), ACCOUNTS_E_CREDENTIALS);
    /* A disabled account: its password opens nothing, its sessions end. */
    char err[512];
    struct store_accounts *h = store_accounts_open(st, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_int_eq(store_account_disabled_set(h, up.account, 1), 0);
    ck_status(signin("Bob_1", PW), ACCOUNTS_E_CREDENTIALS);
    ck_status(session(in.session), ACCOUNTS_E_SESSION);
    ck_assert_int_eq(store_account_disabled_set(h, up.account, 0), 0);
    store_accounts_close(h);
    ck_status(signin("Bob_1", PW), 0);
}
END_TEST

START_TEST(signout_and_expiry)
{
    struct accounts_result r = signup("Carol", PW);
    ck_status(r, 0);
    ck_status(signout(r.session), 0);
    ck_status(session(r.session), ACCOUNTS_E_SESSION);
    ck_status(signout(r.session), 0); /* twice is no error */
    ck_status(signout("not a token"), 0);
    ck_status(session("not a token"), ACCOUNTS_E_SESSION);
    ck_status(session(NULL), ACCOUNTS_E_SESSION);
    struct accounts_result in = signin("carol", PW);
    ck_status(in, 0);
    fake_now += 30 * DAY_MS - 1;
    ck_status(session(in.session), 0);
    fake_now += 1;
    ck_status(session(in.session), ACCOUNTS_E_SESSION);
}
END_TEST

START_TEST(password_change_ends_other_sessions)
{
    struct accounts_result s1 = signup("Dave", PW);
    ck_status(s1, 0);
    struct accounts_result s2 = signin("Dave", PW);
    struct accounts_result s3 = signin("Dave", PW);
    ck_status(s3, 0);
    ck_status(change(s2.session, PW "?", PW2), ACCOUNTS_E_CREDENTIALS);
    struct accounts_result r = change(s2.session, PW, "short");
    ck_status(r, ACCOUNTS_E_PASSWORD);
    ck_assert_str_eq(r.message, account_refusal_text(ACCOUNT_PASSWORD_LENGTH));
    ck_status(change(s2.session, PW, "dAVE"), ACCOUNTS_E_PASSWORD);
    ck_status(change("garbage", PW, PW2), ACCOUNTS_E_SESSION);
    ck_status(session(s1.session), 0); /* nothing changed so far */
    r = change(s2.session, PW, PW2);
    ck_status(r, 0);
    ck_assert_int_eq(r.account, s1.account);
    ck_status(session(s1.session), ACCOUNTS_E_SESSION);
    ck_status(session(s3.session), ACCOUNTS_E_SESSION);
    struct accounts_result kept = session(s2.session);
    ck_status(kept, 0);
    ck_assert_str_eq(kept.csrf, s2.csrf);
    ck_assert_int_eq(kept.expires_ms, s2.expires_ms);
    ck_status(signin("Dave", PW), ACCOUNTS_E_CREDENTIALS);
    ck_status(signin("Dave", PW2), 0);
}
END_TEST

START_TEST(delete_frees_the_name)
{
    struct accounts_result s1 = signup("Erin", PW);
    ck_status(s1, 0);
    struct accounts_result s2 = signin("Erin", PW);
    ck_status(s2, 0);
    ck_status(delete_acc(s1.session, PW2), ACCOUNTS_E_CREDENTIALS);
    ck_status(session(s1.session), 0);
    struct accounts_result d = delete_acc(s1.session, PW);
    ck_status(d, 0);
    ck_assert_int_eq(d.account, s1.account);
    ck_status(session(s1.session), ACCOUNTS_E_SESSION);
    ck_status(session(s2.session), ACCOUNTS_E_SESSION);
    ck_status(signin("Erin", PW), ACCOUNTS_E_CREDENTIALS);
    ck_status(delete_acc(s1.session, PW), ACCOUNTS_E_SESSION);
    struct accounts_result again = signup("ERIN", PW2);
    ck_status(again, 0);
    ck_assert_int_ne(again.account, s1.account);
}
END_TEST

static void core_tests_add(TCase *tc)
{
    tcase_add_test(tc, signup_then_session);
    tcase_add_test(tc, signin_right_and_wrong);
    tcase_add_test(tc, signout_and_expiry);
    tcase_add_test(tc, password_change_ends_other_sessions);
    tcase_add_test(tc, delete_frees_the_name);
}

/* ---- the rest (SQLite) ---- */

static void svc_reopen(const struct accounts_config *c)
{
    svc_close();
    svc_open(c);
}

static struct store_accounts *handle_open(void)
{
    char err[512];
    struct store_accounts *h = store_accounts_open(st, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    return h;
}

START_TEST(names_taken_in_any_case)
{
    ck_status(signup("Fay-9", PW), 0);
    ck_status(signup("fAY-9", PW2), ACCOUNTS_E_TAKEN);
    ck_status(signup("Fay-9", PW), ACCOUNTS_E_TAKEN);
    ck_status(signin("FAY-9", PW), 0); /* the first one's */
    ck_status(signin("FAY-9", PW2), ACCOUNTS_E_CREDENTIALS);
}
END_TEST

START_TEST(names_and_passwords_refused)
{
    struct {
        const char *name, *pw;
        int status, refusal;
    } cases[] = {
        {"a", PW, ACCOUNTS_E_NAME, ACCOUNT_NAME_LENGTH},
        {"no.dots", PW, ACCOUNTS_E_NAME, ACCOUNT_NAME_CHARS},
        {"_under", PW, ACCOUNTS_E_NAME, ACCOUNT_NAME_CHARS},
        {"Admin", PW, ACCOUNTS_E_NAME, ACCOUNT_NAME_RESERVED},
        {"Fred", "short", ACCOUNTS_E_PASSWORD, ACCOUNT_PASSWORD_LENGTH},
        {"Fredrick", "fREDRICK", ACCOUNTS_E_PASSWORD, ACCOUNT_PASSWORD_NAME},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct accounts_result r = signup(cases[i].name, cases[i].pw);
        ck_status(r, cases[i].status);
        ck_assert_str_eq(r.message, account_refusal_text(cases[i].refusal));
        ck_assert_str_eq(r.session, "");
    }
    char big[ACCOUNT_PASSWORD_MAX + 2];
    memset(big, 'p', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ck_status(signup("Fred", big), ACCOUNTS_E_PASSWORD);
    ck_status(signin("Fred", big), ACCOUNTS_E_CREDENTIALS);
    struct got g = {0};
    ck_status(wait1(accounts_signup(svc, NULL, NULL, 0, NULL, NULL, on_result, &g), &g),
              ACCOUNTS_E_NAME);
    ck_status(signin("admin", PW), ACCOUNTS_E_CREDENTIALS); /* reserved: nobody's */
    ck_status(signin("Fred", PW), ACCOUNTS_E_CREDENTIALS);  /* none was made */
}
END_TEST

START_TEST(registration_closed_and_by_invite)
{
    ck_status(signup_inv("Gus", PW, "ignored"), 0); /* open: an invite is not needed */
    struct accounts_config c;
    cheap(&c);
    c.registration = ACCOUNTS_CLOSED;
    svc_reopen(&c);
    ck_status(signup("Hal", PW), ACCOUNTS_E_CLOSED);
    ck_status(signup("no.name", PW), ACCOUNTS_E_CLOSED);
    ck_status(signin("Gus", PW), 0); /* signing in still works */
    c.registration = ACCOUNTS_INVITE;
    svc_reopen(&c);
    struct store_accounts *h = handle_open();
    ck_assert_int_eq(store_invite_create(h, "inv-1", 0, fake_now, fake_now + DAY_MS), 0);
    ck_assert_int_eq(store_invite_create(h, "inv-old", 0, fake_now - 2, fake_now - 1), 0);
    store_accounts_close(h);
    ck_status(signup("Hal", PW), ACCOUNTS_E_INVITE);
    ck_status(signup_inv("Hal", PW, ""), ACCOUNTS_E_INVITE);
    ck_status(signup_inv("Hal", PW, "nope"), ACCOUNTS_E_INVITE);
    ck_status(signup_inv("Hal", PW, "inv-old"), ACCOUNTS_E_INVITE);
    char big[STORE_INVITE_MAX + 2];
    memset(big, 'i', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ck_status(signup_inv("Hal", PW, big), ACCOUNTS_E_INVITE);
    ck_status(signup_inv("gus", PW, "inv-1"), ACCOUNTS_E_TAKEN); /* the invite stays unused */
    ck_status(signup_inv("Hal.", PW, "inv-1"), ACCOUNTS_E_NAME);
    struct accounts_result r = signup_inv("Hal", PW, "inv-1");
    ck_status(r, 0);
    ck_status(session(r.session), 0);
    ck_status(signup_inv("Ida", PW, "inv-1"), ACCOUNTS_E_INVITE); /* used */
    ck_status(signin("Ida", PW), ACCOUNTS_E_CREDENTIALS);         /* not made */
}
END_TEST

START_TEST(limit_per_account)
{
    struct accounts_config c;
    cheap(&c);
    c.fail_per_account = 3;
    svc_reopen(&c);
    struct accounts_result s = signup("Kate", PW);
    ck_status(s, 0);
    ck_status(signin_from("Kate", "wrong one", "10.0.0.2"), ACCOUNTS_E_CREDENTIALS);
    ck_status(signin_from("kate", "wrong two", "10.0.0.3"), ACCOUNTS_E_CREDENTIALS);
    fake_now += 1000;
    ck_status(signin_from("KATE", "wrong three", "10.0.0.4"), ACCOUNTS_E_CREDENTIALS);
    /* Limited: the right password too, from anywhere, and so are a change and a deletion. */
    struct accounts_result r = signin_from("Kate", PW, "10.0.0.5");
    ck_status(r, ACCOUNTS_E_RATE);
    ck_assert_int_eq(r.retry_after_ms, 900000 - 1000);
    ck_assert_str_eq(r.session, "");
    ck_status(change(s.session, PW, PW2), ACCOUNTS_E_RATE);
    ck_status(delete_acc(s.session, PW), ACCOUNTS_E_RATE);
    ck_status(signin_from("Other", PW, "10.0.0.5"), ACCOUNTS_E_CREDENTIALS); /* not its name */
    fake_now += 900000 - 1000;
    ck_status(signin("Kate", PW), 0);
    /* A success forgets the failures; a wrong old password is a failure too. */
    ck_status(signin("Kate", "wrong four"), ACCOUNTS_E_CREDENTIALS);
    ck_status(change(s.session, "wrong five", PW2), ACCOUNTS_E_CREDENTIALS);
    ck_status(signin("Kate", PW), 0);
    ck_status(delete_acc(s.session, "wrong six"), ACCOUNTS_E_CREDENTIALS);
    ck_status(change(s.session, "wrong seven", PW2), ACCOUNTS_E_CREDENTIALS);
    ck_status(signin("Kate", "wrong eight"), ACCOUNTS_E_CREDENTIALS);
    ck_status(signin("Kate", PW), ACCOUNTS_E_RATE);
}
END_TEST

static double signins(const char *result)
{
    return metrics_value("carcd_account_signins_total", result);
}

/* Each answered sign-in and sign-up counts once, by its result (metrics.h). */
START_TEST(metrics_count_results)
{
    struct accounts_config c;
    cheap(&c);
    c.fail_per_account = 2;
    svc_reopen(&c);
    double ok = signins("ok"), refused = signins("refused"), limited = signins("limited");
    double up_ok = metrics_value("carcd_account_signups_total", "ok");
    double up_refused = metrics_value("carcd_account_signups_total", "refused");
    ck_status(signup("Nora", PW), 0);
    ck_status(signup("NORA", PW), ACCOUNTS_E_TAKEN);
    ck_status(signin("Nora", PW), 0);
    ck_status(signin("Nora", "wrong one"), ACCOUNTS_E_CREDENTIALS);
    ck_status(signin("Nora", "wrong two"), ACCOUNTS_E_CREDENTIALS);
    ck_status(signin("Nora", PW), ACCOUNTS_E_RATE);
    ck_assert(metrics_value("carcd_account_signups_total", "ok") == up_ok + 1);
    ck_assert(metrics_value("carcd_account_signups_total", "refused") == up_refused + 1);
    ck_assert(signins("ok") == ok + 1);
    ck_assert(signins("refused") == refused + 2);
    ck_assert(signins("limited") == limited + 1);
    ck_assert(signins("failed") >= 0);
    ck_assert(metrics_value("carcd_account_jobs_waiting", NULL) == 0); /* all answered */
}
END_TEST

START_TEST(limit_per_address)
{
    struct accounts_config c;
    cheap(&c);
    c.fail_per_account = 2;
    c.fail_per_address = 2;
    svc_reopen(&c);
    ck_status(signup("Lena", PW), 0);
    ck_status(signup("Mona", PW), 0);
    ck_status(signin_from("Mona", "wrong", "10.1.1.1"), ACCOUNTS_E_CREDENTIALS);
    fake_now += 100000;
    ck_status(signin_from("Lena", "wrong", "10.2.2.2"), ACCOUNTS_E_CREDENTIALS);
    fake_now += 100000;
    ck_status(signin_from("Lena", "wrong", "10.1.1.1"), ACCOUNTS_E_CREDENTIALS);
    /* 10.1.1.1 waits 700 s, Lena 800 s: the larger. */
    struct accounts_result r = signin_from("Lena", PW, "10.1.1.1");
    ck_status(r, ACCOUNTS_E_RATE);
    ck_assert_int_eq(r.retry_after_ms, 800000);
    r = signin_from("Mona", PW, "10.1.1.1");
    ck_status(r, ACCOUNTS_E_RATE);
    ck_assert_int_eq(r.retry_after_ms, 700000);
    ck_status(signin_from("Mona", PW, "10.3.3.3"), 0);
    fake_now += 700000;
    ck_status(signin_from("Mona", PW, "10.1.1.1"), 0);
    ck_status(signin_from("Lena", PW, "10.1.1.1"), ACCOUNTS_E_RATE);
    fake_now += 100000;
    ck_status(signin_from("Lena", PW, "10.1.1.1"), 0);
}
END_TEST

static void hash_of(const char *name, char out[STORE_ACCOUNT_HASH_MAX + 1])
{
    struct store_accounts *h = handle_open();
    struct store_account acc;
    ck_assert_int_eq(store_account_find(h, name, &acc), 0);
    memcpy(out, acc.hash, sizeof acc.hash);
    store_accounts_close(h);
}

START_TEST(stale_hash_redone)
{
    char hash[STORE_ACCOUNT_HASH_MAX + 1];
    ck_status(signup("Nils", PW), 0);
    hash_of("Nils", hash);
    ck_assert_msg(strstr(hash, "$m=8,t=1,p=1$") != NULL, "%s", hash);
    struct accounts_config c;
    cheap(&c);
    c.hash_ops = 2;
    svc_reopen(&c);
    ck_status(signin("Nils", PW "x"), ACCOUNTS_E_CREDENTIALS);
    hash_of("Nils", hash);
    ck_assert_msg(strstr(hash, "$m=8,t=1,p=1$") != NULL, "%s", hash); /* only on success */
    ck_status(signin("Nils", PW), 0);
    hash_of("Nils", hash);
    ck_assert_msg(strstr(hash, "$m=8,t=2,p=1$") != NULL, "%s", hash);
    ck_status(signin("Nils", PW), 0);
}
END_TEST

START_TEST(shipped_parameters)
{
    struct accounts_config c;
    accounts_config_defaults(&c);
    ck_assert_int_eq(c.hash_ops, ACCOUNT_HASH_OPS);
    ck_assert_uint_eq(c.hash_mem, ACCOUNT_HASH_MEM);
    ck_assert_int_eq(c.session_days, 30);
    ck_assert_int_eq(c.fail_per_account, 5);
    ck_assert_int_eq(c.fail_per_address, 20);
    ck_assert_int_eq(c.fail_window_s, 900);
    svc_reopen(&c);
    ck_status(signup("Olga", PW), 0);
    char hash[STORE_ACCOUNT_HASH_MAX + 1];
    hash_of("Olga", hash);
    ck_assert_msg(strstr(hash, "$argon2id$v=19$m=65536,t=2,p=1$") == hash, "%s", hash);
    ck_status(signin("olga", PW), 0);
    ck_status(signin("olga", PW2), ACCOUNTS_E_CREDENTIALS);
    ck_status(signin("nobody", PW), ACCOUNTS_E_CREDENTIALS);
}
END_TEST

#define ALL (ACCOUNTS_RUNNING + ACCOUNTS_QUEUE)

START_TEST(queue_bounded)
{
    struct accounts_result s = signup("Pia", PW);
    ck_status(s, 0);
    double refused = metrics_value("carcd_account_jobs_refused_total", NULL);
    static struct got g[ALL + 1];
    static struct accounts_req *req[ALL + 1];
    memset(g, 0, sizeof g);
    int n = 0;
    while (n <= ALL && (req[n] = accounts_session(svc, s.session, on_result, &g[n])) != NULL)
        n++;
    ck_assert_int_eq(n, ALL); /* ACCOUNTS_RUNNING run, ACCOUNTS_QUEUE wait */
    ck_assert(metrics_value("carcd_account_jobs_waiting", NULL) == ACCOUNTS_QUEUE);
    struct got extra = {0};
    /* Full for answers known on the loop as well; nothing happens. */
    ck_assert_ptr_null(accounts_session(svc, "bad", on_result, &extra));
    ck_assert_ptr_null(accounts_signup(svc, "Quin", PW, strlen(PW), NULL, NULL, on_result, &extra));
    accounts_cancel(req[ALL - 1]); /* a waiting one makes room for one */
    req[ALL - 1] = accounts_signup(svc, "x.y", PW, strlen(PW), NULL, NULL, on_result, &g[ALL - 1]);
    ck_assert_ptr_nonnull(req[ALL - 1]);
    ck_assert_ptr_null(accounts_session(svc, s.session, on_result, &extra));
    ck_assert(metrics_value("carcd_account_jobs_refused_total", NULL) == refused + 4);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert(metrics_value("carcd_account_jobs_waiting", NULL) == 0);
    for (int i = 0; i < ALL - 1; i++) {
        ck_assert_int_eq(g[i].n, 1);
        ck_status(g[i].r, 0);
        ck_assert_int_eq(g[i].r.account, s.account);
    }
    ck_assert_int_eq(g[ALL - 1].n, 1);
    ck_status(g[ALL - 1].r, ACCOUNTS_E_NAME);
    ck_assert_int_eq(extra.n, 0);
    ck_status(signin("Quin", PW), ACCOUNTS_E_CREDENTIALS);
}
END_TEST

START_TEST(cancelled_never_called)
{
    struct accounts_result s = signup("Ron", PW);
    ck_status(s, 0);
    struct got g[5] = {{0}};
    size_t len = strlen(PW);
    struct accounts_req *running =
        accounts_signup(svc, "Sam", PW, len, NULL, NULL, on_result, &g[0]);
    struct accounts_req *kept = accounts_session(svc, s.session, on_result, &g[1]);
    struct accounts_req *waiting =
        accounts_signup(svc, "Tom", PW, len, NULL, NULL, on_result, &g[2]);
    struct accounts_req *ready =
        accounts_signup(svc, "T.om", PW, len, NULL, NULL, on_result, &g[3]);
    struct accounts_req *last = accounts_session(svc, s.session, on_result, &g[4]);
    ck_assert_ptr_nonnull(running);
    ck_assert_ptr_nonnull(kept);
    ck_assert_ptr_nonnull(waiting);
    ck_assert_ptr_nonnull(ready);
    ck_assert_ptr_nonnull(last);
    accounts_cancel(running);
    accounts_cancel(waiting);
    accounts_cancel(ready);
    accounts_cancel(NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(g[0].n, 0);
    ck_assert_int_eq(g[1].n, 1);
    ck_assert_int_eq(g[2].n, 0);
    ck_assert_int_eq(g[3].n, 0);
    ck_assert_int_eq(g[4].n, 1);
    ck_status(g[4].r, 0);
    ck_status(signin("Sam", PW), 0);                      /* it had run: dropped, not undone */
    ck_status(signin("Tom", PW), ACCOUNTS_E_CREDENTIALS); /* it never ran */
}
END_TEST

START_TEST(close_with_jobs_running)
{
    struct got g[4] = {{0}};
    size_t len = strlen(PW);
    ck_assert_ptr_nonnull(accounts_signup(svc, "Uma", PW, len, NULL, NULL, on_result, &g[0]));
    ck_assert_ptr_nonnull(accounts_signup(svc, "Vic", PW, len, NULL, NULL, on_result, &g[1]));
    ck_assert_ptr_nonnull(accounts_signup(svc, "Wes", PW, len, NULL, NULL, on_result, &g[2]));
    ck_assert_ptr_nonnull(accounts_session(svc, "bad", on_result, &g[3]));
    int done = 0;
    accounts_close(svc, on_closed, &done);
    struct got late = {0};
    ck_assert_ptr_null(accounts_signup(svc, "Xan", PW, len, NULL, NULL, on_result, &late));
    ck_assert_int_eq(done, 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    svc = NULL;
    ck_assert_int_eq(done, 1);
    ck_assert_int_eq(g[0].n, 1); /* running: finished and answered */
    ck_status(g[0].r, 0);
    ck_assert_int_eq(g[1].n, 1);
    ck_status(g[1].r, 0);
    ck_assert_int_eq(g[2].n, 0); /* waiting: cancelled */
    ck_assert_int_eq(g[3].n, 0);
    ck_assert_int_eq(late.n, 0);
    struct accounts_config c;
    cheap(&c);
    svc_open(&c);
    ck_status(signin("Uma", PW), 0);
    ck_status(signin("Vic", PW), 0);
    ck_status(signin("Wes", PW), ACCOUNTS_E_CREDENTIALS);
}
END_TEST

/* ---- accounts_util.h ---- */

uv_loop_t *ta_loop(void)
{
    return &loop;
}

struct accounts *ta_service(void)
{
    return svc;
}

long long *ta_clock(void)
{
    return &fake_now;
}

void ta_config(struct accounts_config *c)
{
    cheap(c);
}

void ta_reopen(const struct accounts_config *c)
{
    svc_reopen(c);
}

static void more_tests_add(TCase *tc)
{
    tcase_add_test(tc, names_taken_in_any_case);
    tcase_add_test(tc, names_and_passwords_refused);
    tcase_add_test(tc, registration_closed_and_by_invite);
    tcase_add_test(tc, limit_per_account);
    tcase_add_test(tc, metrics_count_results);
    tcase_add_test(tc, limit_per_address);
    tcase_add_test(tc, stale_hash_redone);
    tcase_add_test(tc, shipped_parameters);
    tcase_add_test(tc, queue_bounded);
    tcase_add_test(tc, cancelled_never_called);
    tcase_add_test(tc, close_with_jobs_running);
    accounts_admin_tests_add(tc);
}

Suite *suite_accounts(void)
{
    Suite *s = suite_create("accounts");
    TCase *tc = tcase_create("accounts");
    tcase_add_checked_fixture(tc, sq_setup, sq_teardown);
    tcase_set_timeout(tc, 60);
    core_tests_add(tc);
    more_tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}

/* The same core flow on a real PostgreSQL (make test runs it under tests/pg.sh). */
Suite *suite_accounts_pg(void)
{
    Suite *s = suite_create("accounts_pg");
    if (getenv("CARC_PG_URL") == NULL) /* as suite_store_pg: empty without a database */
        return s;
    TCase *tc = tcase_create("accounts_pg");
    tcase_add_checked_fixture(tc, pgs_setup, pgs_teardown);
    tcase_set_timeout(tc, 60);
    core_tests_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
