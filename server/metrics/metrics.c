/* metrics.c: the registry's histograms and the text exposition writer
 * (Prometheus text format 0.0.4). */
#include "metrics/metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void metrics_family_observe(struct metrics_family *f, int i, double x)
{
    if (i < 0 || i >= f->nseries)
        return;
    int b = 0;
    while (b < f->nbounds && x > f->bounds[b])
        b++;
    f->buckets[(size_t)i * (size_t)(f->nbounds + 1) + (size_t)b]++;
    f->sum[i] += x;
}

static int text_reserve(struct metrics_text *t, size_t more)
{
    if (t->failed)
        return -1;
    if (t->len + more + 1 <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + more + 1)
        cap *= 2;
    char *p = realloc(t->p, cap);
    if (p == NULL) {
        free(t->p);
        t->p = NULL;
        t->len = t->cap = 0;
        t->failed = 1;
        return -1;
    }
    t->p = p;
    t->cap = cap;
    return 0;
}

static void text_put(struct metrics_text *t, const char *s, size_t n)
{
    if (text_reserve(t, n) != 0)
        return;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static void text_str(struct metrics_text *t, const char *s)
{
    text_put(t, s, strlen(s));
}

void metrics_text_printf(struct metrics_text *t, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof buf) {
        text_put(t, buf, (size_t)n);
        return;
    }
    if (text_reserve(t, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

char *metrics_text_take(struct metrics_text *t)
{
    char *p = t->failed ? NULL : t->p;
    if (p == NULL && !t->failed) {
        p = malloc(1);
        if (p != NULL)
            p[0] = '\0';
    }
    memset(t, 0, sizeof *t);
    return p;
}

void metrics_number_format(double x, char *out, size_t size)
{
    if (isnan(x)) {
        snprintf(out, size, "NaN");
    } else if (isinf(x)) {
        snprintf(out, size, x > 0 ? "+Inf" : "-Inf");
    } else if (x == floor(x) && fabs(x) < 9007199254740992.0) {
        snprintf(out, size, "%.0f", x);
    } else {
        /* The shortest of %.15g .. %.17g that reads back as x. */
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(out, size, "%.*g", prec, x);
            if (strtod(out, NULL) == x)
                break;
        }
    }
}

/* s with backslash and newline escaped, and the double quote when quote. */
static void text_escaped(struct metrics_text *t, const char *s, int quote)
{
    for (; *s != '\0'; s++) {
        if (*s == '\\')
            text_put(t, "\\\\", 2);
        else if (*s == '\n')
            text_put(t, "\\n", 2);
        else if (*s == '"' && quote)
            text_put(t, "\\\"", 2);
        else
            text_put(t, s, 1);
    }
}

/* name + suffix, then {label="value"[,le="bound"]} when there is any label. */
static void text_series(struct metrics_text *t, const struct metrics_family *f, const char *suffix,
                        int i, const char *le)
{
    text_str(t, f->name);
    text_str(t, suffix);
    if (f->label == NULL && le == NULL)
        return;
    text_put(t, "{", 1);
    if (f->label != NULL) {
        text_str(t, f->label);
        text_put(t, "=\"", 2);
        text_escaped(t, f->values[f->label2 != NULL ? i / f->nvalues2 : i], 1);
        text_put(t, "\"", 1);
    }
    if (f->label != NULL && f->label2 != NULL) {
        text_put(t, ",", 1);
        text_str(t, f->label2);
        text_put(t, "=\"", 2);
        text_escaped(t, f->values2[i % f->nvalues2], 1);
        text_put(t, "\"", 1);
    }
    if (le != NULL) {
        if (f->label != NULL)
            text_put(t, ",", 1);
        text_put(t, "le=\"", 4);
        text_str(t, le);
        text_put(t, "\"", 1);
    }
    text_put(t, "}", 1);
}

static void text_value(struct metrics_text *t, double x)
{
    char num[40];
    metrics_number_format(x, num, sizeof num);
    text_put(t, " ", 1);
    text_str(t, num);
    text_put(t, "\n", 1);
}

static void text_histogram(struct metrics_text *t, const struct metrics_family *f, int i)
{
    const uint64_t *b = f->buckets + (size_t)i * (size_t)(f->nbounds + 1);
    uint64_t cum = 0;
    char le[40];
    for (int k = 0; k <= f->nbounds; k++) {
        cum += b[k];
        if (k < f->nbounds)
            metrics_number_format(f->bounds[k], le, sizeof le);
        else
            snprintf(le, sizeof le, "+Inf");
        text_series(t, f, "_bucket", i, le);
        text_value(t, (double)cum);
    }
    text_series(t, f, "_sum", i, NULL);
    text_value(t, f->sum[i]);
    text_series(t, f, "_count", i, NULL);
    text_value(t, (double)cum);
}

void metrics_text_family(struct metrics_text *t, const struct metrics_family *f)
{
    static const char *const types[] = {"counter", "gauge", "histogram"};
    text_str(t, "# HELP ");
    text_str(t, f->name);
    text_put(t, " ", 1);
    text_escaped(t, f->help, 0);
    text_str(t, "\n# TYPE ");
    text_str(t, f->name);
    text_put(t, " ", 1);
    text_str(t, types[f->kind]);
    text_put(t, "\n", 1);
    for (int i = 0; i < f->nseries; i++) {
        if (f->kind == METRICS_HISTOGRAM) {
            text_histogram(t, f, i);
        } else {
            text_series(t, f, "", i, NULL);
            text_value(t, f->v[i]);
        }
    }
}
