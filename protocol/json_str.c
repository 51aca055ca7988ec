/* json_str.c: see json_str.h. */
#include "json_str.h"

#include <string.h>

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0 for a
 * stray continuation byte, an overlong form, a surrogate or a code point
 * past U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0], cp;
    size_t len;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* The escape of control byte c into esc (7 bytes); returns its length. */
static size_t escape_control(unsigned c, char *esc, int lower)
{
    const char *hex = lower ? "0123456789abcdef" : "0123456789ABCDEF";
    esc[0] = '\\';
    switch (c) {
    case '"':
    case '\\':
        esc[1] = (char)c;
        return 2;
    case '\b':
        esc[1] = 'b';
        return 2;
    case '\f':
        esc[1] = 'f';
        return 2;
    case '\n':
        esc[1] = 'n';
        return 2;
    case '\r':
        esc[1] = 'r';
        return 2;
    case '\t':
        esc[1] = 't';
        return 2;
    default:
        memcpy(esc + 1, "u00", 3);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        return 6;
    }
}

size_t proto_json_escape(char *out, size_t cap, const char *s, size_t n, size_t *used,
                         unsigned flags)
{
    const unsigned char *p = (const unsigned char *)s;
    int any = (flags & PROTO_JSON_ANY_BYTES) != 0;
    size_t i = 0, o = 0;
    while (i < n) {
        /* The common case: a run that is written as it is. */
        size_t run = i;
        while (run < n && p[run] >= 0x20 && p[run] != '"' && p[run] != '\\' &&
               (!any || p[run] < 0x7f))
            run++;
        size_t k = run - i;
        if (k > cap - o)
            k = cap - o;
        memcpy(out + o, p + i, k);
        o += k;
        i += k;
        if (i < run || i == n)
            break;
        char esc[8];
        const char *w = esc;
        size_t wlen, in = 1;
        unsigned c = p[i];
        if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f) {
            wlen = escape_control(c, esc, any);
        } else if ((in = utf8_len(p + i, n - i)) == 0) { /* any: c >= 0x80 */
            w = "\\ufffd";
            wlen = 6;
            in = 1;
        } else {
            w = (const char *)p + i;
            wlen = in;
        }
        if (wlen > cap - o)
            break;
        memcpy(out + o, w, wlen);
        o += wlen;
        i += in;
    }
    if (used != NULL)
        *used = i;
    return o;
}

void proto_json_str_append(char *out, size_t size, size_t *len, const char *s)
{
    size_t n = *len;
    if (n + 3 > size) { /* no room for "" and the NUL */
        if (n < size)
            out[n] = '\0';
        return;
    }
    out[n++] = '"';
    n += proto_json_escape(out + n, size - n - 2, s, strlen(s), NULL, 0);
    out[n++] = '"';
    out[n] = '\0';
    *len = n;
}
