/* test_push.c: notify/push.h against a local push service
 * (tests/push_service.py): the service verifies each request's VAPID token
 * with the key it carries (signature, audience, expiry, subject) and decrypts
 * its body with the subscription's private key (RFC 8291), as a browser's
 * push service and the browser would; its log says what it found. Then the
 * answers a push service gives (201, 404, 410, 429 with Retry-After, 500, and
 * 400 for a body that does not decrypt) sorted into what carcd does with the
 * subscription; and subscriptions refused before anything is sent. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "https_util.h"
#include "notify/notifier.h"
#include "notify/push.h"
#include "tests.h"
#include "util/status.h"

static struct hu_server srv;
static char logpath[64];
static char p256dh[128], auth[64];
static uv_loop_t loop;
static struct outbound *out;
static struct vapid *key;
static struct push_sender sender;

static void setup(void)
{
    snprintf(logpath, sizeof logpath, "/tmp/carc-push-log-XXXXXX");
    int fd = mkstemp(logpath);
    ck_assert_int_ge(fd, 0);
    close(fd);
    const char *args[] = {logpath, NULL};
    hu_start(&srv, "tests/push_service.py", args);
    ck_assert_int_eq(sscanf(srv.line, "%*d %127s %63s", p256dh, auth), 2);
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    struct outbound_config c;
    outbound_config_defaults(&c);
    c.ca_file = srv.cert;
    c.private_ok = 1; /* the push service is on 127.0.0.1 */
    char err[256];
    out = outbound_new(&loop, &c, err, sizeof err);
    ck_assert_msg(out != NULL, "%s", err);
    key = vapid_generate();
    ck_assert_ptr_nonnull(key);
    sender = (struct push_sender){out, key, "mailto:ops@example.org"};
}

static void on_closed(void *arg)
{
    *(int *)arg = 1;
}

static void teardown(void)
{
    int closed = 0;
    outbound_close(out, on_closed, &closed);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(closed, 1);
    uv_loop_close(&loop);
    vapid_free(key);
    hu_stop(&srv);
    unlink(logpath);
}

struct got {
    int n;
    struct push_result r;
};

static void on_result(void *arg, const struct push_result *r)
{
    struct got *g = arg;
    g->n++;
    g->r = *r;
}

static void subscription(const char *name, struct push_subscription *sub)
{
    char endpoint[128];
    snprintf(endpoint, sizeof endpoint, "https://127.0.0.1:%d/push/%s", srv.port, name);
    const char *why = NULL;
    ck_assert_msg(push_subscription_make(endpoint, p256dh, auth, sub, &why) == 0, "%s", why);
}

static struct push_result send_to(const char *name, const char *payload, const char *urgency)
{
    struct push_subscription sub;
    subscription(name, &sub);
    struct got g = {0};
    ck_assert_int_eq(
        push_send(&sender, &sub, payload, strlen(payload), 3600, urgency, on_result, &g), 0);
    ck_assert_int_eq(g.n, 0);
    while (g.n == 0)
        uv_run(&loop, UV_RUN_ONCE);
    ck_assert_int_eq(g.n, 1);
    return g.r;
}

