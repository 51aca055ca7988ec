/* mail_text.c: the text of carcd's e-mail (mail.h "the messages"): RFC 5322
 * headers (Date, Message-ID, List-Unsubscribe and List-Unsubscribe-Post),
 * then a plain-text UTF-8 body, CRLF line ends, no line over 998 bytes
 * (names are at most NOTIFIER_NAME_MAX bytes). libcurl's SMTP upload
 * escapes a line that starts with '.'. */
#include "notify/mail.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/rand.h"

struct out {
    char *p;
    size_t size, len;
    int over;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
    if (o->over)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->p + o->len, o->size - o->len, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= o->size - o->len)
        o->over = 1;
    else
        o->len += (size_t)k;
}

/* The base of links: public_url without a trailing '/'. */
static int base_len(const struct mail_config *c)
{
    size_t n = strlen(c->public_url);
    while (n > 0 && c->public_url[n - 1] == '/')
        n--;
    return (int)n;
}

static void headers(struct out *o, const struct mail_config *c, const struct mail_account *a,
                    const char *subject, long long now_ms)
{
    char date[64];
    time_t t = (time_t)(now_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tm);
    const char *domain = strchr(c->from, '@');
    int b = base_len(c);
    put(o, "From: carcd <%s>\r\nTo: <%s>\r\nSubject: %s\r\nDate: %s\r\n", c->from, a->address,
        subject, date);
    put(o, "Message-ID: <%lld.%016llx@%s>\r\n", now_ms, (unsigned long long)rand_u64(),
        domain != NULL ? domain + 1 : "carcd");
    put(o, "List-Unsubscribe: <%.*s/unsubscribe?token=%s>\r\n", b, c->public_url, a->unsub);
    put(o, "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n");
    put(o, "Auto-Submitted: auto-generated\r\nMIME-Version: 1.0\r\n");
    put(o, "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n");
}

static void footer(struct out *o, const struct mail_config *c, const struct mail_account *a)
{
    put(o, "\r\n-- \r\nYou get this because you gave this address to carcd at %.*s.\r\n",
        base_len(c), c->public_url);
    put(o, "To stop these e-mails: %.*s/unsubscribe?token=%s\r\n", base_len(c), c->public_url,
        a->unsub);
}

/* "2 d 3 h", "5 h 12 min", "4 min", "less than a minute", or "no clock". */
static void left_words(long long deadline, long long now_ms, char *out, size_t size)
{
    if (deadline <= 0) {
        snprintf(out, size, "no clock");
        return;
    }
    long long s = (deadline - now_ms) / 1000;
    if (s < 60)
        snprintf(out, size, "less than a minute left");
    else if (s < 3600)
        snprintf(out, size, "%lld min left", s / 60);
    else if (s < 86400)
        snprintf(out, size, "%lld h %lld min left", s / 3600, s % 3600 / 60);
    else
        snprintf(out, size, "%lld d %lld h left", s / 86400, s % 86400 / 3600);
}

/* One game: "* Room ID against A, B: 2 h 5 min left", then its link. */
static void game_lines(struct out *o, const struct mail_config *c, const char *room, int seat,
                       int n, const char (*names)[NOTIFIER_NAME_MAX], long long deadline,
                       long long now_ms)
{
    char left[48];
    left_words(deadline, now_ms, left, sizeof left);
    put(o, "* Room %s", room);
    for (int i = 0, first = 1; i < n; i++) {
        if (i == seat)
            continue;
        put(o, "%s%s", first ? " against " : ", ", names[i]);
        first = 0;
    }
    put(o, ": %s\r\n  %.*s/#room=%s\r\n", left, base_len(c), c->public_url, room);
}

int mail_digest_text(const struct mail_config *c, const struct mail_account *a,
                     const struct mail_game *games, int n, long long now_ms, char *out, size_t size)
{
    struct out o = {out, size, 0, 0};
    char subject[64];
    snprintf(subject, sizeof subject, "carcd: %d %s for you", n,
             n == 1 ? "game waits" : "games wait");
    headers(&o, c, a, subject, now_ms);
    put(&o, "It is your move in %d %s:\r\n\r\n", n, n == 1 ? "game" : "games");
    for (int i = 0; i < n && i < MAIL_PER_DIGEST; i++)
        game_lines(&o, c, games[i].room, games[i].seat, games[i].n, games[i].names,
                   games[i].deadline, now_ms);
    if (n > MAIL_PER_DIGEST)
        put(&o, "... and %d more: %.*s/\r\n", n - MAIL_PER_DIGEST, base_len(c), c->public_url);
    footer(&o, c, a);
    return o.over ? -1 : (int)o.len;
}

int mail_reminder_text(const struct mail_config *c, const struct mail_account *a,
                       const struct notifier_notice *t, long long now_ms, char *out, size_t size)
{
    struct out o = {out, size, 0, 0};
    char subject[NOTIFIER_ROOM_MAX + 48];
    snprintf(subject, sizeof subject, "carcd: your clock runs low in room %s", t->room);
    headers(&o, c, a, subject, now_ms);
    put(&o, "It is your move, and your clock runs low:\r\n\r\n");
    game_lines(&o, c, t->room, t->seat, t->n, t->names, t->deadline, now_ms);
    footer(&o, c, a);
    return o.over ? -1 : (int)o.len;
}

long long mail_digest_wait(int digest_hour, long long now_ms)
{
    const long long day = 86400000LL;
    long long at = now_ms - now_ms % day + (long long)digest_hour * 3600000LL;
    while (at <= now_ms)
        at += day;
    return at - now_ms;
}
