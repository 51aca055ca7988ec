/* test_log.c: carcd's log lines (server/util/log.c): the text and JSON formats,
 * the fields of an event, JSON string escaping (quotes, control bytes, bytes
 * that are not UTF-8), lines cut to fit, and the test sink. */
#include <string.h>

#include "tests.h"
#include "util/log.h"

#define T0 1796143500123LL /* 2026-12-01T16:45:00.123Z */

static const char *line(int fmt, const struct log_fields *f, const char *text)
{
    static char buf[2048];
    size_t n = log_line_format(buf, sizeof buf, fmt, LOG_INFO, T0, f, text);
    ck_assert_uint_eq(n, strlen(buf));
    return buf;
}

START_TEST(log_json_fields)
{
    ck_assert_str_eq(
        line(LOG_JSON, NULL, "started"),
        "{\"time\":\"2026-12-01T16:45:00.123Z\",\"level\":\"info\",\"msg\":\"started\"}\n");
    struct log_fields f = {.room = "ABCD",
                           LOG_SEAT(2),
                           .code = "not_your_turn",
                           .addr = "2001:db8::1",
                           .session = 17,
                           .close = 1008};
    ck_assert_str_eq(line(LOG_JSON, &f, "x"),
                     "{\"time\":\"2026-12-01T16:45:00.123Z\",\"level\":\"info\",\"msg\":\"x\","
                     "\"room\":\"ABCD\",\"seat\":2,\"code\":\"not_your_turn\",\"close\":1008,"
                     "\"addr\":\"2001:db8::1\",\"session\":17}\n");
    /* Seat 0 is a seat; a seat not given is no key; empty strings are no keys. */
    struct log_fields g = {.room = "R", LOG_SEAT(0), .code = ""};
    ck_assert_str_eq(line(LOG_JSON, &g, "y"),
                     "{\"time\":\"2026-12-01T16:45:00.123Z\",\"level\":\"info\",\"msg\":\"y\","
                     "\"room\":\"R\",\"seat\":0}\n");
    struct log_fields h = {.room = "R", .seat = 3};
    ck_assert_ptr_null(strstr(line(LOG_JSON, &h, "y"), "seat"));
    ck_assert_str_eq(line(LOG_TEXT, &f, "x"), "carcd: info: x room=ABCD seat=2 code=not_your_turn "
                                              "close=1008 addr=2001:db8::1 session=17\n");
    ck_assert_str_eq(line(LOG_TEXT, NULL, "plain"), "carcd: info: plain\n");
    char buf[256];
    log_line_format(buf, sizeof buf, LOG_JSON, LOG_DEBUG, 5, NULL, "");
    ck_assert_str_eq(buf,
                     "{\"time\":\"1970-01-01T00:00:00.005Z\",\"level\":\"debug\",\"msg\":\"\"}\n");
}
END_TEST

START_TEST(log_json_escape)
{
    /* Quotes, backslashes, control bytes, DEL; valid UTF-8 kept as it is. */
    ck_assert_str_eq(
        line(LOG_JSON, NULL,
             "a\"b\\c\nd\te\rf\001g\037h\177i caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x82\xa1"),
        "{\"time\":\"2026-12-01T16:45:00.123Z\",\"level\":\"info\",\"msg\":"
        "\"a\\\"b\\\\c\\nd\\te\\rf\\u0001g\\u001fh\\u007fi caf\xc3\xa9 \xe2\x82\xac "
        "\xf0\x9f\x82\xa1\"}\n");
    /* Not UTF-8: a lone continuation, a cut sequence, an overlong form, a
     * surrogate, a code point past U+10FFFF, 0xff: each bad byte is U+FFFD. */
    ck_assert_str_eq(
        line(LOG_JSON, NULL, "\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xff"),
        "{\"time\":\"2026-12-01T16:45:00.123Z\",\"level\":\"info\",\"msg\":"
        "\"\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
        "\\ufffd\\ufffd\\ufffd\\ufffd|\\ufffd\"}\n");
    /* Field values are escaped too. */
    struct log_fields f = {.room = "a\"b", .addr = "x\ny"};
    ck_assert_ptr_nonnull(
        strstr(line(LOG_JSON, &f, "m"), ",\"room\":\"a\\\"b\",\"addr\":\"x\\ny\"}"));
    /* The text format keeps one event on one line. */
    ck_assert_str_eq(line(LOG_TEXT, &f, "two\nlines\x1b[31m"),
                     "carcd: info: two\\x0alines\\x1b[31m room=a\"b addr=x\\x0ay\n");
}
END_TEST

/* A line cut to fit stays one whole JSON object with its fields; an escape is
 * never cut in half. */
