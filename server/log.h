/* log.h: one-line logs on stderr, filtered by level. Seat tokens and
 * passwords are never passed to these functions. */
#ifndef CARCD_LOG_H
#define CARCD_LOG_H

enum log_level { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* The process-wide threshold (default LOG_INFO). */
void log_level_set(int level);
int log_level_get(void);

/* Level by name ("error", "warn", "info", "debug"), or -1. */
int log_level_find(const char *name);
const char *log_level_name(int level);

void log_msg(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Where the lines that pass the threshold go: by default stderr, as
 * "carcd: LEVEL: text". A sink gets the level and the text alone (no prefix, no
 * newline; borrowed, valid during the call); NULL restores stderr. Process-wide:
 * set it before other threads log (the tests use it to capture the lines they
 * provoke on purpose). */
typedef void (*log_sink_fn)(void *ctx, int level, const char *text);
void log_sink_set(log_sink_fn fn, void *ctx);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
