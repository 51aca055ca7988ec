/* test_config.c: carcd's configuration (server/config.c, config_load): the
 * command-line flags, the config file and which of them wins, the defaults,
 * and the errors for bad values, unknown keys and stray arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "config.h"
#include "tests.h"

START_TEST(config_parse)
{
    struct carcd_config c;
    char err[256];
    char *argv[] = {"carcd", "--port", "0", "--listen=0.0.0.0", "--rate", "5", NULL};
    ck_assert_int_eq(config_load(&c, 6, argv, stdout, err, sizeof err), 0);
    ck_assert_int_eq(c.port, 0);
    ck_assert_str_eq(c.listen, "0.0.0.0");
    ck_assert_int_eq(c.limits.rate, 5);
    ck_assert_int_eq(c.limits.message_bytes, 16384);
    ck_assert_int_eq(c.limits.idle_timeout, 600);
    ck_assert_str_eq(c.data_dir, "./data");
    ck_assert_str_eq(c.web_root, "clients/web");
    /* Storage defaults: every commit fsynced, 5 s for another program's lock. */
    ck_assert_int_eq(c.storage_fsync, 1);
    ck_assert_int_eq(c.storage_busy_ms, 5000);
    ck_assert_int_eq(c.limits.history_bytes, 8192);

    char path[] = "/tmp/carcd-test-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# carcd\nport = 9000\n  history=  7  # deltas\n\nlog-level = debug\n"
               "storage-fsync = off\nhistory-bytes = 4096\n");
    fclose(f);
    char *argv2[] = {"carcd", "--port", "9100", "-c", path, NULL};
    ck_assert_int_eq(config_load(&c, 5, argv2, stdout, err, sizeof err), 0);
    ck_assert_int_eq(c.port, 9100); /* the flag wins */
    ck_assert_int_eq(c.limits.history, 7);
    ck_assert_int_eq(c.log_level, 3);
    ck_assert_int_eq(c.storage_fsync, 0);
    ck_assert_int_eq(c.limits.history_bytes, 4096);

    f = fopen(path, "w");
    fprintf(f, "port = 9000\nbogus = 1\n");
    fclose(f);
    char *argv3[] = {"carcd", "--config", path, NULL};
    ck_assert_int_eq(config_load(&c, 3, argv3, stdout, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, ":2:"));
    unlink(path);

    char *argv4[] = {"carcd", "--port", "70000", NULL};
    ck_assert_int_eq(config_load(&c, 3, argv4, stdout, err, sizeof err), -1);
    char *argv5[] = {"carcd", "--port", NULL};
    ck_assert_int_eq(config_load(&c, 2, argv5, stdout, err, sizeof err), -1);
    char *argv6[] = {"carcd", "stray", NULL};
    ck_assert_int_eq(config_load(&c, 2, argv6, stdout, err, sizeof err), -1);
}
END_TEST

/* storage: sqlite (or on), postgres, off; postgres-url is never echoed back. */
START_TEST(config_storage)
{
    struct carcd_config c;
    char err[256];
    config_defaults(&c);
    ck_assert_int_eq(c.storage, 1);
    ck_assert_int_eq(c.storage_wait, 30);
    ck_assert_str_eq(c.postgres_url, "");
    const char *vals[] = {"sqlite", "on", "postgres", "off"};
    const int want[] = {1, 1, 2, 0};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(config_set(&c, "storage", vals[i], err, sizeof err), 0);
        ck_assert_int_eq(c.storage, want[i]);
    }
    ck_assert_int_eq(config_set(&c, "storage", "mysql", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "sqlite, postgres, on or off") != NULL, "%s", err);
    ck_assert_int_eq(c.storage, 0); /* unchanged */
    ck_assert_int_eq(
        config_set(&c, "postgres-url", "host=db password=hunter2-secret", err, sizeof err), 0);
    ck_assert_str_eq(c.postgres_url, "host=db password=hunter2-secret");
    char big[1100];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "password=hunter3-secret ", 24);
    ck_assert_int_eq(config_set(&c, "postgres-url", big, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "hunter3") == NULL, "%s", err);
    ck_assert_str_eq(c.postgres_url, "host=db password=hunter2-secret");
    ck_assert_int_eq(config_set(&c, "storage-wait", "0", err, sizeof err), 0);
    ck_assert_int_eq(c.storage_wait, 0);
}
END_TEST

