/* name.c: see name.h. */
#include "name.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

/* The code point at p (*len bytes). Text that is not UTF-8 (jansson refused
 * it on the wire; a stored name is the decoder's) reads as its first byte
 * alone, so the walk always moves on. */
static uint32_t utf8_get(const unsigned char *p, int *len)
{
    if (p[0] < 0x80) {
        *len = 1;
        return p[0];
    }
    int n = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC0 ? 2 : 1;
    uint32_t c = n == 4 ? p[0] & 0x07u : n == 3 ? p[0] & 0x0Fu : p[0] & 0x1Fu;
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *len = 1;
            return p[0];
        }
        c = (c << 6) | (p[i] & 0x3Fu);
    }
    *len = n;
    return n == 1 ? p[0] : c;
}

static size_t utf8_put(uint32_t c, char *out)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Unicode's White_Space characters that are not controls. */
static int is_space(uint32_t c)
{
    return c == 0x20 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

size_t proto_name_trim(char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t start = 0, end = 0, i = 0;
    int seen = 0;
    while (p[i] != '\0') {
        int n;
        uint32_t c = utf8_get(p + i, &n);
        if (!is_space(c)) {
            if (!seen)
                start = i;
            seen = 1;
            end = i + (size_t)n;
        }
        i += (size_t)n;
    }
    size_t len = seen ? end - start : 0;
    memmove(s, s + start, len);
    s[len] = '\0';
    return len;
}

/* What c is when a name may not hold it, or NULL. */
static const char *forbidden(uint32_t c)
{
    if (c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
        (c >= 0x2066 && c <= 0x2069))
        return "a bidirectional control";
    if ((c >= 0x200B && c <= 0x200D) || (c >= 0x2060 && c <= 0x2064) || c == 0xFEFF || c == 0xAD ||
        c == 0x034F || c == 0x180E || (c >= 0x206A && c <= 0x206F) || c == 0x115F || c == 0x1160 ||
        c == 0x3164 || c == 0xFFA0)
        return "an invisible character";
    if (c == 0x2028 || c == 0x2029)
        return "a line break";
    /* The rest of Unicode's format characters (category Cf). */
    if ((c >= 0x0600 && c <= 0x0605) || c == 0x06DD || c == 0x070F || c == 0x0890 || c == 0x0891 ||
        c == 0x08E2 || (c >= 0xFFF9 && c <= 0xFFFB) || c == 0x110BD || c == 0x110CD ||
        (c >= 0x13430 && c <= 0x1343F) || (c >= 0x1BCA0 && c <= 0x1BCA3) ||
        (c >= 0x1D173 && c <= 0x1D17A) || c == 0xE0001 || (c >= 0xE0020 && c <= 0xE007F))
        return "a format character";
    return NULL;
}

int proto_name_check(const char *s, char *why, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; p[i] != '\0';) {
        int n;
        uint32_t c = utf8_get(p + i, &n);
        const char *what = forbidden(c);
        if (what != NULL) {
            snprintf(why, size, "must not contain U+%04X (%s)", (unsigned)c, what);
            return CARC_E_INVAL;
        }
        i += (size_t)n;
    }
    if (size > 0)
        why[0] = '\0';
    return 0;
}

/* An upper-case letter of a pair whose lower case is the next code point:
 * even ones in [lo, hi] (odd: the odd ones). */
static int pair_upper(uint32_t c, uint32_t lo, uint32_t hi, int odd)
{
    return c >= lo && c <= hi && (int)(c & 1) == odd;
}

static uint32_t fold_latin(uint32_t c)
{
    if (c < 0x100) {
        if (c == 0xB5)
            return 0x3BC; /* micro sign: Greek mu */
        return (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) ? c + 32 : c;
    }
    if (c < 0x180) { /* Latin Extended-A */
        if (c == 0x178)
            return 0xFF;
        if (c == 0x17F)
            return 's'; /* long s */
        if (pair_upper(c, 0x100, 0x12F, 0) || pair_upper(c, 0x132, 0x137, 0) ||
            pair_upper(c, 0x139, 0x148, 1) || pair_upper(c, 0x14A, 0x177, 0) ||
            pair_upper(c, 0x179, 0x17E, 1))
            return c + 1;
        return c; /* U+0130 and U+0131 (Turkish i) fold only in full or Turkic folding */
    }
    if (c == 0x1E9B)
        return 0x1E61;
    if (c == 0x1E9E)
        return 0xDF; /* capital sharp s */
    if (pair_upper(c, 0x1E00, 0x1E95, 0) || pair_upper(c, 0x1EA0, 0x1EFF, 0))
        return c + 1;
    return c;
}

