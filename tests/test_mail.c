/* test_mail.c: carcd's e-mail (notify/mail.h): the messages' text (headers,
 * lines, links, the unsubscribe link, the time left), the wait until the
 * digest's hour, and the mailer against a real local SMTP sink
 * (tests/smtp_sink.py, STARTTLS) through the real outbound client: a
 * notifier's time_low notice mailed once to an account with reminders on,
 * and to nobody else; a digest run that reads the accounts of the waiting
 * games in batches of MAIL_BATCH with the day to claim, and mails only the
 * accounts whose claim was theirs, each its own games, the least time left
 * first; and a digest that waits while the outbound client is busy. The
 * accounts service is replaced by a table of rows the test
 * answers from (its own statements are test_accounts_mail.c's). */
#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "https_util.h"
#include "notify/mail.h"
#include "notify/notifier.h"
#include "notify/outbound.h"
#include "tests.h"
#include "util/clock.h"
#include "util/log.h"

#define TOKEN "TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT" /* 43 characters */

static const struct mail_config cfg = {"smtp://unused", "carcd@carcd.test", "https://carcd.test/",
                                       7};

static struct mail_account account_of(long long id, int reminders, int claimed)
{
    struct mail_account a;
    memset(&a, 0, sizeof a);
    a.account = id;
    snprintf(a.address, sizeof a.address, "a%lld@carcd.test", id);
    a.digest = 1;
    a.reminders = reminders;
    a.claimed = claimed;
    snprintf(a.unsub, sizeof a.unsub, "%s", TOKEN);
    return a;
}

static struct mail_game game_of(const char *room, long long account, long long deadline)
{
    struct mail_game g;
    memset(&g, 0, sizeof g);
    snprintf(g.room, sizeof g.room, "%s", room);
    g.account = account;
    g.seat = 1;
    g.deadline = deadline;
    g.n = 3;
    snprintf(g.names[0], sizeof g.names[0], "Bob");
    snprintf(g.names[1], sizeof g.names[1], "Ann");
    snprintf(g.names[2], sizeof g.names[2], "Zoë");
    return g;
}

/* Every line ends with CRLF; none is longer than RFC 5322's 998. */
static void lines_check(const char *text)
{
    size_t len = 0;
    for (const char *p = text; *p != '\0'; p++, len++) {
        if (*p == '\n') {
            ck_assert_msg(p > text && p[-1] == '\r', "a bare LF at %td", p - text);
            len = 0;
        }
        ck_assert_uint_lt(len, 998);
    }
}

