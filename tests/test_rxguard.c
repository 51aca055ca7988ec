/* test_rxguard.c: server/conn/rxguard.h, the scanner that finds unmasked client
 * frames and frames sent before the handshake's answer, counts control frames,
 * and judges request heads against their bounds, fed whole streams and the
 * same streams a few bytes at a time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn/rxguard.h"
#include "err.h"
#include "tests.h"

static const char HEAD[] = "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n";

/* A client frame of n payload bytes into out: masked or not. Returns its length. */
static size_t frame(uint8_t *out, size_t n, int opcode, int masked)
{
    size_t k = 0;
    out[k++] = (uint8_t)(0x80 | opcode);
    uint8_t m = masked ? 0x80 : 0;
    if (n < 126) {
        out[k++] = (uint8_t)(m | n);
    } else if (n < 65536) {
        out[k++] = m | 126;
        out[k++] = (uint8_t)(n >> 8);
        out[k++] = (uint8_t)n;
    } else {
        out[k++] = m | 127;
        for (int i = 7; i >= 0; i--)
            out[k++] = (uint8_t)((uint64_t)n >> (8 * i));
    }
    if (masked)
        for (int i = 0; i < 4; i++)
            out[k++] = 0x80; /* a mask key with the mask bit's pattern in it */
    for (size_t i = 0; i < n; i++)
        out[k++] = 0x80; /* payload bytes that look like masked length bytes */
    return k;
}

