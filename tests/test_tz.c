/* test_tz.c: time zones and week ends (server/util/tz.c). POSIX TZ strings
 * parse (and bad ones do not); the offsets of real zones of the system's tz
 * database, read by tz_db_load, agree with glibc's localtime_r over years
 * (an independent reading of the same files) in zones with DST both sides
 * of the equator, half-hour and 45-minute offsets, and Morocco's listed
 * changes; week ends counted by tz_week_days_ms and tz_week_days_add agree
 * with a minute-by-minute count made with localtime_r, across a DST change
 * and across a week end seen from both sides of the date line. */
#define _DEFAULT_SOURCE /* tm_gmtoff */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests.h"
#include "util/tz.h"

#define MIN_MS 60000LL
#define HOUR_MS 3600000LL
#define DAY_MS 86400000LL
#define T2026 1767225600000LL /* 2026-01-01T00:00:00Z */

static struct tz_db *db;

static void db_setup(void)
{
    db = tz_db_load(NULL, NULL);
}

static void db_teardown(void)
{
    tz_db_free(db);
    db = NULL;
}

/* glibc's reading of zone name at t: seconds east of UTC, and the weekday. */
static int libc_local(const char *name, int64_t t, int *wday)
{
    char tz[TZ_NAME_MAX + 1];
    snprintf(tz, sizeof tz, ":%s", name);
    setenv("TZ", tz, 1);
    tzset();
    time_t s = (time_t)(t / 1000);
    struct tm tm;
    localtime_r(&s, &tm);
    if (wday != NULL)
        *wday = tm.tm_wday;
    return (int)tm.tm_gmtoff;
}

