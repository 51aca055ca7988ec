#include "util/log.h"

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

void log_sink_set(log_sink_fn fn, void *ctx)
{
    sink = fn;
    sink_ctx = ctx;
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

void log_text(int level, const struct log_fields *f, const char *text)
{
    if (level > threshold || level < 0)
        return;
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

void log_event(int level, const struct log_fields *f, const char *fmt, ...)
{
    if (level > threshold)
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    log_text(level, f, text);
}

void log_msg(int level, const char *fmt, ...)
{
    if (level > threshold)
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    log_text(level, NULL, text);
}