START_TEST(log_json_truncated)
{
    char msg[600];
    memset(msg, '"', sizeof msg - 1);
    msg[sizeof msg - 1] = '\0';
    struct log_fields f = {.room = "ROOM", LOG_SEAT(1)};
    for (size_t size = 90; size < 140; size++) {
        char buf[140];
        size_t n = log_line_format(buf, size, LOG_JSON, LOG_WARN, T0, &f, msg);
        ck_assert_uint_lt(n, size);
        ck_assert_uint_eq(n, strlen(buf));
        const char *tail = "\",\"room\":\"ROOM\",\"seat\":1}\n";
        ck_assert_msg(strcmp(buf + n - strlen(tail), tail) == 0, "%s", buf);
        /* Inside msg: only whole \" pairs. */
        const char *m = strstr(buf, "\"msg\":\"") + 7;
        size_t k = (size_t)(buf + n - strlen(tail) - m);
        ck_assert_uint_eq(k % 2, 0);
        for (size_t i = 0; i < k; i += 2)
            ck_assert(m[i] == '\\' && m[i + 1] == '"');
    }
    /* A multibyte character is kept whole or dropped. */
    char euro[400] = "";
    for (int i = 0; i < 120; i++)
        strcat(euro, "\xe2\x82\xac");
    char buf[100];
    size_t n = log_line_format(buf, sizeof buf, LOG_JSON, LOG_WARN, T0, NULL, euro);
    const char *m = strstr(buf, "\"msg\":\"") + 7;
    ck_assert_uint_eq((size_t)(buf + n - 3 - m) % 3, 0);
    ck_assert_str_eq(buf + n - 3, "\"}\n");
    /* The text format: cut, with its fields and newline. */
    n = log_line_format(buf, sizeof buf, LOG_TEXT, LOG_WARN, T0, &f, msg);
    ck_assert_uint_eq(n, sizeof buf - 1);
    ck_assert_str_eq(buf + n - 18, " room=ROOM seat=1\n");
}
END_TEST

static char sunk[1024];
static int sunk_level;

static void sink(void *ctx, int level, const char *text)
{
    (void)ctx;
    sunk_level = level;
    snprintf(sunk, sizeof sunk, "%s", text);
}

/* The sink gets the text and its fields in text form; the threshold holds. */
START_TEST(log_sink_fields)
{
    int old = log_level_get();
    log_level_set(LOG_INFO);
    log_sink_set(sink, NULL);
    sunk[0] = '\0';
    log_event(LOG_WARN, &(struct log_fields){.room = "ABCD", LOG_SEAT(2), .code = "x"}, "n=%d", 5);
    ck_assert_str_eq(sunk, "n=5 room=ABCD seat=2 code=x");
    ck_assert_int_eq(sunk_level, LOG_WARN);
    sunk[0] = '\0';
    log_event(LOG_DEBUG, NULL, "hidden");
    log_text(LOG_DEBUG, NULL, "hidden");
    ck_assert_str_eq(sunk, "");
    log_msg(LOG_ERROR, "plain %s", "text");
    ck_assert_str_eq(sunk, "plain text");
    log_sink_set(NULL, NULL);
    log_level_set(old);
    ck_assert_int_eq(log_format_find("text"), LOG_TEXT);
    ck_assert_int_eq(log_format_find("json"), LOG_JSON);
    ck_assert_int_eq(log_format_find("JSON"), -1);
}
END_TEST

static int sunk_n;

static void sink_count(void *ctx, int level, const char *text)
{
    (void)ctx;
    sunk_n++;
    sunk_level = level;
    snprintf(sunk, sizeof sunk, "%s", text);
}

/* Repeats (log.h): one message (the same text but for its numbers) writes
 * LOG_REPEAT_BURST lines at once, then one a second; the next line that gets
 * through counts those held back, and a flush writes the last one held back
 * once the message may log again. */
