/* mail.h: e-mail for correspondence play (PROTOCOL.md "Notifications",
 * "E-mail"): a daily digest of the games waiting for each player, and a
 * reminder when a player's clock runs low, each one plain-text message sent
 * through the relay of smtp-url by the outbound client (outbound_mail: off
 * the loop).
 *
 * The digest: a uv timer fires at digest_hour (UTC) each day, and once soon
 * after the start when the start comes after that hour (a server down at
 * the hour still sends the day's digest). A run asks ops.waiting for the
 * games where it is an account's turn now (this node's rooms, as GET
 * /api/me/games shows them), then the accounts' settings in batches of
 * MAIL_BATCH, one batch under way at a time, the next one asked once the
 * outbound client holds few enough requests for its mails (ops.settings: the accounts
 * service, on the pool), each read claiming the day's digest in the
 * database (store_mail_digest_claim), so that a restart or a second run
 * never sends a day's digest twice. An account with nothing waiting gets
 * nothing.
 *
 * The reminder: mailer_reminder with a notifier's time_low notice (told once
 * per turn, notifier.c) reads that account's settings and mails it when it
 * has an address with reminders on.
 *
 * Every message has Date, Message-ID, the List-Unsubscribe link of the
 * account (public_url + "/unsubscribe?token=T") and List-Unsubscribe-Post
 * (RFC 8058). Counted in carcd_mail_sent_total{kind,result}. Bounded: at
 * most MAIL_ASKS reminder reads under way (past that a reminder is dropped
 * and logged) and MAIL_GAMES games in one digest run.
 *
 * Owned by whoever made it (main); all calls on its loop. */
#ifndef CARCD_NOTIFY_MAIL_H
#define CARCD_NOTIFY_MAIL_H

#include <stddef.h>
#include <uv.h>

#include "notify/notifier.h"
#include "notify/outbound.h"

#define MAIL_BATCH 32                /* accounts of one settings read */
#define MAIL_ASKS 16                 /* reminder reads under way */
#define MAIL_GAMES 4096              /* games of one digest run */
#define MAIL_PER_DIGEST 50           /* games listed in one digest (the rest counted) */
#define MAIL_ADDRESS_MAX 254         /* bytes of an address */
#define MAIL_UNSUB_MAX 43            /* characters of an unsubscribe token */
#define MAIL_START_DELAY_MS 3000     /* the run of a start after the hour: rooms restored first */
#define MAIL_MESSAGE_MAX (64 * 1024) /* bytes of one message */

/* A game waiting for its account: a seat of account whose turn it is. */
struct mail_game {
    char room[NOTIFIER_ROOM_MAX];
    long long account;
    int seat;
    long long deadline; /* ms since 1970 when the seat's clock runs out; 0: no clock */
    int n;
    char names[NOTIFIER_PLAYERS][NOTIFIER_NAME_MAX];
};

/* An account's settings, as the accounts service read them. */
struct mail_account {
    long long account;
    char address[MAIL_ADDRESS_MAX + 1];
    int digest, reminders;
    char unsub[MAIL_UNSUB_MAX + 1];
    int claimed; /* the day's digest is this read's to send */
};

/* A read of accounts' settings under way (a slot of the mailer's: valid
 * until mailer_free, answered at most once). */
struct mail_ask;

struct mail_ops {
    /* Read the settings of ids[0..n) (n <= MAIL_BATCH); day > 0: claim the
     * digest of that UTC day (days since 1970) too. 0, then
     * mail_settings_answer(ask, ...) once, later, on the loop (n 0 on a
     * failure; never if the read was cancelled by a close); or -1 when it
     * cannot be asked now. */
    int (*settings)(void *arg, const long long *ids, int n, long long day, struct mail_ask *ask);
    /* The games waiting for their accounts now into out (at most max): how
     * many. On the loop, no blocking. */
    int (*waiting)(void *arg, struct mail_game *out, int max);
    void *arg;
};

struct mail_config {
    const char *smtp_url;   /* the relay (copied) */
    const char *from;       /* the From address (copied) */
    const char *public_url; /* the links' base (copied; a trailing '/' dropped) */
    int digest_hour;        /* 0..23, UTC */
};

struct mailer;

/* A mailer sending through o (which must outlive it). The digest's timer
 * starts now. */
struct mailer *mailer_new(uv_loop_t *loop, struct outbound *o, const struct mail_config *c,
                          const struct mail_ops *ops);
/* t told (a notifier's notice): a reminder when it is time_low, else
 * nothing. */
void mailer_reminder(struct mailer *m, const struct notifier_notice *t);
/* The answer of ops.settings for ask: rows[0..n), one per account that has
 * an address. */
void mail_settings_answer(struct mail_ask *ask, const struct mail_account *rows, int n);
/* The digest run now, as the timer does (tests, and the timer). 0, or -1
 * when a run is under way. */
int mailer_digest_run(struct mailer *m);
/* Stops: the timer closed, later answers change nothing. Run the loop
 * until the outbound client has answered (outbound_close) before
 * mailer_free. */
void mailer_close(struct mailer *m);
void mailer_free(struct mailer *m);

/* ---- the messages (pure: for tests too) ---- */

/* The digest of games[0..n) (all the account's) for a, at now_ms: the
 * whole RFC 5322 text (CRLF lines) into out (size bytes). Its length, or -1
 * when it does not fit. */
int mail_digest_text(const struct mail_config *c, const struct mail_account *a,
                     const struct mail_game *games, int n, long long now_ms, char *out,
                     size_t size);
/* The low-clock reminder of t for a, likewise. */
int mail_reminder_text(const struct mail_config *c, const struct mail_account *a,
                       const struct notifier_notice *t, long long now_ms, char *out, size_t size);
/* ms until the next digest_hour:00 UTC after now_ms (0 < it <= a day). */
long long mail_digest_wait(int digest_hour, long long now_ms);

#endif
