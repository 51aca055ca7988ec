/* test_metrics.c: server/metrics/: the exposition text of a small registry,
 * byte for byte (histogram buckets cumulative, +Inf, _sum and _count, label
 * and help escaping, numbers), then carcd's own families as the lobby feeds
 * them: message types and error codes read from what is queued, close codes,
 * moves and broadcasts, rooms and connections, and that no room id, token or
 * password shows up in the text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn/sbuf.h"
#include "http/api.h"
#include "metrics/metrics.h"
#include "room_util.h"
#include "tests.h"

static const char expected_small[] = "# HELP t_things_total Things.\\nWith \\\\ a backslash\n"
                                     "# TYPE t_things_total counter\n"
                                     "t_things_total{kind=\"a\"} 3\n"
                                     "t_things_total{kind=\"b\\\"q\\\\z\\nn\"} 0.5\n"
                                     "# HELP t_level Level \"quoted\".\n"
                                     "# TYPE t_level gauge\n"
                                     "t_level -2.5\n"
                                     "# HELP t_seconds Latency.\n"
                                     "# TYPE t_seconds histogram\n"
                                     "t_seconds_bucket{le=\"0.125\"} 2\n"
                                     "t_seconds_bucket{le=\"1\"} 3\n"
                                     "t_seconds_bucket{le=\"8\"} 4\n"
                                     "t_seconds_bucket{le=\"+Inf\"} 5\n"
                                     "t_seconds_sum 20.6875\n"
                                     "t_seconds_count 5\n";

START_TEST(test_exposition_exact)
{
    static const char *const kinds[] = {"a", "b\"q\\z\nn"};
    double things[2] = {0, 0}, level = 0, sum = 0;
    uint64_t buckets[4] = {0};
    static const double bounds[] = {0.125, 1, 8};
    struct metrics_family c = {.name = "t_things_total",
                               .help = "Things.\nWith \\ a backslash",
                               .kind = METRICS_COUNTER,
                               .label = "kind",
                               .values = kinds,
                               .nseries = 2,
                               .v = things};
    struct metrics_family g = {.name = "t_level",
                               .help = "Level \"quoted\".",
                               .kind = METRICS_GAUGE,
                               .nseries = 1,
                               .v = &level};
    struct metrics_family h = {.name = "t_seconds",
                               .help = "Latency.",
                               .kind = METRICS_HISTOGRAM,
                               .nseries = 1,
                               .bounds = bounds,
                               .nbounds = 3,
                               .buckets = buckets,
                               .sum = &sum};
    metrics_family_add(&c, 0, 2);
    metrics_family_add(&c, 0, 1);
    metrics_family_add(&c, 1, 0.5);
    metrics_family_add(&c, 2, 100); /* out of range: nothing */
    metrics_family_add(&c, -1, 100);
    metrics_family_set(&g, 0, 7);
    metrics_family_set(&g, 0, -2.5);
    /* le is inclusive: 0.125 falls in the first bucket; 16 only in +Inf. */
    const double xs[] = {0.0625, 0.125, 0.5, 4, 16};
    for (int i = 0; i < 5; i++)
        metrics_family_observe(&h, 0, xs[i]);
    ck_assert_uint_eq(buckets[0], 2); /* stored per bucket, summed when written */
    ck_assert_uint_eq(buckets[1], 1);
    ck_assert_uint_eq(buckets[3], 1);

    struct metrics_text t = {0};
    metrics_text_family(&t, &c);
    metrics_text_family(&t, &g);
    metrics_text_family(&t, &h);
    char *text = metrics_text_take(&t);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, expected_small);
    free(text);
    ck_assert_ptr_null(t.p); /* taken: t is empty again */
}
END_TEST

/* A histogram with a label: the label comes first, le last; each series its
 * own cumulative buckets, sum and count. */