static uint32_t fold_greek(uint32_t c)
{
    static const uint32_t map[][2] = {
        {0x345, 0x3B9}, {0x37F, 0x3F3}, {0x386, 0x3AC}, {0x38C, 0x3CC}, {0x3C2, 0x3C3},
        {0x3CF, 0x3D7}, {0x3D0, 0x3B2}, {0x3D1, 0x3B8}, {0x3D5, 0x3C6}, {0x3D6, 0x3C0},
        {0x3F0, 0x3BA}, {0x3F1, 0x3C1}, {0x3F4, 0x3B8}, {0x3F5, 0x3B5}, {0x3F7, 0x3F8},
        {0x3F9, 0x3F2}, {0x3FA, 0x3FB},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i][0] == c)
            return map[i][1];
    if (c >= 0x388 && c <= 0x38A)
        return c + 37;
    if (c == 0x38E || c == 0x38F)
        return c + 63;
    if ((c >= 0x391 && c <= 0x3A1) || (c >= 0x3A3 && c <= 0x3AB))
        return c + 32;
    if (c >= 0x3FD && c <= 0x3FF)
        return c - 0x82;
    if (pair_upper(c, 0x370, 0x373, 0) || c == 0x376 || pair_upper(c, 0x3D8, 0x3EF, 0))
        return c + 1;
    return c;
}

static uint32_t fold_cyrillic(uint32_t c)
{
    if (c >= 0x400 && c <= 0x40F)
        return c + 80;
    if (c >= 0x410 && c <= 0x42F)
        return c + 32;
    if (c == 0x4C0)
        return 0x4CF;
    if (pair_upper(c, 0x460, 0x481, 0) || pair_upper(c, 0x48A, 0x4BF, 0) ||
        pair_upper(c, 0x4C1, 0x4CE, 1) || pair_upper(c, 0x4D0, 0x52F, 0))
        return c + 1;
    return c;
}

/* Simple case folding (CaseFolding.txt, statuses C and S) of the scripts
 * above, and the letterlike symbols that fold into them. */
static uint32_t fold(uint32_t c)
{
    if (c < 0x345 || (c >= 0x1E00 && c <= 0x1EFF))
        return fold_latin(c);
    if (c < 0x400)
        return fold_greek(c);
    if (c < 0x530)
        return fold_cyrillic(c);
    if (c == 0x2126)
        return 0x3C9; /* ohm sign: omega */
    if (c == 0x212A)
        return 'k'; /* kelvin sign */
    if (c == 0x212B)
        return 0xE5; /* angstrom sign */
    return c;
}

/* Variation selectors change how a character is drawn, not which it is. */
static int is_selector(uint32_t c)
{
    return (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0100 && c <= 0xE01EF);
}

void proto_name_fold(const char *s, char *out, size_t size)
{
    if (size == 0)
        return;
    char buf[4 * 64];
    snprintf(buf, sizeof buf, "%s", s);
    proto_name_trim(buf);
    const unsigned char *p = (const unsigned char *)buf;
    size_t o = 0;
    for (size_t i = 0; p[i] != '\0';) {
        int n;
        uint32_t c = utf8_get(p + i, &n);
        char enc[4];
        size_t m = (size_t)n;
        if (is_selector(c)) {
            m = 0;
        } else if (n == 1 && c >= 0x80) {
            enc[0] = (char)c; /* not UTF-8: kept as it is */
        } else {
            m = utf8_put(fold(c), enc);
        }
        if (o + m >= size)
            break;
        memcpy(out + o, enc, m);
        o += m;
        i += (size_t)n;
    }
    out[o] = '\0';
}

int proto_name_same(const char *a, const char *b)
{
    char ka[4 * 64], kb[4 * 64];
    proto_name_fold(a, ka, sizeof ka);
    proto_name_fold(b, kb, sizeof kb);
    return strcmp(ka, kb) == 0;
}
