#include "util/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "json_str.h"
#include "util/clock.h"

static int threshold = LOG_INFO;
static int format = LOG_TEXT;
static log_sink_fn sink;
static void *sink_ctx;
static const char *const names[] = {"error", "warn", "info", "debug"};

void log_level_set(int level)
{
    threshold = level;
}

int log_level_get(void)
{
    return threshold;
}

void log_format_set(int f)
{
    format = f == LOG_JSON ? LOG_JSON : LOG_TEXT;
}

int log_format_find(const char *name)
{
    if (strcmp(name, "text") == 0)
        return LOG_TEXT;
    if (strcmp(name, "json") == 0)
        return LOG_JSON;
    return -1;
}

static void repeat_reset(void);

void log_sink_set(log_sink_fn fn, void *ctx)
{
    sink = fn;
    sink_ctx = ctx;
    repeat_reset();
}

int log_level_find(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

const char *log_level_name(int level)
{
    return level >= 0 && level < 4 ? names[level] : "?";
}

/* ---- bounded writing ---- */

/* Appends that do not fit are refused whole (never half an escape), and the
 * writer stays usable for shorter ones: end is where text may reach. */
struct w {
    char *buf;
    size_t len, end;
};

static int w_put(struct w *w, const char *s, size_t n)
{
    if (n > w->end - w->len)
        return -1;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    return 0;
}

static int w_str(struct w *w, const char *s)
{
    return w_put(w, s, strlen(s));
}

/* s as the inside of a JSON string, as much as fits; returns 0 when whole. */
static int w_json(struct w *w, const char *s)
{
    size_t n = strlen(s), used;
    w->len +=
        proto_json_escape(w->buf + w->len, w->end - w->len, s, n, &used, PROTO_JSON_ANY_BYTES);
    return used == n ? 0 : -1;
}

/* s for a text line: control bytes as \xNN, so that one event stays one line. */
static int w_text(struct w *w, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        char esc[8];
        int r = *p < 0x20 || *p == 0x7f
                    ? w_put(w, esc, (size_t)snprintf(esc, sizeof esc, "\\x%02x", *p))
                    : w_put(w, (const char *)p, 1);
        if (r != 0)
            return -1;
    }
    return 0;
}

static void w_field_str(struct w *w, int fmt, const char *key, const char *v)
{
    if (v == NULL || v[0] == '\0')
        return;
    if (fmt == LOG_JSON) {
        size_t mark = w->len;
        if (w_str(w, ",\"") || w_str(w, key) || w_str(w, "\":\"") || w_json(w, v) || w_str(w, "\""))
            w->len = mark;
    } else {
        size_t mark = w->len;
        if (w_str(w, " ") || w_str(w, key) || w_str(w, "=") || w_text(w, v))
            w->len = mark;
    }
}

static void w_field_num(struct w *w, int fmt, const char *key, long v)
{
    char num[32];
    snprintf(num, sizeof num, "%ld", v);
    size_t mark = w->len;
    if (fmt == LOG_JSON ? w_str(w, ",\"") || w_str(w, key) || w_str(w, "\":") || w_str(w, num)
                        : w_str(w, " ") || w_str(w, key) || w_str(w, "=") || w_str(w, num))
        w->len = mark;
}

static void w_fields(struct w *w, int fmt, const struct log_fields *f)
{
    if (f == NULL)
        return;
    w_field_str(w, fmt, "room", f->room);
    if (f->has_seat)
        w_field_num(w, fmt, "seat", f->seat);
    w_field_str(w, fmt, "code", f->code);
    if (f->close != 0)
        w_field_num(w, fmt, "close", f->close);
    w_field_str(w, fmt, "addr", f->addr);
    if (f->session != 0)
        w_field_num(w, fmt, "session", (long)f->session);
}