START_TEST(test_histogram_labelled)
{
    static const char *const codes[] = {"x", "y"};
    static const double bounds[] = {1, 2};
    uint64_t buckets[2 * 3] = {0};
    double sums[2] = {0, 0};
    struct metrics_family h = {.name = "t_lat_seconds",
                               .help = "L.",
                               .kind = METRICS_HISTOGRAM,
                               .label = "code",
                               .values = codes,
                               .nseries = 2,
                               .bounds = bounds,
                               .nbounds = 2,
                               .buckets = buckets,
                               .sum = sums};
    metrics_family_observe(&h, 1, 1.5);
    metrics_family_observe(&h, 1, 3);
    metrics_family_observe(&h, 2, 1); /* no such series */
    struct metrics_text t = {0};
    metrics_text_family(&t, &h);
    char *text = metrics_text_take(&t);
    ck_assert_str_eq(text, "# HELP t_lat_seconds L.\n"
                           "# TYPE t_lat_seconds histogram\n"
                           "t_lat_seconds_bucket{code=\"x\",le=\"1\"} 0\n"
                           "t_lat_seconds_bucket{code=\"x\",le=\"2\"} 0\n"
                           "t_lat_seconds_bucket{code=\"x\",le=\"+Inf\"} 0\n"
                           "t_lat_seconds_sum{code=\"x\"} 0\n"
                           "t_lat_seconds_count{code=\"x\"} 0\n"
                           "t_lat_seconds_bucket{code=\"y\",le=\"1\"} 0\n"
                           "t_lat_seconds_bucket{code=\"y\",le=\"2\"} 1\n"
                           "t_lat_seconds_bucket{code=\"y\",le=\"+Inf\"} 2\n"
                           "t_lat_seconds_sum{code=\"y\"} 4.5\n"
                           "t_lat_seconds_count{code=\"y\"} 2\n");
    free(text);
}
END_TEST

START_TEST(test_numbers)
{
    char out[40];
    const struct {
        double x;
        const char *text;
    } cases[] = {
        {0, "0"},
        {42, "42"},
        {-7, "-7"},
        {0.1, "0.1"},
        {0.0005, "0.0005"},
        {2.5e-7, "2.5e-07"},
        {1e21, "1e+21"},
        {9007199254740991.0, "9007199254740991"},
        {1.0 / 3, "0.3333333333333333"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        metrics_number_format(cases[i].x, out, sizeof out);
        ck_assert_str_eq(out, cases[i].text);
        ck_assert(strtod(out, NULL) == cases[i].x);
    }
    metrics_number_format(INFINITY, out, sizeof out);
    ck_assert_str_eq(out, "+Inf");
    metrics_number_format(-INFINITY, out, sizeof out);
    ck_assert_str_eq(out, "-Inf");
    metrics_number_format(NAN, out, sizeof out);
    ck_assert_str_eq(out, "NaN");
}
END_TEST

static void sent(const char *text)
{
    struct sbuf *b = sbuf_new(text, strlen(text));
    metrics_sent_count(b->type, b->code);
    sbuf_unref(b);
}

/* Types and codes come from the text's head and the fixed tables only: a
 * type or code that is not in them counts as "other", never as itself. */
START_TEST(test_sent_classified)
{
    double delta = metrics_value("carcd_messages_sent_total", "delta");
    double err = metrics_value("carcd_messages_sent_total", "error");
    double other = metrics_value("carcd_messages_sent_total", "other");
    double edge = metrics_value("carcd_errors_total", "edge_mismatch");
    double eother = metrics_value("carcd_errors_total", "other");
    ck_assert(delta >= 0 && err >= 0 && other >= 0 && edge >= 0 && eother >= 0);
    sent("{\"v\":2,\"type\":\"delta\",\"seq\":3,\"events\":[],\"patch\":[]}");
    sent("{\"v\":2,\"type\":\"error\",\"ref\":7,\"code\":\"edge_mismatch\",\"message\":\"x\"}");
    sent("{\"v\":2,\"type\":\"error\",\"code\":\"k3J9xQ2a\",\"message\":\"x\"}");
    sent("{\"v\":2,\"type\":\"k3J9xQ2a\"}");
    sent("not json");
    ck_assert(metrics_value("carcd_messages_sent_total", "delta") == delta + 1);
    ck_assert(metrics_value("carcd_messages_sent_total", "error") == err + 2);
    ck_assert(metrics_value("carcd_messages_sent_total", "other") == other + 2);
    ck_assert(metrics_value("carcd_errors_total", "edge_mismatch") == edge + 1);
    ck_assert(metrics_value("carcd_errors_total", "other") == eother + 1);
    ck_assert(metrics_value("carcd_messages_sent_total", "k3J9xQ2a") == -1);

    double c1008 = metrics_value("carcd_closes_total", "1008");
    double cother = metrics_value("carcd_closes_total", "other");
    metrics_close_count(SESSION_CLOSE_POLICY);
    metrics_close_count(4999);
    ck_assert(metrics_value("carcd_closes_total", "1008") == c1008 + 1);
    ck_assert(metrics_value("carcd_closes_total", "other") == cother + 1);

    /* Every type of the server's table has its series (notice and redirect
     * were once "other"), and every close code the server asks for but 1002
     * (metrics/ lists them by number, below conn/). */
    for (int t = PROTO_S_UNKNOWN + 1; t < PROTO_S_COUNT; t++)
        ck_assert(metrics_value("carcd_messages_sent_total", proto_server_type_name(t)) >= 0);
    double notice = metrics_value("carcd_messages_sent_total", "notice");
    sent("{\"v\":2,\"type\":\"notice\",\"text\":\"x\"}");
    ck_assert(metrics_value("carcd_messages_sent_total", "notice") == notice + 1);
    static const int asked[] = {SESSION_CLOSE_GOING_AWAY, SESSION_CLOSE_POLICY,
                                SESSION_CLOSE_TOO_BIG,    SESSION_CLOSE_TAKEOVER,
                                SESSION_CLOSE_OVERFLOW,   SESSION_CLOSE_IDLE,
                                SESSION_CLOSE_MOVED};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
        char label[16];
        snprintf(label, sizeof label, "%d", asked[i]);
        double before = metrics_value("carcd_closes_total", label);
        ck_assert(before >= 0);
        metrics_close_count(asked[i]);
        ck_assert(metrics_value("carcd_closes_total", label) == before + 1);
    }
}
END_TEST