START_TEST(log_repeats_limited)
{
    int old = log_level_get();
    log_level_set(LOG_INFO);
    log_sink_set(sink_count, NULL);
    log_repeat_clock_set(5000);
    sunk_n = 0;
    for (int i = 0; i < 15; i++)
        log_event(LOG_WARN, &(struct log_fields){.addr = "10.0.0.1", .session = 7}, "refused %d",
                  i);
    ck_assert_int_eq(sunk_n, LOG_REPEAT_BURST);
    ck_assert_str_eq(sunk, "refused 9 addr=10.0.0.1 session=7");
    /* Other messages (also from the same format), and the same one at another
     * level, are not held back; debug lines never are. */
    log_msg(LOG_WARN, "another %d", 1);
    log_event(LOG_ERROR, NULL, "refused %d", 99);
    log_event(LOG_WARN, NULL, "%s %d", "accepted", 1);
    ck_assert_int_eq(sunk_n, LOG_REPEAT_BURST + 3);
    sunk_n--;
    log_level_set(LOG_DEBUG);
    for (int i = 0; i < 3 * LOG_REPEAT_BURST; i++)
        log_event(LOG_DEBUG, NULL, "refused %d", i);
    ck_assert_int_eq(sunk_n, 4 * LOG_REPEAT_BURST + 2);
    sunk_n -= 3 * LOG_REPEAT_BURST;
    log_level_set(LOG_INFO);
    /* Half a second: no line yet, so no flush either. */
    log_repeat_clock_set(5500);
    log_event(LOG_WARN, &(struct log_fields){.addr = "10.0.0.2"}, "refused %d", 15);
    log_repeat_flush(0);
    ck_assert_int_eq(sunk_n, LOG_REPEAT_BURST + 2);
    /* A second: the flush writes the last line held back, counting the 5 before it. */
    log_repeat_clock_set(6000);
    log_repeat_flush(0);
    ck_assert_int_eq(sunk_n, LOG_REPEAT_BURST + 3);
    ck_assert_int_eq(sunk_level, LOG_WARN);
    ck_assert_str_eq(sunk, "refused 15 (5 more like this suppressed) addr=10.0.0.2");
    log_repeat_flush(1); /* nothing is left */
    ck_assert_int_eq(sunk_n, LOG_REPEAT_BURST + 3);
    /* A steady flood gets one line a second, which counts the rest. */
    for (int t = 0; t < 3000; t += 10) {
        log_repeat_clock_set(7000 + t);
        log_event(LOG_WARN, NULL, "refused %d", t);
    }
    ck_assert_int_eq(sunk_n, LOG_REPEAT_BURST + 3 + 3);
    ck_assert_str_eq(sunk, "refused 2000 (99 more like this suppressed)");
    log_repeat_flush(1); /* at exit: at once */
    ck_assert_str_eq(sunk, "refused 2990 (98 more like this suppressed)");
    /* Lines formatted elsewhere (lws's) too: "errno 24" and "errno 23" at
     * another address are one message, "something else" another. */
    sunk_n = 0;
    for (int i = 0; i < 12; i++) {
        char text[64];
        snprintf(text, sizeof text, "lws: accept: errno %d at 0x%xabc", 20 + i % 5, 4096 * i);
        log_text(LOG_ERROR, NULL, text);
    }
    log_text(LOG_ERROR, NULL, "lws: something else");
    ck_assert_int_eq(sunk_n, LOG_REPEAT_BURST + 1);
    log_repeat_flush(1);
    ck_assert_int_eq(sunk_n, LOG_REPEAT_BURST + 2);
    ck_assert_str_eq(sunk, "lws: accept: errno 21 at 0xb000abc (1 more like this suppressed)");
    log_repeat_clock_set(-1);
    log_sink_set(NULL, NULL);
    log_level_set(old);
}
END_TEST

/* More messages held back at once than the table has slots: the one seen
 * longest ago is written out to make room, with its count, never dropped. */
START_TEST(log_repeats_table_full)
{
    log_sink_set(sink_count, NULL);
    log_repeat_clock_set(1000);
    sunk_n = 0;
    for (int k = 0; k < LOG_REPEAT_SLOTS * 2; k++) {
        char name[8] = {(char)('a' + k / 26 % 26), (char)('a' + k % 26), '\0'};
        for (int i = 0; i < LOG_REPEAT_BURST + 2; i++)
            log_event(LOG_ERROR, NULL, "message %s: %d", name, i);
    }
    /* Every message wrote its burst, and its two lines held back as one
     * line (the last, "1 more"): when its slot was taken, or at the flush. */
    int written = sunk_n;
    log_repeat_flush(1);
    int flushed = sunk_n - written;
    ck_assert_int_gt(flushed, 0);
    ck_assert_int_le(flushed, LOG_REPEAT_SLOTS);
    ck_assert_int_eq(sunk_n, LOG_REPEAT_SLOTS * 2 * (LOG_REPEAT_BURST + 1));
    ck_assert_ptr_nonnull(strstr(sunk, ": 11 (1 more like this suppressed)"));
    log_repeat_clock_set(-1);
    log_sink_set(NULL, NULL);
}
END_TEST

Suite *suite_log(void)
{
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("log");
    tcase_add_test(tc, log_json_fields);
    tcase_add_test(tc, log_json_escape);
    tcase_add_test(tc, log_json_truncated);
    tcase_add_test(tc, log_sink_fields);
    tcase_add_test(tc, log_repeats_limited);
    tcase_add_test(tc, log_repeats_table_full);
    suite_add_tcase(s, tc);
    return s;
}