START_TEST(texts)
{
    long long now = 1764748800000LL; /* 2025-12-03 08:00:00 UTC */
    struct mail_account a = account_of(7, 1, 1);
    struct mail_game g[2] = {game_of("R1", 7, now + (2 * 3600 + 5 * 60) * 1000LL),
                             game_of("R2", 7, 0)};
    char text[8192];
    int n = mail_digest_text(&cfg, &a, g, 2, now, text, sizeof text);
    ck_assert_int_gt(n, 0);
    ck_assert_int_eq((int)strlen(text), n);
    lines_check(text);
    ck_assert_ptr_nonnull(strstr(text, "From: carcd <carcd@carcd.test>\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "To: <a7@carcd.test>\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "Subject: carcd: 2 games wait for you\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "Date: Wed, 03 Dec 2025 08:00:00 +0000\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "Message-ID: <1764748800000."));
    ck_assert_ptr_nonnull(strstr(text, "@carcd.test>\r\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "List-Unsubscribe: <https://carcd.test/unsubscribe?token=" TOKEN ">\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "Content-Type: text/plain; charset=utf-8\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "* Room R1 against Bob, Zoë: 2 h 5 min left\r\n"
                                       "  https://carcd.test/#room=R1\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "* Room R2 against Bob, Zoë: no clock\r\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "To stop these e-mails: https://carcd.test/unsubscribe?token=" TOKEN "\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "\r\n\r\nIt is your move in 2 games:")); /* the body */
    n = mail_digest_text(&cfg, &a, g, 1, now, text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "Subject: carcd: 1 game waits for you\r\n"));
    ck_assert_int_eq(mail_digest_text(&cfg, &a, g, 2, now, text, 200), -1); /* too small */
    struct notifier_notice t;
    memset(&t, 0, sizeof t);
    t.kind = NOTIFIER_LOW;
    snprintf(t.room, sizeof t.room, "R9");
    t.account = 7;
    t.seat = 0;
    t.deadline = now + 30 * 60 * 1000LL;
    t.n = 2;
    snprintf(t.names[0], sizeof t.names[0], "Ann");
    snprintf(t.names[1], sizeof t.names[1], "bot.greedy");
    n = mail_reminder_text(&cfg, &a, &t, now, text, sizeof text);
    ck_assert_int_gt(n, 0);
    lines_check(text);
    ck_assert_ptr_nonnull(strstr(text, "Subject: carcd: your clock runs low in room R9\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "* Room R9 against bot.greedy: 30 min left\r\n"
                                       "  https://carcd.test/#room=R9\r\n"));
    ck_assert_ptr_nonnull(strstr(text, "List-Unsubscribe: <https://carcd.test/unsubscribe?token="));
    /* The digest's hour, UTC. */
    long long day = 86400000LL, midnight = now - now % day;
    ck_assert_int_eq(mail_digest_wait(7, midnight + 6 * 3600000LL), 3600000LL);
    ck_assert_int_eq(mail_digest_wait(7, midnight + 7 * 3600000LL), day); /* just sent: tomorrow */
    ck_assert_int_eq(mail_digest_wait(7, midnight + 8 * 3600000LL), day - 3600000LL);
    ck_assert_int_eq(mail_digest_wait(0, midnight + day - 1), 1);
}
END_TEST

/* ---- the mailer against the SMTP sink ---- */

static uv_loop_t loop;
static struct hu_server sink;
static char maildir[64];
static struct outbound *out;

/* The test's accounts service: the rows it answers, and what it was asked. */
static struct mail_account rows[64];
static int nrows, asks, asked_ids, asked_batches;
static long long asked_day;
static struct mail_game waiting_games[64];
static int nwaiting;

struct answer {
    uv_timer_t t;
    struct mail_ask *ask;
    long long ids[MAIL_BATCH];
    int n;
};

static void answer_closed(uv_handle_t *h)
{
    free(h->data);
}

/* On a later turn of the loop, as the accounts service answers. */
static void on_answer_due(uv_timer_t *t)
{
    struct answer *a = t->data;
    struct mail_account found[MAIL_BATCH];
    int k = 0;
    for (int i = 0; i < a->n; i++)
        for (int r = 0; r < nrows; r++)
            if (rows[r].account == a->ids[i])
                found[k++] = rows[r];
    mail_settings_answer(a->ask, found, k);
    uv_close((uv_handle_t *)&a->t, answer_closed);
}

static int settings(void *arg, const long long *ids, int n, long long day, struct mail_ask *ask)
{
    (void)arg;
    ck_assert_int_le(n, MAIL_BATCH);
    asks++;
    asked_ids += n;
    asked_batches += day > 0;
    asked_day = day;
    struct answer *a = calloc(1, sizeof *a);
    a->ask = ask;
    a->n = n;
    memcpy(a->ids, ids, (size_t)n * sizeof *ids);
    uv_timer_init(&loop, &a->t);
    a->t.data = a;
    uv_timer_start(&a->t, on_answer_due, 1, 0);
    return 0;
}

static int waiting(void *arg, struct mail_game *g, int max)
{
    (void)arg;
    int n = nwaiting < max ? nwaiting : max;
    memcpy(g, waiting_games, (size_t)n * sizeof *g);
    return n;
}

static int no_subs(void *arg, long long account, struct notifier_ask *ask)
{
    (void)arg, (void)account, (void)ask;
    return -1; /* no Web Push here */
}

static void mail_setup(void)
{
    snprintf(maildir, sizeof maildir, "/tmp/carc-mailer-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(maildir));
    const char *args[] = {maildir, NULL};
    hu_start(&sink, "tests/smtp_sink.py", args);
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    struct outbound_config c;
    outbound_config_defaults(&c);
    c.ca_file = sink.cert;
    c.private_ok = 1;    /* the stuck endpoint below is on 127.0.0.1 */
    c.timeout_ms = 1500; /* and it gives up on it soon */
    char err[256];
    out = outbound_new(&loop, &c, err, sizeof err);
    ck_assert_msg(out != NULL, "%s", err);
    nrows = asks = asked_ids = asked_batches = nwaiting = 0;
    asked_day = 0;
}

static void mail_teardown(void)
{
    hu_stop(&sink);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", maildir);
    ck_assert_int_eq(system(cmd), 0);
}

static int mails(void)
{
    int n = 0;
    DIR *d = opendir(maildir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += strstr(e->d_name, ".eml") != NULL && strstr(e->d_name, ".tmp") == NULL;
    if (d != NULL)
        closedir(d);
    return n;
}

/* The loop run for ms, or until count mails are in the sink. */
static void spin(int ms, int count)
{
    for (int i = 0; i < ms / 10 && (count < 0 || mails() < count); i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
}

static void mail_read(int k, char *text, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%d.eml", maildir, k);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s is missing", path);
    size_t n = fread(text, 1, size - 1, f);
    text[n] = '\0';
    fclose(f);
}

static int closed;
static void on_closed(void *arg)
{
    (void)arg;
    closed = 1;
}

static struct mailer *mailer_open(int hour)
{
    char u[64];
    snprintf(u, sizeof u, "smtp://127.0.0.1:%d", sink.port);
    struct mail_config c = {u, "carcd@carcd.test", "https://carcd.test", hour};
    return mailer_new(&loop, out, &c, &(struct mail_ops){settings, waiting, NULL});
}

static void all_close(struct mailer *m, struct notifier *n)
{
    mailer_close(m);
    notifier_close(n);
    spin(500, -1); /* the last answers of the test's accounts service */
    outbound_close(out, on_closed, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(closed, 1);
    mailer_free(m);
    notifier_free(n);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}

START_TEST(reminder_mailed_once)
{
    /* The hour is an hour ahead: no digest during the test. */
    int hour = (int)((clock_wall_ms() / 3600000LL + 1) % 24);
    struct mailer *m = mailer_open(hour);
    struct push_sender ps = {out, NULL, "mailto:carcd@carcd.test"};
    struct notifier *n =
        notifier_new(&loop, &ps, &(struct notifier_ops){no_subs, NULL, NULL, NULL}, "");
    notifier_mailer_set(n, m);
    rows[nrows++] = account_of(7, 1, 0);
    rows[nrows++] = account_of(8, 0, 0); /* reminders off */
    struct notifier_notice t;
    memset(&t, 0, sizeof t);
    t.kind = NOTIFIER_LOW;
    snprintf(t.room, sizeof t.room, "R9");
    t.account = 7;
    t.deadline = clock_wall_ms() + (20 * 60 + 30) * 1000LL;
    t.moves = 4;
    t.n = 2;
    snprintf(t.names[0], sizeof t.names[0], "Ann");
    snprintf(t.names[1], sizeof t.names[1], "Bob");
    test_log_capture(); /* the notifier's warnings: no Web Push here */
    notifier_notice_send(n, &t);
    spin(10000, 1);
    ck_assert_int_eq(mails(), 1);
    char text[8192];
    mail_read(1, text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "To: <a7@carcd.test>"));
    ck_assert_ptr_nonnull(strstr(text, "Subject: carcd: your clock runs low in room R9"));
    ck_assert_ptr_nonnull(strstr(text, "* Room R9 against Bob: 20 min left"));
    ck_assert_int_eq(asks, 1);
    notifier_notice_send(n, &t); /* the same turn: told once */
    t.kind = NOTIFIER_TURN;      /* not a reminder */
    t.moves = 5;
    notifier_notice_send(n, &t);
    t.kind = NOTIFIER_LOW; /* reminders off */
    t.account = 8;
    notifier_notice_send(n, &t);
    t.account = 9; /* no address */
    notifier_notice_send(n, &t);
    spin(1500, 2);
    test_log_release();
    ck_assert_int_eq(mails(), 1);
    ck_assert_int_eq(asks, 3); /* 8 and 9 read, nothing sent */
    all_close(m, n);
}
END_TEST

START_TEST(digest_in_batches_to_the_claims)
{
    int hour = (int)((clock_wall_ms() / 3600000LL + 1) % 24);
    struct mailer *m = mailer_open(hour);
    struct push_sender ps = {out, NULL, "mailto:carcd@carcd.test"};
    struct notifier *n =
        notifier_new(&loop, &ps, &(struct notifier_ops){no_subs, NULL, NULL, NULL}, "");
    long long now = clock_wall_ms();
    /* 40 accounts with a game each; account 10 a second one, with less time. */
    for (int i = 0; i < 40; i++) {
        char room[16];
        snprintf(room, sizeof room, "G%d", i + 1);
        waiting_games[nwaiting++] = game_of(room, i + 1, now + (i + 1) * 3600000LL);
        /* claimed: 10 and 35 only (the others were sent today already, or digest off) */
        rows[nrows++] = account_of(i + 1, 1, i + 1 == 10 || i + 1 == 35);
    }
    waiting_games[nwaiting++] = game_of("G10b", 10, now + 600000LL);
    log_level_set(LOG_ERROR);
    ck_assert_int_eq(mailer_digest_run(m), 0);
    ck_assert_int_eq(mailer_digest_run(m), -1); /* one run at a time */
    spin(15000, 2);
    ck_assert_int_eq(mails(), 2);
    ck_assert_int_eq(asks, 2); /* 32, then 8 */
    ck_assert_int_eq(asked_batches, 2);
    ck_assert_int_eq(asked_ids, 40);
    ck_assert_int_eq(asked_day, now / 86400000LL);
    char a[8192], b[8192];
    mail_read(1, a, sizeof a);
    mail_read(2, b, sizeof b);
    const char *ten = strstr(a, "To: <a10@") != NULL ? a : b;
    const char *other = ten == a ? b : a;
    ck_assert_ptr_nonnull(strstr(ten, "Subject: carcd: 2 games wait for you"));
    const char *first = strstr(ten, "* Room G10b"), *second = strstr(ten, "* Room G10 ");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_nonnull(second);
    ck_assert(first < second); /* the least time left first */
    ck_assert_ptr_nonnull(strstr(other, "To: <a35@"));
    ck_assert_ptr_nonnull(strstr(other, "Subject: carcd: 1 game waits for you"));
    ck_assert_ptr_null(strstr(other, "G10"));
    ck_assert_int_eq(mailer_digest_run(m), 0); /* the run ended: another may start */
    spin(300, -1);
    all_close(m, n);
}
END_TEST

static void on_stuck(void *arg, const struct outbound_result *r)
{
    (void)r;
    (*(int *)arg)++;
}

/* A digest waits while the outbound client is busy: 70 requests to an
 * endpoint that never answers (a socket that listens and never accepts:
 * TCP connects, TLS never starts) hold it until their 1.5 s timeout; no
 * account is asked (so none claimed) until they are gone, then the digest
 * goes. */
START_TEST(digest_waits_for_the_outbound_queue)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(listen(fd, 128), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    char url[64];
    snprintf(url, sizeof url, "https://127.0.0.1:%d/x", ntohs(sa.sin_port));
    int hour = (int)((clock_wall_ms() / 3600000LL + 1) % 24);
    struct mailer *m = mailer_open(hour);
    struct push_sender ps = {out, NULL, "mailto:carcd@carcd.test"};
    struct notifier *n =
        notifier_new(&loop, &ps, &(struct notifier_ops){no_subs, NULL, NULL, NULL}, "");
    int stuck = 0;
    for (int i = 0; i < 70; i++)
        ck_assert_int_eq(outbound_post(out, url, NULL, 0, "x", 1, on_stuck, &stuck), 0);
    waiting_games[nwaiting++] = game_of("W1", 3, 0);
    rows[nrows++] = account_of(3, 1, 1);
    ck_assert_int_eq(mailer_digest_run(m), 0);
    spin(700, -1);
    ck_assert_int_eq(asks, 0); /* waiting */
    ck_assert_int_eq(stuck, 0);
    spin(8000, 1);
    ck_assert_int_eq(stuck, 70); /* timed out, then the digest went */
    ck_assert_int_eq(asks, 1);
    ck_assert_int_eq(mails(), 1);
    close(fd);
    all_close(m, n);
}
END_TEST

Suite *suite_mail(void)
{
    Suite *s = suite_create("mail");
    TCase *tc = tcase_create("texts");
    tcase_add_test(tc, texts);
    suite_add_tcase(s, tc);
    TCase *smtp = tcase_create("smtp");
    tcase_add_checked_fixture(smtp, mail_setup, mail_teardown);
    tcase_set_timeout(smtp, 60);
    tcase_add_test(smtp, reminder_mailed_once);
    tcase_add_test(smtp, digest_in_batches_to_the_claims);
    tcase_add_test(smtp, digest_waits_for_the_outbound_queue);
    suite_add_tcase(s, smtp);
    return s;
}
