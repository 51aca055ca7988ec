/* The single test runner: every suite of tests.h, one SRunner.
 * Run from the repository root (tests read tests/data/ and docs/rules.md). */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "util/log.h"

static char log_buf[4096];
static size_t log_len;

static void log_keep(void *ctx, int level, const char *text)
{
    (void)ctx;
    size_t room = sizeof log_buf - log_len; /* at least 1: log_len stops at the last byte */
    int n = snprintf(log_buf + log_len, room, "%s: %s\n", log_level_name(level), text);
    if (n > 0)
        log_len += (size_t)n < room ? (size_t)n : room - 1; /* truncated: the buffer is full */
}

void test_log_capture(void)
{
    log_len = 0;
    log_buf[0] = '\0';
    log_sink_set(log_keep, NULL);
}

int test_log_count(const char *needle)
{
    int n = 0;
    for (const char *l = log_buf; *l != '\0';) {
        const char *end = strchr(l, '\n');
        size_t len = end != NULL ? (size_t)(end - l) : strlen(l);
        for (size_t i = 0; i + strlen(needle) <= len; i++)
            if (strncmp(l + i, needle, strlen(needle)) == 0) {
                n++;
                break;
            }
        l += len + (end != NULL);
    }
    return n;
}

const char *test_log_text(void)
{
    return log_buf;
}

void test_log_release(void)
{
    log_sink_set(NULL, NULL);
}

char *test_stream_read(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap + 1);
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, 2 * cap + 1);
            if (nb == NULL)
                free(buf);
            buf = nb;
            cap *= 2;
        }
    }
    if (buf != NULL)
        buf[n] = '\0';
    *len = n;
    return buf;
}

char *test_file_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = test_stream_read(f, len);
    fclose(f);
    return buf;
}

int test_has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int main(void)
{
    SRunner *sr = srunner_create(suite_common());
    srunner_add_suite(sr, suite_tiles());
    srunner_add_suite(sr, suite_moves());
    srunner_add_suite(sr, suite_perft());
    srunner_add_suite(sr, suite_score());
    srunner_add_suite(sr, suite_expansions());
    srunner_add_suite(sr, suite_tithes());
    srunner_add_suite(sr, suite_variants());
    srunner_add_suite(sr, suite_record());
    srunner_add_suite(sr, suite_replay());
    srunner_add_suite(sr, suite_replay_json());
    srunner_add_suite(sr, suite_protocol());
    srunner_add_suite(sr, suite_state());
    srunner_add_suite(sr, suite_room());
    srunner_add_suite(sr, suite_resume());
    srunner_add_suite(sr, suite_seat_account());
    srunner_add_suite(sr, suite_analysis());
    srunner_add_suite(sr, suite_bot());
    srunner_add_suite(sr, suite_turn());
    srunner_add_suite(sr, suite_bots());
    srunner_add_suite(sr, suite_analysis_queue());
    srunner_add_suite(sr, suite_out_of_time());
    srunner_add_suite(sr, suite_session());
    srunner_add_suite(sr, suite_api());
    srunner_add_suite(sr, suite_admin());
    srunner_add_suite(sr, suite_config());
    srunner_add_suite(sr, suite_store());
    srunner_add_suite(sr, suite_store_pg());
    srunner_add_suite(sr, suite_accounts_store());
    srunner_add_suite(sr, suite_accounts_store_pg());
    srunner_add_suite(sr, suite_accounts_stats());
    srunner_add_suite(sr, suite_accounts_stats_pg());
    srunner_add_suite(sr, suite_accounts_copy());
    srunner_add_suite(sr, suite_accounts_copy_pg());
    srunner_add_suite(sr, suite_store_read());
    srunner_add_suite(sr, suite_damage());
    srunner_add_suite(sr, suite_loopstat());
    srunner_add_suite(sr, suite_stall());
    srunner_add_suite(sr, suite_tz());
    srunner_add_suite(sr, suite_corr());
    srunner_add_suite(sr, suite_bounds());
    srunner_add_suite(sr, suite_memtrim());
    srunner_add_suite(sr, suite_rxguard());
    srunner_add_suite(sr, suite_proxy());
    srunner_add_suite(sr, suite_origin());
    srunner_add_suite(sr, suite_log());
    srunner_add_suite(sr, suite_json_str());
    srunner_add_suite(sr, suite_account_json());
    srunner_add_suite(sr, suite_claim());
    srunner_add_suite(sr, suite_claim_pg());
    srunner_add_suite(sr, suite_metrics());
    srunner_add_suite(sr, suite_rating());
    srunner_add_suite(sr, suite_webpush());
    srunner_add_suite(sr, suite_accounts_push());
    srunner_add_suite(sr, suite_accounts_push_pg());
    srunner_add_suite(sr, suite_accounts_mail());
    srunner_add_suite(sr, suite_accounts_mail_pg());
    srunner_add_suite(sr, suite_accounts_vacation());
    srunner_add_suite(sr, suite_accounts_vacation_pg());
    srunner_add_suite(sr, suite_notices());
    srunner_add_suite(sr, suite_outbound());
    srunner_add_suite(sr, suite_mail());
    srunner_add_suite(sr, suite_push());
    srunner_add_suite(sr, suite_account());
    srunner_add_suite(sr, suite_attempts());
    srunner_add_suite(sr, suite_accounts());
    srunner_add_suite(sr, suite_accounts_pg());
    srunner_add_suite(sr, suite_ratings());
    srunner_add_suite(sr, suite_ratings_pg());
    srunner_add_suite(sr, suite_fair());
    srunner_add_suite(sr, suite_cluster());
    srunner_add_suite(sr, suite_lease());
    srunner_add_suite(sr, suite_fence_pg());
    srunner_add_suite(sr, suite_directory());
    srunner_add_suite(sr, suite_roomnode_pg());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
