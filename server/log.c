#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int threshold = LOG_INFO;
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

void log_msg(int level, const char *fmt, ...)
{
    if (level > threshold)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (sink != NULL) {
        sink(sink_ctx, level, line);
        return;
    }
    fprintf(stderr, "carcd: %s: %s\n", names[level], line);
}
