/* test_rating.c: the rating arithmetic (server/players/rating.c) against the
 * golden cases of tests/data/ratings/golden.txt (Glickman's worked example,
 * OpenSkill's published Plackett-Luce outputs with ties), and the properties
 * that hold whatever the numbers: order does not matter, ties are symmetric,
 * bad input changes nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "players/rating.h"
#include "tests.h"
#include "util/status.h"

#define GOLDEN "tests/data/ratings/golden.txt"

/* One unit of the last digit written in `text` ("151.52" -> 0.01): the paper
 * rounds its intermediate values to 4 decimals before scaling back (mu' =
 * -0.2069 -> 1464.06; unrounded, 1464.0507). */
static double last_unit(const char *text)
{
    const char *dot = strchr(text, '.');
    int decimals = dot == NULL ? 0 : (int)strspn(dot + 1, "0123456789");
    return pow(10.0, -decimals);
}

static void check_near(const char *what, int line, double got, double want, double tol)
{
    ck_assert_msg(fabs(got - want) <= tol, "%s line %d: got %.12f, want %.12f (+-%g)", what, line,
                  got, want, tol);
}

/* A g2 block: the header's numbers, its games, the expected result. */
static void run_g2(FILE *f, const char *header, int *line)
{
    struct rating_g2 r;
    double tau;
    char want[3][32];
    ck_assert_int_eq(sscanf(header, "g2 %lf %lf %lf %lf -> %31s %31s %31s", &r.rating, &r.deviation,
                            &r.volatility, &tau, want[0], want[1], want[2]),
                     7);
    struct rating_g2_game games[16];
    int n = 0, start = *line;
    char buf[256];
    while (fgets(buf, sizeof buf, f) != NULL && strncmp(buf, "end", 3) != 0) {
        ++*line;
        ck_assert_int_lt(n, 16);
        ck_assert_int_eq(
            sscanf(buf, "game %lf %lf %lf", &games[n].rating, &games[n].deviation, &games[n].score),
            3);
        n++;
    }
    ++*line;
    ck_assert_int_eq(rating_g2_update(&r, games, n, tau), 0);
    check_near("rating", start, r.rating, atof(want[0]), last_unit(want[0]));
    check_near("deviation", start, r.deviation, atof(want[1]), last_unit(want[1]));
    check_near("volatility", start, r.volatility, atof(want[2]), last_unit(want[2]));
}

static void run_pl(FILE *f, const char *header, int *line)
{
    struct rating_pl_model m;
    rating_pl_model_init(&m);
    char tau[32];
    ck_assert_int_eq(sscanf(header, "pl %31s", tau), 1);
    if (strcmp(tau, "default") != 0)
        m.tau = atof(tau);
    struct rating_pl p[RATING_PL_MAX_PLAYERS], want[RATING_PL_MAX_PLAYERS];
    int rank[RATING_PL_MAX_PLAYERS], n = 0, start = *line;
    char buf[256];
    while (fgets(buf, sizeof buf, f) != NULL && strncmp(buf, "end", 3) != 0) {
        ++*line;
        ck_assert_int_lt(n, RATING_PL_MAX_PLAYERS);
        ck_assert_int_eq(sscanf(buf, "%lf %lf %d -> %lf %lf", &p[n].mu, &p[n].sigma, &rank[n],
                                &want[n].mu, &want[n].sigma),
                         5);
        n++;
    }
    ++*line;
    ck_assert_int_eq(rating_pl_update(p, rank, n, &m), 0);
    for (int i = 0; i < n; i++) {
        check_near("mu", start, p[i].mu, want[i].mu, 1e-9);
        check_near("sigma", start, p[i].sigma, want[i].sigma, 1e-9);
    }
}

START_TEST(rating_golden_cases)
{
    FILE *f = fopen(GOLDEN, "r");
    ck_assert_msg(f != NULL, "cannot open %s", GOLDEN);
    char buf[256];
    int line = 0, g2 = 0, pl = 0;
    while (fgets(buf, sizeof buf, f) != NULL) {
        line++;
        if (strncmp(buf, "g2 ", 3) == 0) {
            run_g2(f, buf, &line);
            g2++;
        } else if (strncmp(buf, "pl ", 3) == 0) {
            run_pl(f, buf, &line);
            pl++;
        } else {
            ck_assert_msg(buf[0] == '#' || buf[0] == '\n', "%s:%d: unknown line", GOLDEN, line);
        }
    }
    fclose(f);
    ck_assert_int_ge(g2, 1);
    ck_assert_int_ge(pl, 10);
}
END_TEST

/* Two players who draw move towards each other; the winner of an even game
 * gains what the loser gives up when their deviations are equal. */