/* Scan buf whole (step 0) or step bytes at a time; the first nonzero result. */
static int scan(struct rxguard *g, const uint8_t *buf, size_t len, size_t step)
{
    if (step == 0)
        return rxguard_bytes_scan(g, buf, len);
    for (size_t i = 0; i < len; i += step) {
        int rc = rxguard_bytes_scan(g, buf + i, len - i < step ? len - i : step);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static uint8_t buf[200000];

/* Masked frames of every length form, then (when bad) one unmasked frame. */
static int stream(size_t step, int bad, uint64_t *frames_end)
{
    struct rxguard g;
    rxguard_http_start(&g, NULL);
    ck_assert_int_eq(scan(&g, (const uint8_t *)HEAD, sizeof HEAD - 1, step), 0);
    ck_assert_int_eq(rxguard_ws_start(&g), 0);
    size_t len = 0;
    static const size_t sizes[] = {0, 1, 125, 126, 65535, 65536, 3};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        len += frame(buf + len, sizes[i], i % 2 ? 2 : 1, 1);
    *frames_end = len;
    if (bad)
        len += frame(buf + len, 5, 9, 0);
    len += frame(buf + len, 4, 1, 1);
    return scan(&g, buf, len, step);
}

START_TEST(test_masked_frames_pass)
{
    uint64_t end;
    for (size_t step = 0; step <= 7; step++)
        ck_assert_int_eq(stream(step, 0, &end), 0);
}
END_TEST

START_TEST(test_unmasked_frame_is_found)
{
    uint64_t end;
    for (size_t step = 0; step <= 7; step++)
        ck_assert_int_eq(stream(step, 1, &end), CARC_E_INVAL);
}
END_TEST

START_TEST(test_after_a_finding_nothing_more)
{
    struct rxguard g;
    rxguard_http_start(&g, NULL);
    rxguard_bytes_scan(&g, (const uint8_t *)HEAD, sizeof HEAD - 1);
    ck_assert_int_eq(rxguard_ws_start(&g), 0);
    uint8_t f[8];
    size_t n = frame(f, 2, 1, 0);
    ck_assert_int_eq(rxguard_bytes_scan(&g, f, n), CARC_E_INVAL);
    ck_assert_int_eq(g.mode, RXGUARD_DONE);
    ck_assert_int_eq(rxguard_bytes_scan(&g, f, n), 0); /* reported once */
}
END_TEST

START_TEST(test_bytes_before_the_answer)
{
    struct rxguard g;
    uint8_t f[16];
    size_t n = frame(f, 2, 1, 1);
    /* Headers alone, in pieces that split "\r\n\r\n": fine. */
    rxguard_http_start(&g, NULL);
    for (size_t i = 0; i < sizeof HEAD - 1; i++)
        rxguard_bytes_scan(&g, (const uint8_t *)HEAD + i, 1);
    ck_assert_int_eq(rxguard_ws_start(&g), 0);
    /* A frame right behind the upgrade request: refused. */
    rxguard_http_start(&g, NULL);
    rxguard_bytes_scan(&g, (const uint8_t *)HEAD, sizeof HEAD - 1);
    rxguard_bytes_scan(&g, f, n);
    ck_assert_int_eq(rxguard_ws_start(&g), CARC_E_INVAL);
    /* Headers not finished (no blank line yet): refused too. */
    rxguard_http_start(&g, NULL);
    rxguard_bytes_scan(&g, (const uint8_t *)"GET /ws HTTP/1.1\r\n\r", 19);
    ck_assert_int_eq(rxguard_ws_start(&g), CARC_E_INVAL);
    /* An earlier keep-alive request, then the upgrade: fine. */
    rxguard_http_start(&g, NULL);
    rxguard_bytes_scan(&g, (const uint8_t *)"GET / HTTP/1.1\r\n\r\n", 18);
    rxguard_bytes_scan(&g, (const uint8_t *)HEAD, sizeof HEAD - 1);
    ck_assert_int_eq(rxguard_ws_start(&g), 0);
}
END_TEST

/* Control frames (ping 9, pong 10, close 8) among data frames, their headers
 * and payloads split across reads at every step: each is counted once. */
START_TEST(test_control_frames_are_counted)
{
    static const struct {
        size_t n;
        int op, fin;
    } frames[] = {{5, 9, 1},   {0, 9, 1},     {125, 10, 1}, {200, 1, 0}, {3, 9, 1},
                  {300, 0, 1}, {70000, 2, 1}, {2, 8, 1},    {0, 10, 1}};
    size_t len = 0;
    uint64_t want = 0;
    for (size_t i = 0; i < sizeof frames / sizeof *frames; i++) {
        size_t at = len;
        len += frame(buf + len, frames[i].n, frames[i].op, 1);
        if (!frames[i].fin)
            buf[at] &= 0x7f;
        want += frames[i].op >= 8;
    }
    for (size_t step = 0; step <= 7; step++) {
        struct rxguard g;
        rxguard_http_start(&g, NULL);
        ck_assert_int_eq(scan(&g, (const uint8_t *)HEAD, sizeof HEAD - 1, step), 0);
        ck_assert_int_eq(rxguard_ws_start(&g), 0);
        ck_assert_int_eq(scan(&g, buf, len, step), 0);
        ck_assert_msg(g.controls == want, "step %zu: %llu control frames, not %llu", step,
                      (unsigned long long)g.controls, (unsigned long long)want);
    }
    /* A ping flood in one read: every frame. */
    struct rxguard g;
    rxguard_http_start(&g, NULL);
    rxguard_bytes_scan(&g, (const uint8_t *)HEAD, sizeof HEAD - 1);
    ck_assert_int_eq(rxguard_ws_start(&g), 0);
    len = 0;
    for (int i = 0; i < 1000; i++)
        len += frame(buf + len, 0, 9, 1);
    ck_assert_int_eq(rxguard_bytes_scan(&g, buf, len), 0);
    ck_assert_uint_eq(g.controls, 1000);
}
END_TEST

/* ---- request heads ---- */

static uint64_t known_names[3];
static struct rxguard_http_limits lim = {2048, 32, 40, 4096, 7168, known_names, 3};

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void known_init(void)
{
    known_names[0] = rxguard_name_hash("host", 4);
    known_names[1] = rxguard_name_hash("user-agent", 10);
    known_names[2] = rxguard_name_hash("connection", 10);
    qsort(known_names, 3, sizeof *known_names, u64_cmp);
}

static char head[20000];

/* Scan the head in head[] whole and in steps of 1, 2 and 7 bytes: the same
 * verdict every time (0 or the status); g gets the whole scan's state. */
static int judge(struct rxguard *g)
{
    int status = -1;
    static const size_t steps[] = {0, 1, 2, 7};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        rxguard_http_start(g, &lim);
        int rc = scan(g, (const uint8_t *)head, strlen(head), steps[i]);
        int got = rc == CARC_E_TOO_BIG ? g->status : rc;
        ck_assert_msg(rc == 0 || (rc == CARC_E_TOO_BIG && g->mode == RXGUARD_DONE), "rc %d", rc);
        ck_assert_msg(status < 0 || got == status, "step %zu: %d, not %d", steps[i], got, status);
        status = got;
    }
    rxguard_http_start(g, &lim);
    scan(g, (const uint8_t *)head, strlen(head), 0);
    return status;
}

/* "GET <target> HTTP/1.1\r\n" then fields, then the blank line. */
static int target_of(size_t len, const char *fields)
{
    struct rxguard g;
    int k = snprintf(head, sizeof head, "GET /");
    memset(head + k, 'a', len - 1);
    snprintf(head + k + len - 1, sizeof head - (size_t)k - len + 1, " HTTP/1.1\r\n%s\r\n", fields);
    return judge(&g);
}

START_TEST(test_head_target_and_params)
{
    known_init();
    ck_assert_int_eq(target_of(2047, "Host: x\r\n"), 0);
    ck_assert_int_eq(target_of(2048, "Host: x\r\n"), 414);
    ck_assert_int_eq(target_of(5000, "Host: x\r\n"), 414);
    /* 32 parameters pass, 33 do not; '&' and ';' both separate them, in the
     * path too (lws splits it there as well). */
    struct rxguard g;
    char *p = head + sprintf(head, "GET /api/games?p0=1");
    for (int i = 1; i < 32; i++)
        p += sprintf(p, "%c%c=1", i % 2 ? '&' : ';', 'a' + i % 26);
    strcpy(p, " HTTP/1.1\r\nHost: x\r\n\r\n");
    ck_assert_int_eq(judge(&g), 0);
    sprintf(p, "&z=1 HTTP/1.1\r\nHost: x\r\n\r\n");
    ck_assert_int_eq(judge(&g), 400);
    ck_assert_str_eq(g.why, "too many query parameters");
    p = head + sprintf(head, "GET /a&b;c&d");
    for (int i = 0; i < 40; i++)
        p += sprintf(p, "&x");
    strcpy(p, " HTTP/1.1\r\n\r\n");
    ck_assert_int_eq(judge(&g), 400); /* no '?': still lws' fragments */
    ck_assert_str_eq(g.why, "too many query parameters");
    /* CR LF before the request line are skipped, not a way around the bound. */
    ck_assert_int_eq(target_of(2048, ""), 414);
    memmove(head + 4, head, strlen(head) + 1);
    memcpy(head, "\r\n\r\n", 4);
    ck_assert_int_eq(judge(&g), 414);
}
END_TEST

START_TEST(test_head_fields)
{
    known_init();
    struct rxguard g;
    /* 40 fields pass, 41 do not. */
    static char fields[9000];
    fields[0] = '\0';
    for (int i = 0; i < 40; i++)
        sprintf(fields + strlen(fields), "X-F%d: v\r\n", i);
    ck_assert_int_eq(target_of(10, fields), 0);
    strcat(fields, "Host: x\r\n");
    ck_assert_int_eq(target_of(10, fields), 431);
    /* Unknown fields' values add up, spaces after the colon left out; known
     * ones (lws bounds those itself) do not count. */
    static char big[9000];
    memset(big, 'u', 5000);
    big[5000] = '\0';
    snprintf(fields, sizeof fields, "Host: x\r\nX-Long:    %.4095s\r\n", big);
    ck_assert_int_eq(target_of(10, fields), 0);
    snprintf(fields, sizeof fields, "Host: x\r\nX-Long: %.4096s\r\n", big);
    ck_assert_int_eq(target_of(10, fields), 431);
    snprintf(fields, sizeof fields, "X-Long: %.2100s\r\nx-long: %.2100s\r\n", big, big);
    ck_assert_int_eq(target_of(10, fields), 431);
    snprintf(fields, sizeof fields, "X-A: %.2100s\r\nX-B: %.2100s\r\n", big, big);
    ck_assert_int_eq(target_of(10, fields), 431);
    ck_assert_int_eq(judge(&g), 431);
    ck_assert_str_eq(g.why, "unknown header fields too large");
    snprintf(fields, sizeof fields, "User-Agent: %.3000s\r\nUSER-AGENT: %.3000s\r\n", big, big);
    ck_assert_int_eq(target_of(10, fields), 0);
}
END_TEST

START_TEST(test_head_size_and_count)
{
    known_init();
    struct rxguard g;
    static char fields[9000], big[9000];
    memset(big, 'u', sizeof big - 1);
    /* Known fields only: the head's own bound. */
    snprintf(fields, sizeof fields, "User-Agent: %.3600s\r\nConnection: %.3600s\r\n", big, big);
    ck_assert_int_eq(target_of(10, fields), 431);
    ck_assert_int_eq(judge(&g), 431);
    ck_assert_str_eq(g.why, "request head too large");
    snprintf(fields, sizeof fields, "User-Agent: %.3000s\r\nConnection: %.3000s\r\n", big, big);
    ck_assert_int_eq(target_of(10, fields), 0);
    /* Heads are counted: a bad one after two good ones reports 2 before it. */
    char *p = head;
    p += sprintf(p, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    p += sprintf(p, "GET /b HTTP/1.1\n\n");
    p += sprintf(p, "GET /");
    memset(p, 'a', 3000);
    strcpy(p + 3000, " HTTP/1.1\r\n\r\n");
    ck_assert_int_eq(judge(&g), 414);
    ck_assert_uint_eq(g.heads, 2);
    /* Nothing is looked at after a verdict. */
    uint64_t total = g.total;
    ck_assert_int_eq(rxguard_bytes_scan(&g, (const uint8_t *)"GET", 3), 0);
    ck_assert_uint_eq(g.total, total + 3);
}
END_TEST

/* A head's Content-Length bytes are a body, not the next head: a body with
 * spaces, CR LF and "\r\n\r\n" in it, then a second request, make two heads
 * and no verdict, however the bytes are cut. */
START_TEST(test_body_is_skipped)
{
    known_init();
    struct rxguard g;
    static const char body[] = "{\"name\": \"a\"}\r\n\r\nGET /x HTTP/1.1\r\n\r\n";
    snprintf(head, sizeof head,
             "POST /api/session HTTP/1.1\r\nContent-Length: %zu\r\nX-A: 1\r\n\r\n%s"
             "GET /api/me HTTP/1.1\r\nHost: x\r\n\r\n",
             sizeof body - 1, body);
    ck_assert_int_eq(judge(&g), 0);
    ck_assert_uint_eq(g.heads, 2);
    ck_assert_uint_eq(g.skip, 0);
    /* Without the skip, a body of 7000 bytes would pass the head's bound. */
    char *p = head + sprintf(head, "POST /a HTTP/1.1\r\ncontent-length:  7000 \r\n\r\n");
    memset(p, 'x', 7000);
    strcpy(p + 7000, "GET / HTTP/1.1\r\n\r\n");
    ck_assert_int_eq(judge(&g), 0);
    ck_assert_uint_eq(g.heads, 2);
    /* A length that is no number skips nothing (carcd refuses it and closes). */
    snprintf(head, sizeof head,
             "POST /a HTTP/1.1\r\nContent-Length: 1x\r\n\r\nGET / HTTP/1.1\r\n\r\n");
    ck_assert_int_eq(judge(&g), 0);
    ck_assert_uint_eq(g.heads, 2);
}
END_TEST

Suite *suite_rxguard(void)
{
    Suite *s = suite_create("rxguard");
    TCase *tc = tcase_create("rxguard");
    tcase_add_test(tc, test_masked_frames_pass);
    tcase_add_test(tc, test_unmasked_frame_is_found);
    tcase_add_test(tc, test_after_a_finding_nothing_more);
    tcase_add_test(tc, test_bytes_before_the_answer);
    tcase_add_test(tc, test_control_frames_are_counted);
    tcase_add_test(tc, test_head_target_and_params);
    tcase_add_test(tc, test_head_fields);
    tcase_add_test(tc, test_head_size_and_count);
    tcase_add_test(tc, test_body_is_skipped);
    suite_add_tcase(s, tc);
    return s;
}