size_t log_line_format(char *buf, size_t size, int fmt, int level, int64_t time_ms,
                       const struct log_fields *f, const char *text)
{
    if (size == 0)
        return 0;
    /* The fields go first into their own buffer: they are short and always
     * kept, the message gets what is left. */
    char fields[512];
    struct w fw = {fields, 0, sizeof fields};
    w_fields(&fw, fmt, f);
    /* Room for the fields, the JSON closing `"}` (or nothing), "\n" and NUL. */
    size_t tail = fw.len + (fmt == LOG_JSON ? 2 : 0) + 2;
    struct w w = {buf, 0, size > tail ? size - tail : 0};
    if (fmt == LOG_JSON) {
        time_t secs = (time_t)(time_ms / 1000);
        struct tm tm;
        char stamp[64];
        gmtime_r(&secs, &tm);
        size_t n = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(stamp + n, sizeof stamp - n, ".%03dZ", (int)(time_ms % 1000));
        if (w_str(&w, "{\"time\":\"") || w_str(&w, stamp) || w_str(&w, "\",\"level\":\"") ||
            w_str(&w, log_level_name(level)) || w_str(&w, "\",\"msg\":\"")) {
            buf[0] = '\0';
            return 0;
        }
        (void)w_json(&w, text);
        w.end = size - 1;
        (void)w_str(&w, "\"");
        (void)w_put(&w, fields, fw.len);
        (void)w_str(&w, "}\n");
    } else {
        (void)(w_str(&w, "carcd: ") || w_str(&w, log_level_name(level)) || w_str(&w, ": ") ||
               w_text(&w, text));
        w.end = size - 1;
        (void)w_put(&w, fields, fw.len);
        (void)w_str(&w, "\n");
    }
    buf[w.len] = '\0';
    return w.len;
}

/* One line to the sink or stderr, past every filter. */
static void line_write(int level, const struct log_fields *f, const char *text)
{
    if (sink != NULL) {
        char line[1024];
        struct w w = {line, 0, sizeof line - 1};
        (void)w_text(&w, text);
        w_fields(&w, LOG_TEXT, f);
        line[w.len] = '\0';
        sink(sink_ctx, level, line);
        return;
    }
    char line[2048];
    size_t n = log_line_format(line, sizeof line, format, level, clock_wall_ms(), f, text);
    /* One write per line, so that lines of threads logging at once do not mix. */
    fwrite(line, 1, n, stderr);
}

/* ---- repeats ---- */

/* A line held back, kept whole (its fields copied) so that it can be written
 * later, by log_repeat_flush or to make room in the table. */
struct held {
    unsigned long n; /* lines held back since the message's last line written */
    int level;
    char text[512];
    char room[32], code[48], addr[64];
    unsigned long session;
    int close, seat, has_seat;
};

struct repeat {
    uint64_t key;   /* 0: a free slot */
    int64_t credit; /* ms; a line costs LOG_REPEAT_MS, one ms is earned per ms */
    int64_t last;   /* when credit was last brought up to date */
    struct held h;
};

/* Every member is read and written under repeat_lock; the slots are zero (free) at start. */
static pthread_mutex_t repeat_lock = PTHREAD_MUTEX_INITIALIZER;
static struct repeat repeats[LOG_REPEAT_SLOTS];
static int64_t repeat_now = -1;

static void repeat_reset(void)
{
    pthread_mutex_lock(&repeat_lock);
    memset(repeats, 0, sizeof repeats);
    pthread_mutex_unlock(&repeat_lock);
}

void log_repeat_clock_set(int64_t now_ms)
{
    pthread_mutex_lock(&repeat_lock);
    repeat_now = now_ms;
    pthread_mutex_unlock(&repeat_lock);
}

/* Durations do not follow the wall clock (log.h). Under repeat_lock. */
static int64_t repeat_clock(void)
{
    return repeat_now >= 0 ? repeat_now : clock_mono_ms();
}

/* FNV-1a over the bytes of s that are not numbers: digits, and the hex digits
 * after "0x" (lws prints pointers), so that "accept: errno 24" and a pointer
 * in lws's lines do not make each line a message of its own. */
static uint64_t hash_words(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (p[0] == '0' && p[1] == 'x') {
            p++;
            while (p[1] != '\0' && strchr("0123456789abcdefABCDEF", p[1]) != NULL)
                p++;
            continue;
        }
        if (*p >= '0' && *p <= '9')
            continue;
        h = (h ^ *p) * 1099511628211u;
    }
    return h;
}

/* What makes two lines repeats of one another: the same level and the same
 * text but for its numbers (log.h). Never 0 (a free slot). */
static uint64_t repeat_key(int level, const char *text)
{
    uint64_t h = hash_words(14695981039346656037u ^ (uint64_t)(level + 1), text);
    return h != 0 ? h : 1;
}

static void credit_update(struct repeat *r, int64_t now)
{
    int64_t cap = (int64_t)LOG_REPEAT_BURST * LOG_REPEAT_MS;
    if (now > r->last)
        r->credit += now - r->last;
    if (r->credit > cap)
        r->credit = cap;
    r->last = now;
}

static void copy_str(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src != NULL ? src : "");
}

