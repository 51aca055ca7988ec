/* perror.h: the caller-owned error of every protocol/ decoder and encoder.
 *
 * Like jansson's json_error_t: the FIRST failure is kept (later ones are
 * usually consequences), with a machine code from common/err.h, the path of
 * the offending field ("moves[3].meeple.kind", "" for the document itself)
 * and a human sentence. `move` is the index of the record move the field lies
 * in, or -1, so tools can report "move i" without parsing the path. */
#ifndef PROTO_PERROR_H
#define PROTO_PERROR_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

struct proto_error {
    int code;       /* CARC_E_*, 0 while no error */
    int move;       /* record move index the field belongs to, or -1 */
    char field[64]; /* JSON path of the field, "" for the whole text */
    char text[160]; /* human sentence, without the field */
};

static inline void proto_error_init(struct proto_error *err)
{
    if (err == NULL)
        return;
    err->code = 0;
    err->move = -1;
    err->field[0] = '\0';
    err->text[0] = '\0';
}

/* Fill err (may be NULL) unless it already holds an error; returns code so
 * callers can `return proto_error_set(...)`. fmt NULL uses carc_err_str(code). */
static inline int proto_error_set(struct proto_error *err, int code, int move, const char *field,
                                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static inline int proto_error_set(struct proto_error *err, int code, int move, const char *field,
                                  const char *fmt, ...)
{
    if (err == NULL || err->code != 0)
        return code;
    err->code = code;
    err->move = move;
    snprintf(err->field, sizeof err->field, "%s", field != NULL ? field : "");
    if (fmt == NULL) {
        snprintf(err->text, sizeof err->text, "%s", carc_err_str(code));
        return code;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    return code;
}

#endif
