/* test_outbound.c: notify/outbound.h against a real HTTPS endpoint
 * (tests/outbound_server.py, Python's http.server behind ssl, with a
 * certificate made here by `openssl req`): a POST and its answer, the extra CA
 * (untrusted without it), Retry-After, a long answer cut at response_max,
 * timeouts, a refused connection, the bounded queue, URLs refused, and a close
 * with requests under way (each answered once, OUTBOUND_E_CLOSED). The
 * caller's loop here is a real libuv loop; answers must come through it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "https_util.h"
#include "notify/outbound.h"
#include "tests.h"
#include "util/status.h"

static struct hu_server srv;
static uv_loop_t loop;

static void setup(void)
{
    hu_start(&srv, "tests/outbound_server.py", NULL);
    ck_assert_int_eq(uv_loop_init(&loop), 0);
}

static void teardown(void)
{
    hu_stop(&srv);
    uv_loop_close(&loop);
}

struct got {
    int n;
    int error;
    long status, retry;
    char body[8192];
    size_t len;
};

static void on_answer(void *arg, const struct outbound_result *res)
{
    struct got *g = arg;
    g->n++;
    g->error = res->error;
    g->status = res->status;
    g->retry = res->retry_after_s;
    g->len = res->body_len;
    ck_assert_uint_lt(res->body_len, sizeof g->body);
    memcpy(g->body, res->body, res->body_len);
    g->body[res->body_len] = '\0';
    ck_assert(res->error == 0 || res->message != NULL);
    if (res->error != 0)
        fprintf(stderr, "outbound: %s: %s\n", srv_status_name(res->error), res->message);
}

static struct outbound *client(int with_ca, int timeout_ms, int queue_max)
{
    struct outbound_config c;
    outbound_config_defaults(&c);
    c.ca_file = with_ca ? srv.cert : NULL;
    c.timeout_ms = timeout_ms;
    c.queue_max = queue_max;
    c.response_max = 100;
    c.private_ok = 1; /* the endpoint is on 127.0.0.1 */
    char err[256];
    struct outbound *o = outbound_new(&loop, &c, err, sizeof err);
    ck_assert_msg(o != NULL, "%s", err);
    return o;
}

static void url(char *out, size_t size, const char *path)
{
    snprintf(out, size, "https://127.0.0.1:%d%s", srv.port, path);
}

static int closed;
static void on_closed(void *arg)
{
    (void)arg;
    closed++;
}