START_TEST(rating_g2_symmetry)
{
    struct rating_g2 a, b;
    rating_g2_init(&a);
    rating_g2_init(&b);
    struct rating_g2_game ga = {b.rating, b.deviation, 1}, gb = {a.rating, a.deviation, 0};
    ck_assert_int_eq(rating_g2_update(&a, &ga, 1, RATING_G2_TAU), 0);
    ck_assert_int_eq(rating_g2_update(&b, &gb, 1, RATING_G2_TAU), 0);
    ck_assert(a.rating > 1500 && b.rating < 1500);
    check_near("sum", 0, a.rating + b.rating, 3000, 1e-9);
    ck_assert(a.deviation < 350 && a.deviation > RATING_G2_PROVISIONAL);
    ck_assert(rating_g2_provisional(&a));

    struct rating_g2 hi = {1800, 80, 0.06}, lo = {1400, 80, 0.06};
    struct rating_g2_game draw_hi = {lo.rating, lo.deviation, 0.5};
    ck_assert_int_eq(rating_g2_update(&hi, &draw_hi, 1, RATING_G2_TAU), 0);
    ck_assert(hi.rating < 1800);
    ck_assert(!rating_g2_provisional(&hi));
}
END_TEST

/* A settled player away for a year comes back provisional (60 -> about 110),
 * never above the maximum; a period without games only ages the deviation. */
START_TEST(rating_g2_aging)
{
    struct rating_g2 r = {1700, 60, 0.06};
    ck_assert_int_eq(rating_g2_age(&r, 0), 0);
    check_near("no time", 0, r.deviation, 60, 1e-9);
    ck_assert_int_eq(rating_g2_age(&r, 30 * RATING_G2_PERIODS_PER_DAY), 0);
    ck_assert(r.deviation > 60 && r.deviation < 100);
    struct rating_g2 year = {1700, 60, 0.06};
    ck_assert_int_eq(rating_g2_age(&year, 365 * RATING_G2_PERIODS_PER_DAY), 0);
    ck_assert(year.deviation > 105 && year.deviation < 115 && rating_g2_provisional(&year));
    ck_assert_int_eq(rating_g2_age(&r, 1e6), 0);
    check_near("cap", 0, r.deviation, RATING_G2_MAX_DEVIATION, 1e-9);
    check_near("rating kept", 0, r.rating, 1700, 0);

    struct rating_g2 s = {1700, 60, 0.06};
    ck_assert_int_eq(rating_g2_update(&s, NULL, 0, RATING_G2_TAU), 0);
    check_near("one period", 0, s.deviation, sqrt(60.0 * 60 + pow(0.06 * 173.7178, 2)), 1e-3);
    check_near("rating kept", 0, s.rating, 1700, 0);

    /* The floor: a long streak against certain opponents stops at 45. */
    struct rating_g2 t = {1500, 50, 0.06};
    struct rating_g2_game g[8];
    for (int i = 0; i < 8; i++)
        g[i] = (struct rating_g2_game){1500, 30, i % 2};
    for (int k = 0; k < 20; k++)
        ck_assert_int_eq(rating_g2_update(&t, g, 8, RATING_G2_TAU), 0);
    check_near("floor", 0, t.deviation, RATING_G2_MIN_DEVIATION, 1e-9);
}
END_TEST

START_TEST(rating_g2_bad_input)
{
    struct rating_g2 r = {1500, 200, 0.06}, keep = r;
    struct rating_g2_game ok = {1400, 30, 1},
                          bad[] = {
                              {1400, 30, 1.5}, {1400, 30, -0.1},    {1400, 0, 1},
                              {NAN, 30, 1},    {1400, INFINITY, 1},
                          };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(rating_g2_update(&r, &bad[i], 1, RATING_G2_TAU), RATING_E_ARGS);
        ck_assert_mem_eq(&r, &keep, sizeof r);
    }
    ck_assert_int_eq(rating_g2_update(&r, &ok, -1, RATING_G2_TAU), RATING_E_ARGS);
    ck_assert_int_eq(rating_g2_update(&r, &ok, 1, 0), RATING_E_ARGS);
    ck_assert_int_eq(rating_g2_update(&r, NULL, 1, RATING_G2_TAU), RATING_E_ARGS);
    ck_assert_int_eq(rating_g2_age(&r, -1), RATING_E_ARGS);
    ck_assert_int_eq(rating_g2_age(&r, NAN), RATING_E_ARGS);
    ck_assert_mem_eq(&r, &keep, sizeof r);
    ck_assert_str_eq(srv_status_name(RATING_E_ARGS), "RATING_E_ARGS");
}
END_TEST

/* The same game given in any order of players rates everyone the same; rank
 * numbers only matter by their order. */
