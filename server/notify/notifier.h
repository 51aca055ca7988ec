/* notifier.h: who is told what by Web Push (PROTOCOL.md "Notifications").
 *
 * An event (a turn that came to a player who is not there, their clock running
 * low, the end of their game) becomes one push to
 * each of the player's subscriptions: the subscriptions are asked of the
 * caller (ops.subs: the accounts service reads them on the thread pool), the
 * payload is written here (the documented JSON), each push sent by push.h
 * (encrypted and signed off the loop), and what came of it handed back
 * (ops.outcome: the caller keeps, forgives or drops the subscription). An
 * account's webhook gets the same notice as a chat message. A push
 * the service could not take now (429, 5xx, no answer) is tried again after
 * 30 s, 2 min and 10 min (or the service's Retry-After when longer), then
 * counted as failed. The same notice (room, account, kind, move number; for
 * time_low also whether its deadline is within the hour) is told once,
 * whatever calls repeat it.
 *
 * Bounded: at most NOTIFIER_PENDING pushes waiting for a retry and
 * NOTIFIER_ASKS subscription reads under way; past that an event is dropped
 * and logged (a notice is a courtesy, never a reason to hold the game).
 * Owned by whoever made it (main); all calls on its loop. */
#ifndef CARCD_NOTIFY_NOTIFIER_H
#define CARCD_NOTIFY_NOTIFIER_H

#include <uv.h>

#include "notify/push.h"

#define NOTIFIER_PENDING 256
#define NOTIFIER_ASKS 16
#define NOTIFIER_SUBS 10
#define NOTIFIER_PLAYERS 6
#define NOTIFIER_NAME_MAX 64
#define NOTIFIER_ROOM_MAX 32

/* A subscription as stored (base64url keys). */
struct notifier_sub {
    char endpoint[PUSH_ENDPOINT_MAX + 1];
    char p256dh[97];
    char auth[97];
};

/* What came of the pushes to a subscription. */
enum notifier_outcome { NOTIFIER_SENT = 0, NOTIFIER_GONE, NOTIFIER_FAILED };

/* A read of an account's subscriptions under way (a slot of the notifier's:
 * valid until notifier_free, answered at most once). */
struct notifier_ask;

struct notifier_ops {
    /* Read account's subscriptions: 0, then notifier_subs_answer(ask, ...)
     * once, later, on the loop (n 0 when none or on failure; or never, if the
     * read was cancelled by a close); or -1 when the read cannot be asked now. */
    int (*subs)(void *arg, long long account, struct notifier_ask *ask);
    /* A delivery to endpoint ended so (enum notifier_outcome). */
    void (*outcome)(void *arg, const char *endpoint, int outcome);
    /* A post to account's webhook ended so. */
    void (*hook_outcome)(void *arg, long long account, int outcome);
    void *arg;
};

/* What a player who has no connection to the room hears of. */
enum notifier_kind { NOTIFIER_TURN = 0, NOTIFIER_LOW, NOTIFIER_OVER, NOTIFIER_REMATCH };
struct notifier_notice {
    int kind; /* enum notifier_kind: "your_turn", "time_low", "game_over", "rematch" */
    char room[NOTIFIER_ROOM_MAX];
    long long account;
    int seat;
    long long deadline; /* ms since 1970 when the seat's clock runs out; 0: no clock */
    int moves;          /* moves played so far (with kind: the same notice is told once) */
    int rank;           /* game_over: the seat's rank, ties sharing one */
    int from;           /* rematch: the seat offering it (room: the new room) */
    int n;
    char names[NOTIFIER_PLAYERS][NOTIFIER_NAME_MAX];
    int scores[NOTIFIER_PLAYERS];
};

struct notifier;

/* A notifier sending with s (which must outlive it) through ops (copied);
 * public_url (copied; "" or NULL: none) makes the links of webhook messages
 * absolute. */
struct notifier *notifier_new(uv_loop_t *loop, const struct push_sender *s,
                              const struct notifier_ops *ops, const char *public_url);
void notifier_notice_send(struct notifier *n, const struct notifier_notice *t);
/* The answer of ops.subs for ask: a push of its notice to each subscription,
 * and a post to the account's webhook (NULL or "": none): Discord's and
 * Slack's JSON at once, {"content", "text", "username": "carcd", "carcd":
 * the push payload}. */
void notifier_subs_answer(struct notifier_ask *ask, const struct notifier_sub *subs, int n,
                          const char *webhook);
/* A test notice (PROTOCOL.md "Notifications", type "test"), which a player
 * asks for to see that notifications reach their devices: pushed to each of
 * subs (the account's, read by the caller) once, without the retries, since
 * the player is looking now; what came of each goes to ops.outcome as for
 * any push. No webhook post. Returns the pushes sent (a subscription that
 * can never be sent is dropped through ops.outcome instead). */
int notifier_test_send(struct notifier *n, const struct notifier_sub *subs, int count);
/* The payload of t as PROTOCOL.md "Notifications" gives it, into out (size
 * bytes): its length, or -1 when it does not fit. For tests too. */
int notifier_payload(const struct notifier_notice *t, char *out, size_t size);
/* E-mail too (NULL: none; m must outlive n): each time_low notice, told
 * once as the push is, is handed to mailer_reminder (notify/mail.h). */
struct mailer;
void notifier_mailer_set(struct notifier *n, struct mailer *m);
/* Stops: the retries waiting are dropped (their timers closed), later
 * answers of reads and pushes change nothing. Then run the loop until the
 * outbound client has answered everything (outbound_close) before
 * notifier_free. */
void notifier_close(struct notifier *n);
void notifier_free(struct notifier *n);

#endif