/* The service's log: every line, whole. */
static char *log_read(void)
{
    static char buf[65536];
    FILE *f = fopen(logpath, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

START_TEST(delivered_verified_and_decrypted)
{
    const char *payload = "{\"type\":\"your_turn\",\"room\":\"AB12\",\"title\":\"Ann, à toi\"}";
    struct push_result r = send_to("ok1", payload, "high");
    ck_assert_int_eq(r.outcome, PUSH_SENT);
    ck_assert_int_eq(r.status, 201);
    ck_assert_int_eq(r.error, 0);
    char *log = log_read();
    ck_assert_msg(strstr(log, "\"vapid\": \"ok\"") != NULL, "%s", log);
    ck_assert_msg(strstr(log, "\"payload\": \"{\\\"type\\\":\\\"your_turn\\\",\\\"room\\\":"
                              "\\\"AB12\\\",\\\"title\\\":\\\"Ann, \\u00e0 toi\\\"}\"") != NULL,
                  "%s", log);
    ck_assert_ptr_nonnull(strstr(log, "\"error\": null"));
    ck_assert_ptr_nonnull(strstr(log, "\"ttl\": \"3600\""));
    ck_assert_ptr_nonnull(strstr(log, "\"urgency\": \"high\""));
    ck_assert_ptr_nonnull(strstr(log, "\"encoding\": \"aes128gcm\""));
    ck_assert_ptr_nonnull(strstr(log, "\"sub\": \"mailto:ops@example.org\""));
    char k[160];
    snprintf(k, sizeof k, "\"key\": \"%s\"", vapid_public_b64(key));
    ck_assert_ptr_nonnull(strstr(log, k));
    char aud[80];
    snprintf(aud, sizeof aud, "\"aud\": \"https://127.0.0.1:%d\"", srv.port);
    ck_assert_ptr_nonnull(strstr(log, aud));
}
END_TEST

START_TEST(answers_sorted)
{
    struct push_result r = send_to("gone", "x", "normal");
    ck_assert_int_eq(r.outcome, PUSH_GONE);
    ck_assert_int_eq(r.status, 410);
    r = send_to("missing", "x", "normal");
    ck_assert_int_eq(r.outcome, PUSH_GONE);
    ck_assert_int_eq(r.status, 404);
    r = send_to("busy", "x", "low");
    ck_assert_int_eq(r.outcome, PUSH_RETRY);
    ck_assert_int_eq(r.status, 429);
    ck_assert_int_eq(r.retry_after_s, 3);
    r = send_to("broken", "x", "normal");
    ck_assert_int_eq(r.outcome, PUSH_RETRY);
    ck_assert_int_eq(r.status, 500);
    /* Another auth secret: the service cannot decrypt it and answers 400. */
    char keep[64];
    snprintf(keep, sizeof keep, "%s", auth);
    snprintf(auth, sizeof auth, "AAAAAAAAAAAAAAAAAAAAAA");
    r = send_to("ok2", "x", "normal");
    snprintf(auth, sizeof auth, "%s", keep);
    ck_assert_int_eq(r.outcome, PUSH_FAILED);
    ck_assert_int_eq(r.status, 400);
    ck_assert_ptr_nonnull(strstr(log_read(), "InvalidTag"));
    /* Nobody listening: retried later. */
    struct push_subscription sub;
    const char *why;
    ck_assert_int_eq(push_subscription_make("https://127.0.0.1:1/push/x", p256dh, auth, &sub, &why),
                     0);
    struct got g = {0};
    ck_assert_int_eq(push_send(&sender, &sub, "x", 1, 60, NULL, on_result, &g), 0);
    while (g.n == 0)
        uv_run(&loop, UV_RUN_ONCE);
    ck_assert_int_eq(g.r.outcome, PUSH_RETRY);
    ck_assert_int_eq(g.r.error, OUTBOUND_E_CONNECT);
}
END_TEST

START_TEST(subscriptions_refused)
{
    struct push_subscription sub;
    const char *why = NULL;
    ck_assert_int_eq(push_subscription_make("http://127.0.0.1/push", p256dh, auth, &sub, &why), -1);
    ck_assert_ptr_nonnull(strstr(why, "endpoint"));
    ck_assert_int_eq(push_subscription_make("https:///push", p256dh, auth, &sub, &why), -1);
    ck_assert_int_eq(push_subscription_make("https://a b/push", p256dh, auth, &sub, &why), -1);
    ck_assert_int_eq(push_subscription_make(NULL, p256dh, auth, &sub, &why), -1);
    char off[128];
    snprintf(off, sizeof off, "%s", p256dh);
    off[40] = off[40] == 'A' ? 'B' : 'A'; /* almost surely off the curve */
    ck_assert_int_eq(push_subscription_make("https://h/p", off, auth, &sub, &why), -1);
    ck_assert_ptr_nonnull(strstr(why, "p256dh"));
    ck_assert_int_eq(push_subscription_make("https://h/p", p256dh, "AAAA", &sub, &why), -1);
    ck_assert_ptr_nonnull(strstr(why, "auth"));
    ck_assert_int_eq(push_subscription_make("https://h/p", p256dh, NULL, &sub, &why), -1);
    ck_assert_int_eq(push_subscription_make("https://h:8443/p?x=1", p256dh, auth, &sub, &why), 0);
    char origin[64];
    ck_assert_int_eq(push_origin(sub.endpoint, origin, sizeof origin), 0);
    ck_assert_str_eq(origin, "https://h:8443");
    static char big[WEBPUSH_PAYLOAD_MAX + 1];
    memset(big, 'x', sizeof big);
    struct got g = {0};
    ck_assert_int_eq(push_send(&sender, &sub, big, sizeof big, 60, NULL, on_result, &g),
                     WEBPUSH_E_SIZE);
    ck_assert_int_eq(g.n, 0);
}
END_TEST

/* A stored subscription is decoded on the loop without the curve check
 * (push_subscription_decode: OpenSSL's check cost ~100 us a subscription of
 * every notice); a point off the curve is caught by the encryption, off the
 * loop, and answered gone without a request. */
START_TEST(decoded_point_checked_off_loop)
{
    struct push_subscription sub;
    const char *why = NULL;
    char endpoint[128], off[128];
    snprintf(endpoint, sizeof endpoint, "https://127.0.0.1:%d/push/offcurve", srv.port);
    snprintf(off, sizeof off, "%s", p256dh);
    off[40] = off[40] == 'A' ? 'B' : 'A'; /* almost surely off the curve */
    ck_assert_int_eq(push_subscription_make(endpoint, off, auth, &sub, &why), -1);
    ck_assert_int_eq(push_subscription_decode(endpoint, off, auth, &sub, &why), 0);
    /* Everything else is checked as push_subscription_make does. */
    ck_assert_int_eq(push_subscription_decode("http://h/p", p256dh, auth, &sub, &why), -1);
    ck_assert_ptr_nonnull(strstr(why, "endpoint"));
    ck_assert_int_eq(push_subscription_decode(endpoint, "AAAA", auth, &sub, &why), -1);
    ck_assert_ptr_nonnull(strstr(why, "p256dh"));
    ck_assert_int_eq(push_subscription_decode(endpoint, p256dh, "AAAA", &sub, &why), -1);
    ck_assert_ptr_nonnull(strstr(why, "auth"));
    ck_assert_int_eq(push_subscription_decode(endpoint, off, auth, &sub, &why), 0);
    struct got g = {0};
    ck_assert_int_eq(push_send(&sender, &sub, "x", 1, 60, NULL, on_result, &g), 0);
    while (g.n == 0)
        uv_run(&loop, UV_RUN_ONCE);
    ck_assert_int_eq(g.r.outcome, PUSH_GONE);
    ck_assert_int_eq(g.r.error, WEBPUSH_E_KEY);
    ck_assert_int_eq(g.r.status, 0);
    /* A good one decoded so is delivered as one made (the service got nothing before). */
    ck_assert_ptr_null(strstr(log_read(), "offcurve"));
    snprintf(endpoint, sizeof endpoint, "https://127.0.0.1:%d/push/decoded", srv.port);
    ck_assert_int_eq(push_subscription_decode(endpoint, p256dh, auth, &sub, &why), 0);
    g.n = 0;
    ck_assert_int_eq(push_send(&sender, &sub, "y", 1, 60, NULL, on_result, &g), 0);
    while (g.n == 0)
        uv_run(&loop, UV_RUN_ONCE);
    ck_assert_int_eq(g.r.outcome, PUSH_SENT);
    ck_assert_ptr_nonnull(strstr(log_read(), "\"path\": \"/push/decoded\""));
}
END_TEST

/* ---- the notices' payloads (notifier.h; PROTOCOL.md "Notifications") ---- */

static struct notifier_notice notice_of(int kind)
{
    struct notifier_notice t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    snprintf(t.room, sizeof t.room, "AB12cd34");
    t.account = 5;
    t.seat = 1;
    t.n = 3;
    snprintf(t.names[0], sizeof t.names[0], "Ann");
    snprintf(t.names[1], sizeof t.names[1], "Bj\xc3\xb6rn \"B\"");
    snprintf(t.names[2], sizeof t.names[2], "Cy");
    t.scores[0] = 80;
    t.scores[1] = 95;
    t.scores[2] = 95;
    t.rank = 1;
    return t;
}

START_TEST(payloads_as_documented)
{
    char text[WEBPUSH_PAYLOAD_MAX + 1];
    struct notifier_notice t = notice_of(NOTIFIER_TURN);
    t.deadline = 1764590400000LL;
    ck_assert_int_gt(notifier_payload(&t, text, sizeof text), 0);
    ck_assert_str_eq(text, "{\"v\":1,\"type\":\"your_turn\",\"room\":\"AB12cd34\","
                           "\"url\":\"/#room=AB12cd34\",\"seat\":1,\"deadline\":1764590400000,"
                           "\"players\":[\"Ann\",\"Bj\xc3\xb6rn \\\"B\\\"\",\"Cy\"],"
                           "\"title\":\"Your turn\",\"body\":\"It is your turn in room "
                           "AB12cd34 against Ann, Cy\"}");
    t = notice_of(NOTIFIER_LOW);
    ck_assert_int_gt(notifier_payload(&t, text, sizeof text), 0);
    ck_assert_ptr_nonnull(strstr(text, "\"type\":\"time_low\""));
    ck_assert_ptr_nonnull(strstr(text, "\"deadline\":null"));
    t = notice_of(NOTIFIER_OVER);
    ck_assert_int_gt(notifier_payload(&t, text, sizeof text), 0);
    ck_assert_ptr_nonnull(strstr(text, "\"type\":\"game_over\""));
    ck_assert_ptr_nonnull(strstr(text, "\"url\":\"/#replay=AB12cd34\""));
    ck_assert_ptr_nonnull(strstr(text, "\"rank\":1,"));
    ck_assert_ptr_nonnull(strstr(text, "\"scores\":[80,95,95]"));
    ck_assert_ptr_nonnull(strstr(text, "you finished 1st with 95 points"));
    ck_assert_ptr_null(strstr(text, "deadline"));
    t = notice_of(NOTIFIER_REMATCH);
    t.from = 2;
    ck_assert_int_gt(notifier_payload(&t, text, sizeof text), 0);
    ck_assert_str_eq(text, "{\"v\":1,\"type\":\"rematch\",\"room\":\"AB12cd34\","
                           "\"url\":\"/#room=AB12cd34\",\"seat\":1,\"from\":2,"
                           "\"players\":[\"Ann\",\"Bj\xc3\xb6rn \\\"B\\\"\",\"Cy\"],"
                           "\"title\":\"Rematch\",\"body\":\"Cy offers a rematch in room "
                           "AB12cd34\"}");
    t = notice_of(NOTIFIER_OVER);
    /* Too small a buffer, or a seat out of range: -1. */
    ck_assert_int_eq(notifier_payload(&t, text, 40), -1);
    t.seat = 3;
    ck_assert_int_eq(notifier_payload(&t, text, sizeof text), -1);
}
END_TEST

Suite *suite_push(void)
{
    Suite *s = suite_create("push");
    TCase *tc = tcase_create("push");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, delivered_verified_and_decrypted);
    tcase_add_test(tc, answers_sorted);
    tcase_add_test(tc, subscriptions_refused);
    tcase_add_test(tc, decoded_point_checked_off_loop);
    suite_add_tcase(s, tc);
    TCase *pl = tcase_create("payloads");
    tcase_add_test(pl, payloads_as_documented);
    suite_add_tcase(s, pl);
    return s;
}