/* Run the loop until o's requests are answered, then close it. */
static void finish(struct outbound *o)
{
    while (outbound_pending(o) > 0)
        uv_run(&loop, UV_RUN_ONCE);
    closed = 0;
    outbound_close(o, on_closed, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(closed, 1);
}

START_TEST(post_and_answer)
{
    struct outbound *o = client(1, 10000, 8);
    char u[128];
    url(u, sizeof u, "/status/201");
    const char *h[] = {"TTL: 60", "Content-Encoding: aes128gcm"};
    struct got g = {0};
    ck_assert_int_eq(outbound_post(o, u, h, 2, "\x01\x02hello", 7, on_answer, &g), 0);
    ck_assert_int_eq(g.n, 0); /* never from inside the call */
    ck_assert_int_eq(outbound_pending(o), 1);
    finish(o);
    ck_assert_int_eq(g.n, 1);
    ck_assert_int_eq(g.error, 0);
    ck_assert_int_eq(g.status, 201);
    ck_assert_int_eq(g.retry, -1);
    /* cut at response_max (100): the start of the echo */
    ck_assert_uint_eq(g.len, 100);
    ck_assert_ptr_nonnull(strstr(g.body, "\"length\": 7"));
}
END_TEST

START_TEST(headers_reach_the_endpoint)
{
    struct outbound_config c;
    outbound_config_defaults(&c);
    c.ca_file = srv.cert;
    c.private_ok = 1;
    char err[256];
    struct outbound *o = outbound_new(&loop, &c, err, sizeof err);
    ck_assert_msg(o != NULL, "%s", err);
    char u[128];
    url(u, sizeof u, "/status/200");
    const char *h[] = {"TTL: 60", "Authorization: vapid t=abc, k=def"};
    struct got g = {0};
    ck_assert_int_eq(outbound_post(o, u, h, 2, "hello", 5, on_answer, &g), 0);
    finish(o);
    ck_assert_int_eq(g.status, 200);
    ck_assert_ptr_nonnull(strstr(g.body, "\"ttl\": \"60\""));
    ck_assert_ptr_nonnull(strstr(g.body, "\"authorization\": \"vapid t=abc, k=def\""));
    ck_assert_ptr_nonnull(strstr(g.body, "\"body\": \"hello\""));
    ck_assert_ptr_null(strstr(g.body, "\"expect\""));
    ck_assert_ptr_nonnull(strstr(g.body, "\"user-agent\": \"carcd\""));
}
END_TEST

START_TEST(untrusted_without_the_ca)
{
    struct outbound *o = client(0, 10000, 8);
    char u[128];
    url(u, sizeof u, "/status/201");
    struct got g = {0};
    ck_assert_int_eq(outbound_post(o, u, NULL, 0, "x", 1, on_answer, &g), 0);
    finish(o);
    ck_assert_int_eq(g.n, 1);
    ck_assert_int_eq(g.error, OUTBOUND_E_TLS);
    ck_assert_int_eq(g.status, 0);
}
END_TEST

START_TEST(retry_after_and_status)
{
    struct outbound *o = client(1, 10000, 8);
    char u[128], v[128];
    url(u, sizeof u, "/retry");
    url(v, sizeof v, "/status/410");
    struct got a = {0}, b = {0};
    ck_assert_int_eq(outbound_post(o, u, NULL, 0, "x", 1, on_answer, &a), 0);
    ck_assert_int_eq(outbound_post(o, v, NULL, 0, "", 0, on_answer, &b), 0);
    finish(o);
    ck_assert_int_eq(a.status, 429);
    ck_assert_int_eq(a.retry, 7);
    ck_assert_str_eq(a.body, "slow down");
    ck_assert_int_eq(b.status, 410);
    ck_assert_int_eq(b.retry, -1);
}
END_TEST

START_TEST(timeouts_and_refusals)
{
    struct outbound *o = client(1, 400, 8);
    char slow[128], dead[128];
    url(slow, sizeof slow, "/slow");
    snprintf(dead, sizeof dead, "https://127.0.0.1:1/");
    struct got a = {0}, b = {0};
    ck_assert_int_eq(outbound_post(o, slow, NULL, 0, "x", 1, on_answer, &a), 0);
    ck_assert_int_eq(outbound_post(o, dead, NULL, 0, "x", 1, on_answer, &b), 0);
    finish(o);
    ck_assert_int_eq(a.error, OUTBOUND_E_TIMEOUT);
    ck_assert_int_eq(b.error, OUTBOUND_E_CONNECT);
}
END_TEST

START_TEST(bounded_queue_and_bad_urls)
{
    struct outbound *o = client(1, 10000, 2);
    char u[128];
    url(u, sizeof u, "/status/204");
    struct got g[3] = {{0}};
    ck_assert_int_eq(outbound_post(o, "http://localhost/", NULL, 0, "", 0, on_answer, &g[2]),
                     OUTBOUND_E_URL);
    ck_assert_int_eq(outbound_post(o, "https://", NULL, 0, "", 0, on_answer, &g[2]),
                     OUTBOUND_E_URL);
    ck_assert_int_eq(outbound_post(o, "file:///etc/passwd", NULL, 0, "", 0, on_answer, &g[2]),
                     OUTBOUND_E_URL);
    ck_assert_int_eq(outbound_post(o, u, NULL, 0, "", 0, on_answer, &g[0]), 0);
    ck_assert_int_eq(outbound_post(o, u, NULL, 0, "", 0, on_answer, &g[1]), 0);
    ck_assert_int_eq(outbound_post(o, u, NULL, 0, "", 0, on_answer, &g[2]), OUTBOUND_E_FULL);
    finish(o);
    ck_assert_int_eq(g[0].status, 204);
    ck_assert_int_eq(g[1].status, 204);
    ck_assert_int_eq(g[2].n, 0);
}
END_TEST

START_TEST(close_answers_everything_once)
{
    struct outbound *o = client(1, 60000, 8);
    char slow[128];
    url(slow, sizeof slow, "/slow");
    struct got g[4] = {{0}};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(outbound_post(o, slow, NULL, 0, "x", 1, on_answer, &g[i]), 0);
    /* let them start, then close while they wait on the endpoint */
    for (int i = 0; i < 20; i++)
        uv_run(&loop, UV_RUN_NOWAIT), uv_sleep(10);
    closed = 0;
    outbound_close(o, on_closed, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(closed, 1);
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(g[i].n, 1);
        ck_assert_int_eq(g[i].error, OUTBOUND_E_CLOSED);
    }
}
END_TEST

static uv_thread_t prep_thread;

static int prep(void *parg, struct outbound_prep *p)
{
    const char *word = parg;
    if (strcmp(word, "refuse") == 0)
        return WEBPUSH_E_KEY; /* any status: it answers the request */
    p->body = strdup(word);
    p->len = strlen(word);
    p->headers[p->nheaders++] = strdup("X-Made: on the client's thread");
    prep_thread = uv_thread_self();
    return 0;
}

START_TEST(prepared_off_the_loop)
{
    struct outbound *o = client(1, 10000, 8);
    char u[128];
    url(u, sizeof u, "/status/202");
    struct got a = {0}, b = {0};
    ck_assert_int_eq(outbound_post_prepared(o, u, prep, "prepared body", on_answer, &a), 0);
    ck_assert_int_eq(outbound_post_prepared(o, u, prep, "refuse", on_answer, &b), 0);
    ck_assert_int_eq(outbound_post_prepared(o, "http://x/", prep, "no", on_answer, &b),
                     OUTBOUND_E_URL);
    finish(o);
    ck_assert_int_eq(a.n, 1);
    ck_assert_int_eq(a.status, 202);
    ck_assert_ptr_nonnull(strstr(a.body, "\"length\": 13"));
    uv_thread_t self = uv_thread_self();
    ck_assert(!uv_thread_equal(&prep_thread, &self)); /* not on the caller's loop */
    ck_assert_int_eq(b.n, 1);
    ck_assert_int_eq(b.error, WEBPUSH_E_KEY);
    ck_assert_int_eq(b.status, 0);
}
END_TEST

/* By default a URL cannot reach a private address (a user's push endpoint
 * aimed at carcd's own network); e-mail to the configured relay can. */
START_TEST(private_addresses_refused)
{
    struct outbound_config c;
    outbound_config_defaults(&c);
    c.ca_file = srv.cert;
    char err[256];
    struct outbound *o = outbound_new(&loop, &c, err, sizeof err);
    ck_assert_msg(o != NULL, "%s", err);
    const char *urls[] = {"https://127.0.0.1:%d/status/200", "https://localhost:%d/status/200",
                          "https://[::1]:%d/status/200", "https://10.1.2.3:%d/",
                          "https://169.254.169.254:%d/latest/meta-data"};
    struct got g[5];
    memset(g, 0, sizeof g);
    for (int i = 0; i < 5; i++) {
        char u[128];
        snprintf(u, sizeof u, urls[i], srv.port);
        ck_assert_int_eq(outbound_post(o, u, NULL, 0, "x", 1, on_answer, &g[i]), 0);
    }
    finish(o);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(g[i].n, 1);
        ck_assert_msg(g[i].error == OUTBOUND_E_PRIVATE, "%s: %s", urls[i],
                      srv_status_name(g[i].error));
    }
}
END_TEST