/* A cluster node's settings: a node id's letters, a redis:// URL never
 * echoed back, the lease's ttl. */
START_TEST(config_cluster)
{
    struct carcd_config c;
    char err[256];
    config_defaults(&c);
    ck_assert_str_eq(c.node_id, "");
    ck_assert_str_eq(c.redis_url, "");
    ck_assert_int_eq(c.lease_ttl_ms, 5000);
    ck_assert_int_eq(config_set(&c, "node-id", "node-1_a", err, sizeof err), 0);
    ck_assert_str_eq(c.node_id, "node-1_a");
    const char *bad[] = {"", "a:b", "a b", "n/1", "0123456789012345678901234567890123", NULL};
    for (int i = 0; bad[i] != NULL; i++)
        ck_assert_msg(config_set(&c, "node-id", bad[i], err, sizeof err) == -1, "%s", bad[i]);
    ck_assert_str_eq(c.node_id, "node-1_a");
    ck_assert_int_eq(
        config_set(&c, "redis-url", "redis://:hunter4-secret@r:6379/0", err, sizeof err), 0);
    ck_assert_int_eq(config_set(&c, "redis-url", "http://:hunter5-secret@r", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "hunter5") == NULL, "%s", err);
    ck_assert_str_eq(c.redis_url, "redis://:hunter4-secret@r:6379/0");
    ck_assert_int_eq(config_set(&c, "lease-ttl", "99", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "lease-ttl", "3000", err, sizeof err), 0);
    ck_assert_int_eq(c.lease_ttl_ms, 3000);
}
END_TEST

/* accept-damaged-data: off by default; an on/off flag with no value after it
 * is on, one with a value takes it; a flag still needs a value otherwise. */
START_TEST(config_bare_onoff_flag)
{
    struct carcd_config c;
    char err[256];
    char *a1[] = {"carcd", "--accept-damaged-data", NULL};
    ck_assert_int_eq(config_load(&c, 2, a1, stdout, err, sizeof err), 0);
    ck_assert_int_eq(c.accept_damaged, 1);
    char *a2[] = {"carcd", "--accept-damaged-data", "--port", "9", NULL};
    ck_assert_int_eq(config_load(&c, 4, a2, stdout, err, sizeof err), 0);
    ck_assert_int_eq(c.accept_damaged, 1);
    ck_assert_int_eq(c.port, 9);
    char *a3[] = {"carcd", "--accept-damaged-data", "off", NULL};
    ck_assert_int_eq(config_load(&c, 3, a3, stdout, err, sizeof err), 0);
    ck_assert_int_eq(c.accept_damaged, 0);
    char *a4[] = {"carcd", NULL};
    ck_assert_int_eq(config_load(&c, 1, a4, stdout, err, sizeof err), 0);
    ck_assert_int_eq(c.accept_damaged, 0);
    char *a5[] = {"carcd", "--port", NULL};
    ck_assert_int_eq(config_load(&c, 2, a5, stdout, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "needs a value") != NULL, "%s", err);
    ck_assert_int_eq(config_set(&c, "accept-damaged-data", "on", err, sizeof err), 0);
    ck_assert_int_eq(c.accept_damaged, 1);
}
END_TEST

/* stall-threshold-ms: 2 s by default, 0 turns it off, and --help, the
 * settings table (server/README.md) and deploy/carcd.conf.example name it. */
START_TEST(config_stall)
{
    struct carcd_config c;
    char err[256];
    config_defaults(&c);
    ck_assert_int_eq(c.stall_threshold_ms, 2000);
    ck_assert_int_eq(config_set(&c, "stall-threshold-ms", "0", err, sizeof err), 0);
    ck_assert_int_eq(c.stall_threshold_ms, 0);
    ck_assert_int_eq(config_set(&c, "stall-threshold-ms", "-1", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "stall-threshold-ms", "600001", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "stall-threshold-ms", "5000", err, sizeof err), 0);
    ck_assert_int_eq(c.stall_threshold_ms, 5000);
    char *help = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&help, &len);
    config_usage(f);
    fclose(f);
    ck_assert_msg(strstr(help, "stall-threshold-ms") != NULL, "%s", help);
    free(help);
    const char *docs[] = {"server/README.md", "deploy/carcd.conf.example"};
    const char *want[] = {"| `stall-threshold-ms` | `2000` |", "\nstall-threshold-ms = 2000 "};
    for (int i = 0; i < 2; i++) {
        char *text = test_file_read(docs[i], &len);
        ck_assert_msg(text != NULL, "%s (run from the repository root)", docs[i]);
        ck_assert_msg(strstr(text, want[i]) != NULL, "%s: no %s", docs[i], want[i]);
        free(text);
    }
}
END_TEST