START_TEST(rating_pl_order_free)
{
    struct rating_pl_model m;
    rating_pl_model_init(&m);
    struct rating_pl a[6] = {{31, 3}, {22, 6}, {25, 8.3}, {18, 5}, {27, 2.5}, {25, 4}};
    int rank[6] = {3, 1, 5, 1, 6, 2};
    struct rating_pl b[6];
    int rank_b[6], perm[6] = {4, 2, 0, 5, 1, 3};
    for (int i = 0; i < 6; i++) {
        b[i] = a[perm[i]];
        rank_b[i] = rank[perm[i]] * 10 + 7; /* same order, other numbers */
    }
    ck_assert_int_eq(rating_pl_update(a, rank, 6, &m), 0);
    ck_assert_int_eq(rating_pl_update(b, rank_b, 6, &m), 0);
    for (int i = 0; i < 6; i++) {
        check_near("mu", i, b[i].mu, a[perm[i]].mu, 1e-12);
        check_near("sigma", i, b[i].sigma, a[perm[i]].sigma, 1e-12);
    }
}
END_TEST

/* Six players of equal sigma: the mu changes sum to zero, tied players of
 * equal rating stay equal, the winner gains most and the last (tied) lose
 * most. (OpenSkill's tie rule divides a tied player's gain by the size of the
 * tie, so here the two tied for second end below the fourth: the published
 * model's answer, kept.) */
START_TEST(rating_pl_six_with_ties)
{
    struct rating_pl_model m;
    rating_pl_model_init(&m);
    struct rating_pl p[6];
    for (int i = 0; i < 6; i++)
        rating_pl_init(&p[i], &m);
    int rank[6] = {1, 2, 2, 4, 5, 5};
    ck_assert_int_eq(rating_pl_update(p, rank, 6, &m), 0);
    double sum = 0;
    for (int i = 0; i < 6; i++)
        sum += p[i].mu - m.mu;
    check_near("zero sum", 0, sum, 0, 1e-9);
    check_near("tie 2", 0, p[1].mu, p[2].mu, 1e-12);
    check_near("tie 5", 0, p[4].mu, p[5].mu, 1e-12);
    for (int i = 1; i < 6; i++)
        ck_assert(p[0].mu > p[i].mu && (i >= 4 || p[i].mu > p[4].mu));
    ck_assert(p[1].mu > m.mu && p[4].mu < m.mu);
    for (int i = 0; i < 6; i++)
        ck_assert(p[i].sigma < m.sigma && rating_pl_provisional(&p[i]));
    /* A newcomer shows the display base; the display falls with sigma. */
    struct rating_pl fresh;
    rating_pl_init(&fresh, &m);
    check_near("display", 0, rating_pl_display(&fresh), RATING_PL_DISPLAY_BASE, 1e-9);
    check_near("deviation", 0, rating_pl_display_deviation(&fresh),
               RATING_PL_DISPLAY_SCALE * m.sigma, 1e-9);
}
END_TEST

START_TEST(rating_pl_bad_input)
{
    struct rating_pl_model m;
    rating_pl_model_init(&m);
    struct rating_pl p[7], keep[7];
    for (int i = 0; i < 7; i++)
        rating_pl_init(&p[i], &m);
    memcpy(keep, p, sizeof p);
    int rank[7] = {1, 2, 3, 4, 5, 6, 7};
    ck_assert_int_eq(rating_pl_update(p, rank, 1, &m), RATING_E_ARGS);
    ck_assert_int_eq(rating_pl_update(p, rank, 7, &m), RATING_E_ARGS);
    p[1].sigma = 0;
    ck_assert_int_eq(rating_pl_update(p, rank, 3, &m), RATING_E_ARGS);
    p[1].sigma = m.sigma;
    p[2].mu = NAN;
    ck_assert_int_eq(rating_pl_update(p, rank, 3, &m), RATING_E_ARGS);
    p[2].mu = m.mu;
    p[0].mu = 1e6; /* exp(mu / c) overflows */
    ck_assert_int_eq(rating_pl_update(p, rank, 3, &m), RATING_E_ARGS);
    p[0].mu = m.mu;
    ck_assert_mem_eq(p, keep, sizeof p);
}
END_TEST

Suite *suite_rating(void)
{
    Suite *s = suite_create("rating");
    TCase *tc = tcase_create("rating");
    tcase_add_test(tc, rating_golden_cases);
    tcase_add_test(tc, rating_g2_symmetry);
    tcase_add_test(tc, rating_g2_aging);
    tcase_add_test(tc, rating_g2_bad_input);
    tcase_add_test(tc, rating_pl_order_free);
    tcase_add_test(tc, rating_pl_six_with_ties);
    tcase_add_test(tc, rating_pl_bad_input);
    suite_add_tcase(s, tc);
    return s;
}
