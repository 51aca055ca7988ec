/* log.h: one line per event on stderr, filtered by level, as text or as one
 * JSON object (log-format). An event may name the room, seat, error or close
 * code, peer address and session it concerns (struct log_fields): the text
 * format appends them as `room=ABCD seat=2 code=x`, the JSON format makes them
 * keys. Seat tokens and passwords are never passed to these functions.
 *
 * Repeats are rate-limited, so that a fault that recurs in a tight loop (a
 * failing accept, a client flood) cannot fill the disk: lines whose text is
 * the same but for its numbers (digits, and the hex digits after "0x"; the
 * fields do not count), at one level, are repeats of one message, which may
 * write LOG_REPEAT_BURST lines at once and then one a second. Lines that say
 * different things (an admin request for another path) are not held back for
 * each other. Put what varies between occurrences of one event in its fields
 * or in numbers, not in words. A line held back is counted, not lost:
 * the next line of that message to get through ends "(N more like this
 * suppressed)", and log_repeat_flush writes the last one held back once a line
 * is allowed again. Debug lines are not limited: log-level = debug is asked
 * for to see everything. Thread safe (the thread pool logs too). */
#ifndef CARCD_LOG_H
#define CARCD_LOG_H

#include <stddef.h>
#include <stdint.h>

enum log_level { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };
enum log_format { LOG_TEXT = 0, LOG_JSON };

/* The process-wide threshold (default LOG_INFO). */
void log_level_set(int level);
int log_level_get(void);

/* Level by name ("error", "warn", "info", "debug"), or -1. */
int log_level_find(const char *name);
const char *log_level_name(int level);

/* The process-wide format (default LOG_TEXT); by name ("text", "json"), or -1. */
void log_format_set(int format);
int log_format_find(const char *name);

/* What an event is about; every member is optional (NULL or 0: not known,
 * omitted from the line). Strings are borrowed for the call. Write
 * `&(struct log_fields){.room = r->id, LOG_SEAT(i)}`. */
struct log_fields {
    const char *room; /* room id */
    const char *code; /* error code name (common/err.h), or another short word */
    const char *addr; /* the client's address (behind a trusted proxy, the forwarded one) */
    unsigned long session;
    int close; /* websocket close code */
    int seat;  /* seat index, when has_seat */
    int has_seat;
};
#define LOG_SEAT(i) .seat = (i), .has_seat = 1

/* Log fmt with the fields f (NULL: none). */
void log_event(int level, const struct log_fields *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

void log_msg(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* An already formatted text (lws's own lines go through here): the same
 * threshold, format and sink as log_event. */
void log_text(int level, const struct log_fields *f, const char *text);

/* One whole line in format (LOG_TEXT: "carcd: LEVEL: text room=.. seat=..";
 * LOG_JSON: {"time":"2026-12-01T16:45:00.123Z","level":..,"msg":..,"room":..})
 * with its newline, into buf (NUL-terminated, truncated to fit: a JSON line
 * stays a whole object, cut only inside "msg"). time_ms: ms since 1970.
 * Bytes below 0x20 become escapes in both formats, so an event is one line;
 * in JSON, bytes that are not UTF-8 become U+FFFD. Returns the length. Pure:
 * the tests call it directly. */
size_t log_line_format(char *buf, size_t size, int format, int level, int64_t time_ms,
                       const struct log_fields *f, const char *text);

/* Where the lines that pass the threshold go: by default stderr, formatted as
 * above. A sink gets the level and the text with the fields in text form
 * ("text room=ABCD seat=2"; no prefix, no newline; borrowed, valid during the
 * call); NULL restores stderr. Process-wide: set it before other threads log
 * (the tests use it to capture the lines they provoke on purpose). Setting it
 * also forgets the repeat limiter's history, so that a capture starts fresh. */
typedef void (*log_sink_fn)(void *ctx, int level, const char *text);
void log_sink_set(log_sink_fn fn, void *ctx);

/* The repeat limiter (above): lines of one message at once, then one per
 * LOG_REPEAT_MS. Messages are told apart by a table of LOG_REPEAT_SLOTS;
 * when more are held back at once, the one seen longest ago is written out
 * (with its count) to make room. */
#define LOG_REPEAT_BURST 10
#define LOG_REPEAT_MS 1000
#define LOG_REPEAT_SLOTS 256

/* For every message with lines held back: once it may log again (or at once,
 * when all is nonzero: at exit), write the last line held back, ending "(N
 * more like this suppressed)" when it stood for more than itself. main.c
 * calls it once a second and before it exits. */
void log_repeat_flush(int all);

/* The limiter's clock, in ms (monotonic, not wall time); for tests: now_ms
 * >= 0 fixes it, -1 returns to CLOCK_MONOTONIC. */
void log_repeat_clock_set(int64_t now_ms);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