/* carcd_upgrades_refused_total{reason}: a series per reason of the table,
 * nothing for a reason outside it. */
START_TEST(test_upgrades_refused)
{
    double origin = metrics_value("carcd_upgrades_refused_total", "origin");
    ck_assert(origin >= 0);
    metrics_upgrade_refused_count(METRICS_REFUSED_ORIGIN);
    metrics_upgrade_refused_count(METRICS_REFUSED_COUNT);
    metrics_upgrade_refused_count(-1);
    ck_assert(metrics_value("carcd_upgrades_refused_total", "origin") == origin + 1);
}
END_TEST

/* What net/net_listen.c counts when accept fails: refusals for want of a
 * descriptor and pauses, both in the exposition as counters. */
START_TEST(test_accept_counted)
{
    double refused = metrics_value("carcd_connections_refused_total", NULL);
    double pauses = metrics_value("carcd_accept_pauses_total", NULL);
    ck_assert(refused >= 0 && pauses >= 0);
    metrics_conn_refused_count();
    metrics_conn_refused_count();
    metrics_accept_pause_count();
    ck_assert(metrics_value("carcd_connections_refused_total", NULL) == refused + 2);
    ck_assert(metrics_value("carcd_accept_pauses_total", NULL) == pauses + 1);
    char *text = metrics_exposition(NULL, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "\n# TYPE carcd_connections_refused_total counter\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n# TYPE carcd_accept_pauses_total counter\n"));
    free(text);
}
END_TEST

/* The value of a series line ("name{labels}") in a fresh exposition; -1 when missing. */
static double series_value(const char *series)
{
    char *text = metrics_exposition(NULL, NULL);
    ck_assert_ptr_nonnull(text);
    char needle[160];
    snprintf(needle, sizeof needle, "\n%s ", series);
    const char *p = strstr(text, needle);
    double v = p != NULL ? strtod(p + strlen(needle), NULL) : -1;
    free(text);
    return v;
}

/* E-mail (notify/mail.c): two labels, every series there from the start. */
START_TEST(test_mail_counted)
{
    const char *sent = "carcd_mail_sent_total{kind=\"digest\",result=\"sent\"}";
    const char *failed = "carcd_mail_sent_total{kind=\"reminder\",result=\"failed\"}";
    double s0 = series_value(sent), f0 = series_value(failed);
    ck_assert(s0 >= 0 && f0 >= 0);
    ck_assert(series_value("carcd_mail_sent_total{kind=\"digest\",result=\"failed\"}") >= 0);
    ck_assert(series_value("carcd_mail_sent_total{kind=\"reminder\",result=\"sent\"}") >= 0);
    metrics_mail_count(METRICS_MAIL_DIGEST, 1);
    metrics_mail_count(METRICS_MAIL_DIGEST, 1);
    metrics_mail_count(METRICS_MAIL_REMINDER, 0);
    metrics_mail_count(7, 1); /* no such kind: nothing */
    ck_assert(series_value(sent) == s0 + 2);
    ck_assert(series_value(failed) == f0 + 1);
    char *text = metrics_exposition(NULL, NULL);
    ck_assert_ptr_nonnull(strstr(text, "\n# TYPE carcd_mail_sent_total counter\n"));
    free(text);
}
END_TEST