/* Game analysis: request, 1 thread, 250 ms a move, 32 games by default;
 * off | request | auto; the bounds; documented in --help, the settings
 * table and the example file. */
START_TEST(config_analysis)
{
    struct carcd_config c;
    char err[256];
    config_defaults(&c);
    ck_assert_int_eq(c.analysis, ANALYSIS_REQUEST);
    ck_assert_int_eq(c.analysis_threads, 1);
    ck_assert_int_eq(c.analysis_ms_per_move, 250);
    ck_assert_int_eq(c.analysis_queue, ANALYSIS_QUEUE_DEFAULT);
    ck_assert_int_eq(config_set(&c, "analysis", "auto", err, sizeof err), 0);
    ck_assert_int_eq(c.analysis, ANALYSIS_AUTO);
    ck_assert_int_eq(config_set(&c, "analysis", "off", err, sizeof err), 0);
    ck_assert_int_eq(c.analysis, ANALYSIS_OFF);
    ck_assert_int_eq(config_set(&c, "analysis", "on", err, sizeof err), -1);
    ck_assert_str_eq(err, "analysis: 'on' is not off, request or auto");
    ck_assert_int_eq(config_set(&c, "analysis-threads", "17", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "analysis-threads", "0", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "analysis-ms-per-move", "10001", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "analysis-ms-per-move", "2", err, sizeof err), 0);
    ck_assert_int_eq(c.analysis_ms_per_move, 2);
    ck_assert_int_eq(config_set(&c, "analysis-queue", "0", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "registration", "invite", err, sizeof err), 0);
    ck_assert_int_eq(c.registration, 1);
    char *help = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&help, &len);
    config_usage(f);
    fclose(f);
    ck_assert_msg(strstr(help, "analysis-ms-per-move") != NULL, "%s", help);
    free(help);
    const char *docs[] = {"server/README.md", "deploy/carcd.conf.example"};
    const char *want[][4] = {{"| `analysis` | `request` |", "| `analysis-threads` | `1` |",
                              "| `analysis-ms-per-move` | `250` |", "| `analysis-queue` | `32` |"},
                             {"\nanalysis = request ", "\nanalysis-threads = 1 ",
                              "\nanalysis-ms-per-move = 250 ", "\nanalysis-queue = 32 "}};
    for (int i = 0; i < 2; i++) {
        char *text = test_file_read(docs[i], &len);
        ck_assert_msg(text != NULL, "%s (run from the repository root)", docs[i]);
        for (int k = 0; k < 4; k++)
            ck_assert_msg(strstr(text, want[i][k]) != NULL, "%s: no %s", docs[i], want[i][k]);
        free(text);
    }
}
END_TEST

/* E-mail's settings: off by default; smtp-url needs mail-from and
 * public-url (config_load refuses the start, naming the missing one, and
 * never echoes the URL, which may hold a password); digest-hour 0..23. */
