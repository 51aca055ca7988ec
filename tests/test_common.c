/* test_common.c: the error table (err.h) and the seeded PRNG (rng.h). */
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "rng.h"
#include "tests.h"

/* The table as the test sees it, built from the same X-macro. */
#define ROW(name, wire, text) {CARC_E_##name, #name, wire, text},
static const struct {
    int code;
    const char *cname;
    const char *wire;
    const char *text;
} errs[] = {CARC_ERRNO_MAP(ROW)};
#undef ROW
#define NERRS ((int)(sizeof errs / sizeof errs[0]))

START_TEST(err_codes_negative_distinct)
{
    ck_assert_int_ge(NERRS, 21);
    for (int i = 0; i < NERRS; i++) {
        ck_assert_int_lt(errs[i].code, 0);
        for (int j = i + 1; j < NERRS; j++)
            ck_assert_int_ne(errs[i].code, errs[j].code);
    }
    ck_assert_int_eq(CARC_OK, 0);
}
END_TEST

START_TEST(err_wire_names_distinct)
{
    for (int i = 0; i < NERRS; i++) {
        const char *w = carc_err_name(errs[i].code);
        ck_assert_str_eq(w, errs[i].wire);
        ck_assert_str_ne(w, "ok");
        ck_assert_str_ne(w, "unknown");
        ck_assert_int_gt((int)strlen(w), 0);
        /* wire names are lower_snake_case */
        for (const char *p = w; *p; p++)
            ck_assert_msg((*p >= 'a' && *p <= 'z') || *p == '_', "bad char in %s", w);
        for (int j = i + 1; j < NERRS; j++)
            ck_assert_str_ne(w, carc_err_name(errs[j].code));
    }
}
END_TEST

START_TEST(err_from_name_round_trip)
{
    for (int i = 0; i < NERRS; i++)
        ck_assert_int_eq(carc_err_from_name(carc_err_name(errs[i].code)), errs[i].code);
    ck_assert_int_eq(carc_err_from_name("no_such_error"), 0);
    ck_assert_int_eq(carc_err_from_name(""), 0);
    ck_assert_int_eq(carc_err_from_name("EDGE_MISMATCH"), 0);
    ck_assert_int_eq(carc_err_from_name("edge_mismatch"), CARC_E_EDGE);
    ck_assert_int_eq(carc_err_from_name("game_over"), CARC_E_OVER);
}
END_TEST

START_TEST(err_names_out_of_range)
{
    ck_assert_str_eq(carc_err_name(0), "ok");
    ck_assert_str_eq(carc_err_name(1), "unknown");
    ck_assert_str_eq(carc_err_name(-NERRS - 1), "unknown");
    ck_assert_str_eq(carc_err_name(-100000), "unknown");
    ck_assert_ptr_nonnull(carc_err_str(-100000));
    ck_assert_ptr_nonnull(carc_err_str(1));
}
END_TEST

START_TEST(err_texts)
{
    for (int i = 0; i < NERRS; i++) {
        ck_assert_str_eq(carc_err_str(errs[i].code), errs[i].text);
        ck_assert_int_gt((int)strlen(errs[i].text), 0);
        for (int j = i + 1; j < NERRS; j++)
            ck_assert_str_ne(errs[i].text, errs[j].text);
    }
    ck_assert_str_ne(carc_err_str(0), carc_err_str(CARC_E_INVAL));
}
END_TEST

START_TEST(err_set_keeps_first)
{
    struct carc_error e = {0};
    ck_assert_int_eq(carc_error_set(&e, CARC_E_EDGE, "edge %s of (%d,%d)", "N", 1, -2),
                     CARC_E_EDGE);
    ck_assert_int_eq(e.code, CARC_E_EDGE);
    ck_assert_str_eq(e.text, "edge N of (1,-2)");
    /* a second error returns its own code but leaves the first in place */
    ck_assert_int_eq(carc_error_set(&e, CARC_E_TURN, "later %d", 7), CARC_E_TURN);
    ck_assert_int_eq(e.code, CARC_E_EDGE);
    ck_assert_str_eq(e.text, "edge N of (1,-2)");
    ck_assert_int_eq(carc_error_set(&e, CARC_E_TILE, NULL), CARC_E_TILE);
    ck_assert_str_eq(e.text, "edge N of (1,-2)");
}
END_TEST

START_TEST(err_set_default_text_null_and_truncation)
{
    struct carc_error e = {0};
    ck_assert_int_eq(carc_error_set(&e, CARC_E_OVER, NULL), CARC_E_OVER);
    ck_assert_str_eq(e.text, carc_err_str(CARC_E_OVER));
    ck_assert_int_eq(carc_error_set(NULL, CARC_E_IO, "x %d", 1), CARC_E_IO);

    struct carc_error l;
    memset(&l, 0, sizeof l);
    char big[400];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    carc_error_set(&l, CARC_E_RECORD, "%s", big);
    ck_assert_int_eq(l.code, CARC_E_RECORD);
    ck_assert_uint_eq(strlen(l.text), sizeof l.text - 1);
}
END_TEST