START_TEST(bad_ca_file)
{
    struct outbound_config c;
    outbound_config_defaults(&c);
    char err[256];
    c.ca_file = "/nonexistent/ca.pem";
    ck_assert_ptr_null(outbound_new(&loop, &c, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/ca.pem"));
    c.ca_file = srv.key; /* a key, no certificate */
    ck_assert_ptr_null(outbound_new(&loop, &c, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "no PEM certificate"));
    uv_run(&loop, UV_RUN_DEFAULT);
}
END_TEST

/* ---- e-mail, to a local SMTP sink (tests/smtp_sink.py) ---- */

static struct hu_server sink;
static char maildir[64];

static void mail_setup(void)
{
    snprintf(maildir, sizeof maildir, "/tmp/carc-mail-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(maildir));
    const char *args[] = {maildir, NULL};
    hu_start(&sink, "tests/smtp_sink.py", args);
    srv = sink; /* client() trusts srv.cert */
    ck_assert_int_eq(uv_loop_init(&loop), 0);
}

static void mail_teardown(void)
{
    hu_stop(&sink);
    uv_loop_close(&loop);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", maildir);
    ck_assert_int_eq(system(cmd), 0);
}

static void file_read(const char *name, char *out, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", maildir, name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s is missing", path);
    size_t n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    fclose(f);
}

START_TEST(mail_sent_over_starttls)
{
    struct outbound_config c;
    outbound_config_defaults(&c);
    c.ca_file = srv.cert; /* private_ok 0: the relay is the host's own, on 127.0.0.1 */
    char err[256];
    struct outbound *o = outbound_new(&loop, &c, err, sizeof err);
    ck_assert_msg(o != NULL, "%s", err);
    char u[64];
    snprintf(u, sizeof u, "smtp://127.0.0.1:%d", sink.port);
    const char msg[] = "From: carcd <carcd@example.org>\r\nTo: ann@example.org\r\n"
                       "Subject: Your turn in 2 games\r\n\r\nRoom AB12: your turn.\r\n";
    struct got g = {0}, bad = {0};
    ck_assert_int_eq(outbound_mail(o, u, "carcd@example.org", "ann@example.org", msg,
                                   sizeof msg - 1, on_answer, &g),
                     0);
    ck_assert_int_eq(outbound_mail(o, u, "carcd@example.org", "refuse@example.org", msg,
                                   sizeof msg - 1, on_answer, &bad),
                     0);
    finish(o);
    ck_assert_int_eq(g.n, 1);
    ck_assert_int_eq(g.error, 0);
    ck_assert_int_eq(g.status, 250);
    char text[2048];
    file_read("1.eml", text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "Subject: Your turn in 2 games"));
    ck_assert_ptr_nonnull(strstr(text, "Room AB12: your turn."));
    file_read("1.env", text, sizeof text);
    ck_assert_str_eq(text, "carcd@example.org ann@example.org tls\n"); /* STARTTLS taken */
    ck_assert_int_eq(bad.n, 1);
    ck_assert_int_ne(bad.error, 0); /* 550: refused by the relay */
    ck_assert_int_eq(bad.status, 550);
}
END_TEST

START_TEST(mail_refusals)
{
    struct outbound *o = client(1, 10000, 8);
    char u[64];
    snprintf(u, sizeof u, "smtp://127.0.0.1:%d", sink.port);
    struct got g = {0};
    ck_assert_int_eq(outbound_mail(o, "https://x/", "a@b", "c@d", "x", 1, on_answer, &g),
                     OUTBOUND_E_URL);
    ck_assert_int_eq(outbound_mail(o, u, "a@b", "c d@e", "x", 1, on_answer, &g), OUTBOUND_E_URL);
    ck_assert_int_eq(outbound_mail(o, u, "a@b>\r\nRCPT TO:<x@y", "c@d", "x", 1, on_answer, &g),
                     OUTBOUND_E_URL);
    ck_assert_int_eq(outbound_mail(o, u, "", "c@d", "x", 1, on_answer, &g), OUTBOUND_E_URL);
    /* https requests may not reach a relay, nor mails a web server */
    ck_assert_int_eq(outbound_post(o, u, NULL, 0, "x", 1, on_answer, &g), OUTBOUND_E_URL);
    finish(o);
    ck_assert_int_eq(g.n, 0);
}
END_TEST

Suite *suite_outbound(void)
{
    Suite *s = suite_create("outbound");
    TCase *tc = tcase_create("outbound");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, post_and_answer);
    tcase_add_test(tc, headers_reach_the_endpoint);
    tcase_add_test(tc, untrusted_without_the_ca);
    tcase_add_test(tc, retry_after_and_status);
    tcase_add_test(tc, timeouts_and_refusals);
    tcase_add_test(tc, bounded_queue_and_bad_urls);
    tcase_add_test(tc, close_answers_everything_once);
    tcase_add_test(tc, prepared_off_the_loop);
    tcase_add_test(tc, private_addresses_refused);
    tcase_add_test(tc, bad_ca_file);
    suite_add_tcase(s, tc);
    TCase *mail = tcase_create("mail");
    tcase_add_checked_fixture(mail, mail_setup, mail_teardown);
    tcase_set_timeout(mail, 30);
    tcase_add_test(mail, mail_sent_over_starttls);
    tcase_add_test(mail, mail_refusals);
    suite_add_tcase(s, mail);
    return s;
}
