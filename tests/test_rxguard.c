/* test_rxguard.c: server/conn/rxguard.h, the scanner that finds unmasked client
 * frames and frames sent before the handshake's answer, fed whole streams and
 * the same streams one byte at a time. */
#include <stdint.h>
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
    rxguard_http_start(&g);
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
    rxguard_http_start(&g);
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
    rxguard_http_start(&g);
    for (size_t i = 0; i < sizeof HEAD - 1; i++)
        rxguard_bytes_scan(&g, (const uint8_t *)HEAD + i, 1);
    ck_assert_int_eq(rxguard_ws_start(&g), 0);
    /* A frame right behind the upgrade request: refused. */
    rxguard_http_start(&g);
    rxguard_bytes_scan(&g, (const uint8_t *)HEAD, sizeof HEAD - 1);
    rxguard_bytes_scan(&g, f, n);
    ck_assert_int_eq(rxguard_ws_start(&g), CARC_E_INVAL);
    /* Headers not finished (no blank line yet): refused too. */
    rxguard_http_start(&g);
    rxguard_bytes_scan(&g, (const uint8_t *)"GET /ws HTTP/1.1\r\n\r", 19);
    ck_assert_int_eq(rxguard_ws_start(&g), CARC_E_INVAL);
    /* An earlier keep-alive request, then the upgrade: fine. */
    rxguard_http_start(&g);
    rxguard_bytes_scan(&g, (const uint8_t *)"GET / HTTP/1.1\r\n\r\n", 18);
    rxguard_bytes_scan(&g, (const uint8_t *)HEAD, sizeof HEAD - 1);
    ck_assert_int_eq(rxguard_ws_start(&g), 0);
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
    suite_add_tcase(s, tc);
    return s;
}