/* Reference values of xoshiro256** seeded through splitmix64, computed by an
 * independent Python implementation of the published algorithms. */
START_TEST(rng_reference_vectors)
{
    static const uint64_t want0[] = {0x99ec5f36cb75f2b4ull, 0xbf6e1f784956452aull,
                                     0x1a5f849d4933e6e0ull, 0x6aa594f1262d2d2cull};
    static const uint64_t want1234[] = {0x0bab45d9a0e3ae53ull, 0xd7c640660c19433eull,
                                        0xb0dedaa0d09a6691ull, 0xdec9f41b58ec86ebull};
    struct carc_rng r;
    carc_rng_seed(&r, 0);
    for (int i = 0; i < 4; i++)
        ck_assert_msg(carc_rng_next(&r) == want0[i], "seed 0 value %d", i);
    carc_rng_seed(&r, 1234);
    for (int i = 0; i < 4; i++)
        ck_assert_msg(carc_rng_next(&r) == want1234[i], "seed 1234 value %d", i);
}
END_TEST

START_TEST(rng_same_seed_same_sequence)
{
    struct carc_rng a, b, c;
    carc_rng_seed(&a, 99);
    carc_rng_seed(&b, 99);
    carc_rng_seed(&c, 100);
    int differ = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t x = carc_rng_next(&a);
        ck_assert(x == carc_rng_next(&b));
        differ += x != carc_rng_next(&c);
    }
    ck_assert_int_ge(differ, 9990);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    /* carc_rng_below is deterministic too */
    carc_rng_seed(&a, 7);
    carc_rng_seed(&b, 7);
    for (int i = 0; i < 1000; i++)
        ck_assert_uint_eq(carc_rng_below(&a, 71 - i % 70), carc_rng_below(&b, 71 - i % 70));
}
END_TEST

START_TEST(rng_below_range)
{
    static const uint32_t ns[] = {1, 2, 3, 5, 7, 71, 100, 115, 1000, 0x80000001u, 0xFFFFFFFFu};
    struct carc_rng r;
    carc_rng_seed(&r, 5);
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        uint32_t hi = 0;
        for (int i = 0; i < 20000; i++) {
            uint32_t v = carc_rng_below(&r, ns[k]);
            ck_assert_uint_lt(v, ns[k]);
            if (v > hi)
                hi = v;
        }
        if (ns[k] <= 1000)
            ck_assert_uint_eq(hi, ns[k] - 1); /* the top value is reachable */
    }
}
END_TEST

START_TEST(rng_below_uniform)
{
    struct carc_rng r;
    carc_rng_seed(&r, 2024);
    enum { N = 6, DRAWS = 60000 };
    int hist[N] = {0};
    for (int i = 0; i < DRAWS; i++)
        hist[carc_rng_below(&r, N)]++;
    /* expected 10000 each, sigma ~91: +-500 is more than 5 sigma */
    double chi2 = 0;
    for (int i = 0; i < N; i++) {
        ck_assert_msg(hist[i] > 9500 && hist[i] < 10500, "bucket %d: %d", i, hist[i]);
        double d = hist[i] - DRAWS / (double)N;
        chi2 += d * d / (DRAWS / (double)N);
    }
    ck_assert_msg(chi2 < 25.0, "chi2 %f", chi2); /* 5 dof: p < 0.0002 */

    /* n = 3 * 2^30: a plain 32-bit modulo would put half the draws below 2^30 */
    int low = 0;
    for (int i = 0; i < 30000; i++)
        low += carc_rng_below(&r, 0xC0000000u) < 0x40000000u;
    ck_assert_msg(low > 9400 && low < 10600, "low third: %d of 30000", low);

    /* low bits of a power-of-two range are balanced as well */
    int odd = 0;
    for (int i = 0; i < 20000; i++)
        odd += carc_rng_below(&r, 64) & 1;
    ck_assert_msg(odd > 9500 && odd < 10500, "odd: %d", odd);
}
END_TEST

Suite *suite_common(void)
{
    Suite *s = suite_create("common");
    TCase *e = tcase_create("err");
    tcase_add_test(e, err_codes_negative_distinct);
    tcase_add_test(e, err_wire_names_distinct);
    tcase_add_test(e, err_from_name_round_trip);
    tcase_add_test(e, err_names_out_of_range);
    tcase_add_test(e, err_texts);
    tcase_add_test(e, err_set_keeps_first);
    tcase_add_test(e, err_set_default_text_null_and_truncation);
    suite_add_tcase(s, e);
    TCase *r = tcase_create("rng");
    tcase_add_test(r, rng_reference_vectors);
    tcase_add_test(r, rng_same_seed_same_sequence);
    tcase_add_test(r, rng_below_range);
    tcase_add_test(r, rng_below_uniform);
    suite_add_tcase(s, r);
    return s;
}