/* Analyses (analysis/analysis.c): done and failed, the CPU seconds, the queue. */
START_TEST(test_analyses_counted)
{
    const char *done = "carcd_analyses_total{result=\"done\"}";
    const char *failed = "carcd_analyses_total{result=\"failed\"}";
    double d0 = series_value(done), f0 = series_value(failed);
    double s0 = series_value("carcd_analysis_seconds_total");
    ck_assert(d0 >= 0 && f0 >= 0 && s0 >= 0);
    metrics_analysis_count(1, 2.5);
    metrics_analysis_count(0, 0.5);
    metrics_analysis_queue_set(3);
    ck_assert(series_value(done) == d0 + 1);
    ck_assert(series_value(failed) == f0 + 1);
    ck_assert(series_value("carcd_analysis_seconds_total") == s0 + 3);
    ck_assert(series_value("carcd_analysis_queue") == 3);
    metrics_analysis_queue_set(0);
    char *text = metrics_exposition(NULL, NULL);
    ck_assert_ptr_nonnull(strstr(text, "\n# TYPE carcd_analyses_total counter\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n# TYPE carcd_analysis_queue gauge\n"));
    free(text);
}
END_TEST

static const char *const secret_pw = "hunter2-secret-pw";

/* A whole game through the lobby: what the fakes send and get is counted, a
 * move and its broadcast (no store: at once), and the exposition read now
 * knows the room's phase and its connections, but not its id, the seat
 * tokens or the password. */
START_TEST(test_lobby_counted)
{
    double recv_play = metrics_value("carcd_messages_received_total", "play");
    double invalid = metrics_value("carcd_messages_received_total", "invalid");
    double moves = metrics_value("carcd_moves_total", NULL);
    double bcast = metrics_value("carcd_move_broadcast_seconds", NULL);
    double resumes = metrics_value("carcd_resumes_total", NULL);
    double welcome = metrics_value("carcd_messages_sent_total", "welcome");
    double takeovers = metrics_value("carcd_closes_total", "4000");

    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new(), *w = fake_new();
    ck_assert(metrics_value("carcd_messages_sent_total", "welcome") == welcome + 3);
    char extra[128];
    snprintf(extra, sizeof extra, "2, \"password\": \"%s\"", secret_pw);
    struct room *r = create(a, extra);
    say(b, "\"type\":\"join\",\"room\":\"%s\",\"name\":\"Bob\",\"password\":\"%s\"", a->room,
        secret_pw);
    b->seat = (int)jint(expect(b, "joined"), "seat");
    snprintf(b->token, sizeof b->token, "%s", jstr(b->last, "token"));
    drain(a);
    drain(b);
    raw(w, "{\"v\":2,\"type\":");
    expect_error(w, "malformed_json");
    ck_assert(metrics_value("carcd_messages_received_total", "invalid") == invalid + 1);

    char *text = api_metrics_render(lb, NULL);
    ck_assert_ptr_nonnull(strstr(text, "carcd_rooms{phase=\"lobby\"} 1\n"));
    ck_assert_ptr_nonnull(strstr(text, "carcd_connections{kind=\"player\"} 2\n"));
    ck_assert_ptr_nonnull(strstr(text, "carcd_connections{kind=\"lobby\"} 1\n"));
    ck_assert_ptr_null(strstr(text, "carcd_loop_")); /* no loopstat given */
    free(text);

    say(a, "\"type\":\"start\"");
    drain(a);
    drain(b);
    struct fake *p = current(r, a, b);
    struct proto_client_legal legal[1];
    ck_assert_int_gt(proto_client_legal(p->doc, legal, 1), 0);
    say(p, "\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,\"meeple\":null",
        carc_tiles[proto_client_tile(p->doc)].id, legal[0].x, legal[0].y, legal[0].rot * 90);
    expect(p, "delta");
    ck_assert(metrics_value("carcd_messages_received_total", "play") == recv_play + 1);
    ck_assert(metrics_value("carcd_moves_total", NULL) == moves + 1);
    ck_assert(metrics_value("carcd_move_broadcast_seconds", NULL) == bcast + 1);

    /* b comes back on a new connection with its token. */
    struct fake *b2 = fake_new();
    say(b2, "\"type\":\"resume\",\"room\":\"%s\",\"token\":\"%s\"", a->room, b->token);
    expect(b2, "joined");
    ck_assert(metrics_value("carcd_resumes_total", NULL) == resumes + 1);
    /* b's first connection was closed for the new one: the lobby's sessions report closes */
    ck_assert(metrics_value("carcd_closes_total", "4000") == takeovers + 1);

    text = api_metrics_render(lb, NULL);
    ck_assert_ptr_nonnull(strstr(text, "carcd_rooms{phase=\"playing\"} 1\n"));
    ck_assert_ptr_null(strstr(text, a->room));
    ck_assert_ptr_null(strstr(text, a->token));
    ck_assert_ptr_null(strstr(text, b->token));
    ck_assert_ptr_null(strstr(text, secret_pw));
    ck_assert_ptr_null(strstr(text, "Bob"));
    ck_assert_ptr_nonnull(strstr(text, "\nprocess_resident_memory_bytes "));
    ck_assert_ptr_nonnull(strstr(text, "\nprocess_open_fds "));
    free(text);
}
END_TEST