START_TEST(tz_parse_good_and_bad)
{
    struct tz_rule r;
    ck_assert_int_eq(tz_rule_parse("CET-1CEST,M3.5.0,M10.5.0/3", &r), 0);
    ck_assert_int_eq(r.std_off, 3600);
    ck_assert_int_eq(r.dst_off, 7200);
    ck_assert_int_eq(r.end.secs, 3 * 3600);
    ck_assert_int_eq(tz_rule_parse("<+0545>-5:45", &r), 0);
    ck_assert_int_eq(r.std_off, 5 * 3600 + 45 * 60);
    ck_assert(!r.has_dst);
    ck_assert_int_eq(tz_rule_parse("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", &r), 0);
    ck_assert_int_eq(r.std_off, -3 * 3600);
    ck_assert_int_eq(r.dst_off, -2 * 3600);
    ck_assert_int_eq(r.start.secs, -2 * 3600);
    ck_assert_int_eq(tz_rule_parse("EST5EDT,M3.2.0,M11.1.0", &r), 0);
    ck_assert_int_eq(r.start.secs, 7200);
    ck_assert_int_eq(tz_rule_parse("XST3XDT,J60/2,300/25", &r), 0);
    const char *bad[] = {"",
                         "X1",
                         "CET",
                         "CET-1CEST",
                         "CET-1CEST,M13.5.0,M10.5.0",
                         "CET-1CEST,M3.6.0,M10.5.0",
                         "CET-1CEST,M3.5.0",
                         "CET-25",
                         "<+03-3",
                         "CET-1CEST,J0,J366",
                         "CET-1 trailing"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(tz_rule_parse(bad[i], &r) < 0, "parsed \"%s\"", bad[i]);
}
END_TEST

static const char *const zones[] = {
    "Europe/Paris",
    "America/New_York",
    "Pacific/Auckland",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
    "Pacific/Chatham",
    "America/Santiago",
    "Africa/Casablanca",
    "America/Sao_Paulo",
    "Asia/Tokyo",
    "Pacific/Kiritimati",
    "America/St_Johns",
    "UTC",
};

/* Every 37 minutes over four years from 2024, where the files list the
 * changes, and over four years from 2036, where their footer rules (a "fat"
 * file lists changes up to 2037), in each zone, the offset is glibc's. */
START_TEST(tz_offsets_match_libc)
{
    static const int64_t from[] = {T2026 - 2 * 365 * DAY_MS, T2026 + 10 * 365 * DAY_MS};
    for (size_t k = 0; k < sizeof zones / sizeof *zones * 2; k++) {
        const char *name = zones[k / 2];
        const struct tz_zone *z = tz_db_find(db, name);
        ck_assert_msg(z != NULL, "zone %s missing", name);
        int64_t t0 = from[k % 2];
        for (int64_t t = t0; t < t0 + 4 * 365 * DAY_MS; t += 37 * MIN_MS) {
            int want = libc_local(name, t, NULL);
            ck_assert_msg(tz_zone_offset(z, t) == want, "%s at %lld: %d, libc %d", name,
                          (long long)t, tz_zone_offset(z, t), want);
        }
    }
}
END_TEST

START_TEST(tz_unknown_zone)
{
    ck_assert_ptr_null(tz_db_find(db, "Mars/Olympus_Mons"));
    ck_assert_ptr_null(tz_db_find(db, "europe/paris"));
    ck_assert_ptr_null(tz_db_find(db, "posix/Europe/Paris"));
    ck_assert_ptr_nonnull(tz_db_find(db, "UTC"));
    ck_assert_ptr_nonnull(tz_db_find(NULL, "UTC"));
    ck_assert_ptr_null(tz_db_find(NULL, "Europe/Paris"));
    struct tz_db *none = tz_db_load("/nonexistent-zoneinfo", NULL);
    ck_assert_ptr_nonnull(tz_db_find(none, "UTC"));
    ck_assert_ptr_null(tz_db_find(none, "Europe/Paris"));
    tz_db_free(none);
}
END_TEST

/* Minutes outside week ends in [from, to), counted with glibc. */
static int64_t libc_week_days(const char *name, int64_t from, int64_t to)
{
    int64_t sum = 0;
    for (int64_t t = from; t < to; t += MIN_MS) {
        int wday;
        libc_local(name, t, &wday);
        if (wday != 0 && wday != 6)
            sum += MIN_MS;
    }
    return sum;
}

START_TEST(tz_week_days_match_libc)
{
    /* Over three weeks from Wednesday 2026-03-18 (Europe's change to summer
     * time on Sunday 29 March; New Zealand's out of it on Sunday 5 April), and
     * from a Friday noon UTC, which is already Saturday in Kiritimati. */
    static const struct {
        const char *zone;
        int64_t from, len;
    } cases[] = {
        {"Europe/Paris", T2026 + 76 * DAY_MS, 21 * DAY_MS},
        {"Pacific/Auckland", T2026 + 76 * DAY_MS, 21 * DAY_MS},
        {"America/New_York", T2026 + 64 * DAY_MS + 7 * HOUR_MS, 10 * DAY_MS},
        {"Pacific/Kiritimati", T2026 + 1 * DAY_MS + 12 * HOUR_MS, 5 * DAY_MS},
        {"Pacific/Pago_Pago", T2026 + 1 * DAY_MS + 12 * HOUR_MS, 5 * DAY_MS},
        {"UTC", T2026 + 13 * MIN_MS, 9 * DAY_MS},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const struct tz_zone *z = tz_db_find(db, cases[k].zone);
        ck_assert_ptr_nonnull(z);
        int64_t from = cases[k].from, to = from + cases[k].len;
        int64_t want = libc_week_days(cases[k].zone, from, to);
        ck_assert_msg(tz_week_days_ms(z, from, to) == want, "%s: %lld, libc %lld", cases[k].zone,
                      (long long)tz_week_days_ms(z, from, to), (long long)want);
        /* Adding back what was counted lands where the count ends, or at
         * the start of the week end that follows it. */
        int64_t end = tz_week_days_add(z, from, want);
        ck_assert_int_eq(tz_week_days_ms(z, from, end), want);
        ck_assert(end <= to);
        ck_assert_int_eq(tz_week_days_ms(z, end, to), 0);
    }
}
END_TEST

START_TEST(tz_week_end_edges)
{
    const struct tz_zone *z = tz_db_find(db, "Europe/Paris");
    /* Friday 2026-01-02 23:30 Paris = 22:30Z: not yet; the week end starts
     * at Saturday 00:00 Paris = Friday 23:00Z and ends Monday 00:00 Paris. */
    int64_t fri = T2026 + DAY_MS + 22 * HOUR_MS + 30 * MIN_MS, edge;
    ck_assert_int_eq(tz_week_end(z, fri, &edge), 0);
    ck_assert_int_eq(edge, T2026 + DAY_MS + 23 * HOUR_MS);
    ck_assert_int_eq(tz_week_end(z, edge, &edge), 1);
    ck_assert_int_eq(edge, T2026 + 3 * DAY_MS + 23 * HOUR_MS);
    /* A day per move from Friday 20:00 Paris runs out on Monday 20:00. */
    int64_t from = T2026 + DAY_MS + 19 * HOUR_MS;
    ck_assert_int_eq(tz_week_days_add(z, from, DAY_MS), from + 3 * DAY_MS);
    /* Started on a Saturday, it counts from Monday 00:00. */
    ck_assert_int_eq(tz_week_days_add(z, T2026 + 2 * DAY_MS + 10 * HOUR_MS, DAY_MS),
                     T2026 + 4 * DAY_MS + 23 * HOUR_MS);
    ck_assert_int_eq(tz_week_days_add(z, from, 0), from);
    ck_assert_int_eq(tz_week_days_ms(z, from, from - 1), 0);
}
END_TEST

Suite *suite_tz(void)
{
    Suite *s = suite_create("tz");
    TCase *tc = tcase_create("tz");
    tcase_add_unchecked_fixture(tc, db_setup, db_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, tz_parse_good_and_bad);
    tcase_add_test(tc, tz_offsets_match_libc);
    tcase_add_test(tc, tz_unknown_zone);
    tcase_add_test(tc, tz_week_days_match_libc);
    tcase_add_test(tc, tz_week_end_edges);
    suite_add_tcase(s, tc);
    return s;
}
