#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CARC__EWIRE(name, wire, text) wire,
static const char *const wire_names[] = {"ok", CARC_ERRNO_MAP(CARC__EWIRE)};
#undef CARC__EWIRE
#define CARC__ETEXT(name, wire, text) text,
static const char *const texts[] = {"success", CARC_ERRNO_MAP(CARC__ETEXT)};
#undef CARC__ETEXT

const char *carc_err_name(int code)
{
    if (code > 0 || -code >= CARC__EPOS_COUNT)
        return "unknown";
    return wire_names[-code];
}

const char *carc_err_str(int code)
{
    if (code > 0 || -code >= CARC__EPOS_COUNT)
        return "unknown error";
    return texts[-code];
}

int carc_err_from_name(const char *name)
{
    for (int i = 1; i < CARC__EPOS_COUNT; i++)
        if (strcmp(wire_names[i], name) == 0)
            return -i;
    return 0;
}

int carc_error_set(struct carc_error *err, int code, const char *fmt, ...)
{
    if (err == NULL || err->code != 0)
        return code;
    err->code = code;
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