static int route(struct api *a, const char *method, const char *auth, struct api_reply *r)
{
    api_route_metrics(a, method, auth, r);
    return r->status;
}

/* The public port's /metrics: 404 without a token configured, whatever is
 * sent; with one, 401 (and a Bearer challenge) unless the header is
 * "Bearer " (the scheme in any case) and exactly the token; the metrics listener asks for nothing
 * but serves only /metrics and /healthz. */
START_TEST(test_api_metrics_routes)
{
    static const char token[] = "0123456789abcdef-metrics";
    struct api a;
    memset(&a, 0, sizeof a);
    a.lobby = lb;
    struct api_reply r;
    ck_assert_int_eq(route(&a, "GET", NULL, &r), 404);
    api_reply_free(&r);
    ck_assert_int_eq(route(&a, "GET", "Bearer 0123456789abcdef-metrics", &r), 404);
    api_reply_free(&r);
    api_route(&a, "GET", "/metrics", &r); /* through the ordinary routes: the same */
    ck_assert_int_eq(r.status, 404);
    api_reply_free(&r);

    a.metrics_token = token;
    const char *const refused[] = {NULL,
                                   "",
                                   "Bearer",
                                   "Bearer ",
                                   "Basic 0123456789abcdef-metrics",
                                   "Bearer 0123456789abcdef-metric",
                                   "Bearer 0123456789abcdef-metricsx",
                                   "Bearer  0123456789abcdef-metrics",
                                   "Bearer 1123456789abcdef-metrics"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        ck_assert_int_eq(route(&a, "GET", refused[i], &r), 401);
        ck_assert_str_eq(r.www_authenticate, "Bearer realm=\"carcd metrics\"");
        ck_assert_ptr_null(strstr(r.body, "carcd_"));
        ck_assert_ptr_null(strstr(r.body, token));
        api_reply_free(&r);
    }
    api_route(&a, "GET", "/metrics", &r); /* no header reaches api_route */
    ck_assert_int_eq(r.status, 401);
    api_reply_free(&r);
    ck_assert_int_eq(route(&a, "POST", "Bearer 0123456789abcdef-metrics", &r), 405);
    api_reply_free(&r);
    ck_assert_int_eq(route(&a, "GET", "Bearer 0123456789abcdef-metrics", &r), 200);
    ck_assert_str_eq(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
    ck_assert_ptr_nonnull(strstr(r.body, "\n# TYPE carcd_moves_total counter\n"));
    ck_assert_ptr_null(strstr(r.body, token));
    ck_assert_uint_eq(r.len, strlen(r.body));
    api_reply_free(&r);
    ck_assert_int_eq(route(&a, "GET", "bearer 0123456789abcdef-metrics", &r), 200);
    api_reply_free(&r);
    ck_assert_int_eq(route(&a, "HEAD", "Bearer 0123456789abcdef-metrics", &r), 200);
    ck_assert(r.head);
    api_reply_free(&r);

    api_route_metrics_port(&a, "GET", "/metrics", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "# TYPE carcd_rooms gauge\n"));
    api_reply_free(&r);
    api_route_metrics_port(&a, "GET", "/healthz", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "ok");
    api_reply_free(&r);
    const char *const other[] = {"/",          "/index.html", "/api/rooms",
                                 "/api/stats", "/ws",         "/metrics/"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        api_route_metrics_port(&a, "GET", other[i], &r);
        ck_assert_int_eq(r.status, 404);
        api_reply_free(&r);
    }
    api_route_metrics_port(&a, "POST", "/metrics", &r);
    ck_assert_int_eq(r.status, 405);
    api_reply_free(&r);
}
END_TEST

Suite *suite_metrics(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("text");
    tcase_add_test(tc, test_exposition_exact);
    tcase_add_test(tc, test_mail_counted);
    tcase_add_test(tc, test_histogram_labelled);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_sent_classified);
    tcase_add_test(tc, test_upgrades_refused);
    tcase_add_test(tc, test_accept_counted);
    suite_add_tcase(s, tc);
    tc = tcase_with("lobby", setup_default);
    tcase_add_test(tc, test_lobby_counted);
    tcase_add_test(tc, test_analyses_counted);
    tcase_add_test(tc, test_api_metrics_routes);
    suite_add_tcase(s, tc);
    return s;
}