static void held_keep(struct held *h, int level, const struct log_fields *f, const char *text)
{
    h->n++;
    h->level = level;
    copy_str(h->text, sizeof h->text, text);
    struct log_fields none = {0};
    if (f == NULL)
        f = &none;
    copy_str(h->room, sizeof h->room, f->room);
    copy_str(h->code, sizeof h->code, f->code);
    copy_str(h->addr, sizeof h->addr, f->addr);
    h->session = f->session;
    h->close = f->close;
    h->seat = f->seat;
    h->has_seat = f->has_seat;
}

/* text, ending "(N more like this suppressed)" when more is not 0. */
static void line_write_counted(int level, const struct log_fields *f, const char *text,
                               unsigned long more)
{
    if (more == 0) {
        line_write(level, f, text);
        return;
    }
    char buf[600];
    snprintf(buf, sizeof buf, "%s (%lu more like this suppressed)", text, more);
    line_write(level, f, buf);
}

/* The last line h held back, standing for the h->n - 1 before it; h is then empty. */
static void held_write(struct held *h)
{
    if (h->n == 0)
        return;
    struct log_fields f = {.room = h->room,
                           .code = h->code,
                           .addr = h->addr,
                           .session = h->session,
                           .close = h->close,
                           .seat = h->seat,
                           .has_seat = h->has_seat};
    line_write_counted(h->level, &f, h->text, h->n - 1);
    h->n = 0;
}

/* The slot of key: its own, a free one, or the one seen longest ago among
 * the few key may use (whose held line is written first: nothing is dropped
 * unsaid). Under repeat_lock. */
static struct repeat *repeat_slot(uint64_t key, int64_t now)
{
    enum { WAYS = 4 };
    struct repeat *pick = NULL;
    for (unsigned i = 0; i < WAYS; i++) {
        struct repeat *r = &repeats[(key + i) & (LOG_REPEAT_SLOTS - 1)];
        if (r->key == key)
            return r;
        if (pick == NULL || (pick->key != 0 && (r->key == 0 || r->last < pick->last)))
            pick = r;
    }
    held_write(&pick->h);
    memset(pick, 0, sizeof *pick);
    pick->key = key;
    pick->credit = (int64_t)LOG_REPEAT_BURST * LOG_REPEAT_MS;
    pick->last = now;
    return pick;
}

_Static_assert((LOG_REPEAT_SLOTS & (LOG_REPEAT_SLOTS - 1)) == 0, "a power of two");

/* Write the line, or hold it back (log.h). The lock is held while writing:
 * lines are written in the order they were let through, and a sink must not
 * log. */
static void line_limited(int level, const struct log_fields *f, const char *text, uint64_t key)
{
    if (level >= LOG_DEBUG) {
        line_write(level, f, text); /* asked for, to diagnose: every line */
        return;
    }
    pthread_mutex_lock(&repeat_lock);
    int64_t now = repeat_clock();
    struct repeat *r = repeat_slot(key, now);
    credit_update(r, now);
    if (r->credit >= LOG_REPEAT_MS) {
        r->credit -= LOG_REPEAT_MS;
        unsigned long more = r->h.n;
        r->h.n = 0;
        line_write_counted(level, f, text, more);
    } else {
        held_keep(&r->h, level, f, text);
    }
    pthread_mutex_unlock(&repeat_lock);
}

void log_repeat_flush(int all)
{
    pthread_mutex_lock(&repeat_lock);
    int64_t now = repeat_clock();
    for (int i = 0; i < LOG_REPEAT_SLOTS; i++) {
        struct repeat *r = &repeats[i];
        if (r->key == 0 || r->h.n == 0)
            continue;
        credit_update(r, now);
        if (r->credit < LOG_REPEAT_MS && !all)
            continue;
        r->credit = r->credit >= LOG_REPEAT_MS ? r->credit - LOG_REPEAT_MS : 0;
        held_write(&r->h);
    }
    pthread_mutex_unlock(&repeat_lock);
}

void log_text(int level, const struct log_fields *f, const char *text)
{
    if (level > threshold || level < 0)
        return;
    line_limited(level, f, text, repeat_key(level, text));
}

void log_event(int level, const struct log_fields *f, const char *fmt, ...)
{
    if (level > threshold || level < 0)
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    line_limited(level, f, text, repeat_key(level, text));
}

void log_msg(int level, const char *fmt, ...)
{
    if (level > threshold || level < 0)
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    line_limited(level, NULL, text, repeat_key(level, text));
}