START_TEST(config_mail)
{
    struct carcd_config c;
    char err[512];
    config_defaults(&c);
    ck_assert_str_eq(c.smtp_url, "");
    ck_assert_int_eq(c.digest_hour, 7);
    ck_assert_int_eq(config_set(&c, "digest-hour", "24", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "digest-hour", "0", err, sizeof err), 0);
    char a0[] = "carcd", a1[] = "--smtp-url", a2[] = "smtp://u:hunter2@relay:25",
         a3[] = "--public-url", a4[] = "https://play.example.org", a5[] = "--mail-from",
         a6[] = "carcd@play.example.org", a7[] = "bad address@x";
    char *v1[] = {a0, a1, a2, a3, a4};
    ck_assert_int_eq(config_load(&c, 5, v1, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "mail-from") != NULL, "%s", err);
    ck_assert_ptr_null(strstr(err, "hunter2"));
    char *v2[] = {a0, a1, a2, a5, a6};
    ck_assert_int_eq(config_load(&c, 5, v2, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "public-url") != NULL, "%s", err);
    char *v3[] = {a0, a1, a2, a3, a4, a5, a7};
    ck_assert_int_eq(config_load(&c, 7, v3, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "mail-from") != NULL, "%s", err);
    char *v4[] = {a0, a1, a2, a3, a4, a5, a6};
    ck_assert_int_eq(config_load(&c, 7, v4, NULL, err, sizeof err), 0);
    ck_assert_str_eq(c.mail_from, "carcd@play.example.org");
    char off[] = "off";
    char *v5[] = {a0, a1, off};
    ck_assert_int_eq(config_load(&c, 3, v5, NULL, err, sizeof err), 0);
    ck_assert_str_eq(c.smtp_url, ""); /* off: no e-mail, nothing else asked */
    size_t len = 0;
    const char *docs[] = {"server/README.md", "deploy/carcd.conf.example"};
    const char *want[][2] = {{"| `smtp-url` | off |", "\n# smtp-url = "},
                             {"| `mail-from` | none |", "\n# mail-from = "},
                             {"| `digest-hour` | `7` |", "\ndigest-hour = 7 "}};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 2; i++) {
            char *text = test_file_read(docs[i], &len);
            ck_assert_msg(text != NULL, "%s (run from the repository root)", docs[i]);
            ck_assert_msg(strstr(text, want[k][i]) != NULL, "%s: no %s", docs[i], want[k][i]);
            free(text);
        }
}
END_TEST

/* The accounts' settings: their defaults, their bounds, the three registrations. */
START_TEST(config_accounts)
{
    struct carcd_config c;
    char err[256];
    config_defaults(&c);
    ck_assert_int_eq(c.registration, 0);
    ck_assert_int_eq(c.session_days, 30);
    ck_assert_int_eq(c.hash_ops, 2);
    ck_assert_int_eq(c.hash_mem_kib, 65536);
    ck_assert_int_eq(config_set(&c, "registration", "invite", err, sizeof err), 0);
    ck_assert_int_eq(c.registration, 1);
    ck_assert_int_eq(config_set(&c, "registration", "closed", err, sizeof err), 0);
    ck_assert_int_eq(c.registration, 2);
    ck_assert_int_eq(config_set(&c, "registration", "maybe", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "session-days", "0", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "session-days", "7", err, sizeof err), 0);
    ck_assert_int_eq(c.session_days, 7);
    ck_assert_int_eq(config_set(&c, "password-hash-ops", "1", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "password-hash-mem-kib", "8", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "password-hash-mem-kib", "19456", err, sizeof err), 0);
    ck_assert_int_eq(c.invite_days, 7);
    ck_assert_int_eq(c.member_invites, 0);
    ck_assert_int_eq(config_set(&c, "invite-days", "0", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "invite-days", "30", err, sizeof err), 0);
    ck_assert_int_eq(c.invite_days, 30);
    ck_assert_int_eq(config_set(&c, "member-invites", "yes", err, sizeof err), -1);
    ck_assert_int_eq(config_set(&c, "member-invites", "on", err, sizeof err), 0);
    ck_assert_int_eq(c.member_invites, 1);
    size_t len = 0;
    const char *docs[] = {"server/README.md", "deploy/carcd.conf.example"};
    const char *want[][2] = {{"| `registration` | `open` |", "\nregistration = open "},
                             {"| `session-days` | `30` |", "\nsession-days = 30 "},
                             {"| `invite-days` | `7` |", "\ninvite-days = 7 "},
                             {"| `member-invites` | `off` |", "\nmember-invites = off "}};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 4; k++) {
            char *text = test_file_read(docs[i], &len);
            ck_assert_msg(text != NULL, "%s (run from the repository root)", docs[i]);
            ck_assert_msg(strstr(text, want[k][i]) != NULL, "%s: no %s", docs[i], want[k][i]);
            free(text);
        }
}
END_TEST

Suite *suite_config(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, config_parse);
    tcase_add_test(tc, config_mail);
    tcase_add_test(tc, config_storage);
    tcase_add_test(tc, config_cluster);
    tcase_add_test(tc, config_bare_onoff_flag);
    tcase_add_test(tc, config_stall);
    tcase_add_test(tc, config_analysis);
    tcase_add_test(tc, config_accounts);
    suite_add_tcase(s, tc);
    return s;
}
