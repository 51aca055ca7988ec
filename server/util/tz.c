/* tz.c: see tz.h. */
#include "util/tz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/mem.h"

#define DAY_MS 86400000LL
#define TZIF_MAX 65536 /* bytes of a TZif file read; real ones are under 4 KiB */
#define WALK_DEPTH 4   /* zoneinfo has two levels (America/Argentina/Salta: three) */

#define KEEP_FROM_MS 1577836800000LL /* 2020-01-01: older changes are no clock's business */

struct tz_db {
    struct tz_zone *zones;
    size_t n, cap;
};

static const struct tz_zone utc_zone = {.name = "UTC"};

/* ---- calendar arithmetic (proleptic Gregorian, days since 1970-01-01) ---- */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = floor_div(y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int64_t year_of_day(int64_t z)
{
    z += 719468;
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    return yoe + era * 400 + (m <= 2);
}

static int leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* 0 = Sunday. 1970-01-01 was a Thursday. */
static int weekday(int64_t day)
{
    return (int)(((day + 4) % 7 + 7) % 7);
}

/* The day (since 1970) a rule names in year y. */
static int64_t rule_day(const struct tz_when *w, int64_t y)
{
    int64_t jan1 = days_from_civil(y, 1, 1);
    if (w->kind == 'J')
        return jan1 + w->day - 1 + (leap(y) && w->day >= 60);
    if (w->kind == 'n')
        return jan1 + w->day;
    int64_t first = days_from_civil(y, w->month, 1);
    int64_t next =
        w->month == 12 ? days_from_civil(y + 1, 1, 1) : days_from_civil(y, w->month + 1, 1);
    int64_t d = first + (w->wday - weekday(first) + 7) % 7 + 7 * (w->week - 1);
    while (d >= next)
        d -= 7;
    return d;
}

int tz_rule_offset(const struct tz_rule *r, int64_t t)
{
    if (!r->has_dst)
        return r->std_off;
    int64_t secs = floor_div(t, 1000);
    int64_t y = year_of_day(floor_div(secs + r->std_off, 86400));
    /* POSIX: the change into DST is at a time of standard time, the change
     * out of it at a time of DST. */
    int64_t start = rule_day(&r->start, y) * 86400 + r->start.secs - r->std_off;
    int64_t end = rule_day(&r->end, y) * 86400 + r->end.secs - r->dst_off;
    int dst = start < end ? (secs >= start && secs < end) : !(secs >= end && secs < start);
    return dst ? r->dst_off : r->std_off;
}

int tz_zone_offset(const struct tz_zone *z, int64_t t)
{
    if (z->nchanges == 0 || t >= z->changes[z->nchanges - 1].at)
        return tz_rule_offset(&z->rule, t);
    if (t < z->changes[0].at)
        return z->off_before;
    int lo = 0, hi = z->nchanges - 1; /* changes[lo].at <= t < changes[hi].at */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (z->changes[mid].at <= t)
            lo = mid;
        else
            hi = mid;
    }
    return z->changes[lo].off;
}

/* ---- parsing ---- */

static int parse_name(const char **p)
{
    const char *s = *p;
    if (*s == '<') {
        const char *e = strchr(s, '>');
        if (e == NULL || e - s < 4)
            return -1;
        *p = e + 1;
        return 0;
    }
    int n = 0;
    while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z'))
        n++;
    if (n < 3)
        return -1;
    *p = s + n;
    return 0;
}

/* [+-]hh[:mm[:ss]] with hh <= max_h: seconds, or -1 in *ok. */
static long parse_hms(const char **p, int max_h, int *ok)
{
    const char *s = *p;
    int sign = 1;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    long part[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        if (k > 0) {
            if (*s != ':')
                break;
            s++;
        }
        if (*s < '0' || *s > '9') {
            *ok = 0;
            return 0;
        }
        long v = 0;
        int digits = 0;
        while (*s >= '0' && *s <= '9' && digits < 4) {
            v = v * 10 + (*s++ - '0');
            digits++;
        }
        part[k] = v;
    }
    if (part[0] > max_h || part[1] > 59 || part[2] > 59)
        *ok = 0;
    *p = s;
    return sign * (part[0] * 3600 + part[1] * 60 + part[2]);
}

static long parse_num(const char **p, long lo, long hi, int *ok)
{
    const char *s = *p;
    if (*s < '0' || *s > '9') {
        *ok = 0;
        return 0;
    }
    long v = 0;
    while (*s >= '0' && *s <= '9' && v <= hi)
        v = v * 10 + (*s++ - '0');
    if (v < lo || v > hi)
        *ok = 0;
    *p = s;
    return v;
}

static void parse_when(const char **p, struct tz_when *w, int *ok)
{
    const char *s = *p;
    memset(w, 0, sizeof *w);
    if (*s == 'J') {
        s++;
        w->kind = 'J';
        w->day = (int)parse_num(&s, 1, 365, ok);
    } else if (*s == 'M') {
        s++;
        w->kind = 'M';
        w->month = (int)parse_num(&s, 1, 12, ok);
        if (*s++ != '.')
            *ok = 0;
        w->week = (int)parse_num(&s, 1, 5, ok);
        if (*s++ != '.')
            *ok = 0;
        w->wday = (int)parse_num(&s, 0, 6, ok);
    } else {
        w->kind = 'n';
        w->day = (int)parse_num(&s, 0, 365, ok);
    }
    w->secs = 7200;
    if (*ok && *s == '/') {
        s++;
        w->secs = (int)parse_hms(&s, 167, ok);
    }
    *p = s;
}

int tz_rule_parse(const char *s, struct tz_rule *r)
{
    int ok = 1;
    memset(r, 0, sizeof *r);
    if (parse_name(&s) < 0)
        return -1;
    r->std_off = -(int)parse_hms(&s, 24, &ok);
    if (!ok)
        return -1;
    if (*s == '\0')
        return 0;
    if (parse_name(&s) < 0)
        return -1;
    r->has_dst = 1;
    r->dst_off = r->std_off + 3600;
    if (*s != ',' && *s != '\0') {
        r->dst_off = -(int)parse_hms(&s, 24, &ok);
        if (!ok)
            return -1;
    }
    if (*s++ != ',')
        return -1; /* DST with the implementation's default rules: no footer has it */
    parse_when(&s, &r->start, &ok);
    if (!ok || *s++ != ',')
        return -1;
    parse_when(&s, &r->end, &ok);
    return ok && *s == '\0' ? 0 : -1;
}

/* ---- week ends ---- */

/* The instant (ms) whose local time in r is local_ms. Around a change of
 * offset, the one after it (a local time skipped by a change is moved on by
 * it; one that happens twice is its first). */
static int64_t local_to_utc(const struct tz_zone *z, int64_t local_ms, int64_t near)
{
    int64_t u = local_ms - (int64_t)tz_zone_offset(z, near) * 1000;
    u = local_ms - (int64_t)tz_zone_offset(z, u) * 1000;
    return local_ms - (int64_t)tz_zone_offset(z, u) * 1000;
}

int tz_week_end(const struct tz_zone *z, int64_t t, int64_t *edge)
{
    int64_t local = t + (int64_t)tz_zone_offset(z, t) * 1000;
    int64_t day = floor_div(local, DAY_MS);
    int wd = weekday(day);
    int on = wd == 6 || wd == 0;
    int64_t next_day = on ? day + (wd == 6 ? 2 : 1) : day + (6 - wd);
    int64_t e = local_to_utc(z, next_day * DAY_MS, t);
    *edge = e > t ? e : t + 1;
    return on;
}

int64_t tz_week_days_ms(const struct tz_zone *z, int64_t from, int64_t to)
{
    int64_t sum = 0;
    for (int64_t t = from; t < to;) {
        int64_t edge;
        int on = tz_week_end(z, t, &edge);
        int64_t stop = edge < to ? edge : to;
        if (!on)
            sum += stop - t;
        t = stop;
    }
    return sum;
}

int64_t tz_week_days_add(const struct tz_zone *z, int64_t from, int64_t ms)
{
    if (ms <= 0)
        return from;
    for (int64_t t = from;;) {
        int64_t edge;
        if (tz_week_end(z, t, &edge)) {
            t = edge;
            continue;
        }
        if (ms <= edge - t)
            return t + ms;
        ms -= edge - t;
        t = edge;
    }
}

/* ---- the zone database ---- */

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const uint8_t *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* A TZif header's counts: isut, isstd, leap, time, type, char. */
static int tzif_counts(const uint8_t *h, size_t left, uint32_t c[6])
{
    if (left < 44 || memcmp(h, "TZif", 4) != 0)
        return -1;
    for (int k = 0; k < 6; k++)
        c[k] = be32(h + 20 + 4 * k);
    return c[3] > 100000 || c[4] == 0 || c[4] > 256 ? -1 : 0;
}

/* The zone in buf[0..n) (a whole TZif file) into *z: 0, or -1 when it is not
 * a TZif of version 2 or later with a footer that parses. */
static int zone_parse(const uint8_t *buf, size_t n, struct tz_zone *z)
{
    uint32_t c[6];
    if (tzif_counts(buf, n, c) < 0 || buf[4] < '2')
        return -1;
    size_t v1 = 44 + (size_t)c[3] * 5 + (size_t)c[4] * 6 + c[5] + (size_t)c[2] * 8 + c[1] + c[0];
    if (v1 >= n || tzif_counts(buf + v1, n - v1, c) < 0)
        return -1;
    const uint8_t *times = buf + v1 + 44, *idx = times + (size_t)c[3] * 8, *types = idx + c[3];
    const uint8_t *end = types + (size_t)c[4] * 6 + c[5] + (size_t)c[2] * 12 + c[1] + c[0];
    if (end + 2 > buf + n || *end != '\n' || buf[n - 1] != '\n')
        return -1;
    char footer[128];
    size_t flen = (size_t)(buf + n - 1 - (end + 1));
    if (flen == 0 || flen >= sizeof footer)
        return -1;
    memcpy(footer, end + 1, flen);
    footer[flen] = '\0';
    if (tz_rule_parse(footer, &z->rule) < 0)
        return -1;
    z->off_before = (int32_t)be32(types); /* type 0 before any change (RFC 8536) */
    for (uint32_t i = 0; i < c[3]; i++) {
        if (idx[i] >= c[4])
            return -1;
        int64_t at = be64(times + 8 * i) * 1000;
        int off = (int32_t)be32(types + 6 * idx[i]);
        if (at < KEEP_FROM_MS) {
            z->off_before = off;
            continue;
        }
        z->changes = mem_resize(z->changes, (size_t)(z->nchanges + 1) * sizeof *z->changes);
        z->changes[z->nchanges].at = at;
        z->changes[z->nchanges++].off = off;
    }
    return 0;
}

static void db_add(struct tz_db *db, const struct tz_zone *z)
{
    if (db->n == db->cap) {
        db->cap = db->cap ? db->cap * 2 : 512;
        db->zones = mem_resize(db->zones, db->cap * sizeof *db->zones);
    }
    db->zones[db->n++] = *z;
}

static void read_zone(struct tz_db *db, const char *path, const char *name)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return;
    uint8_t *buf = mem_alloc(TZIF_MAX);
    size_t n = fread(buf, 1, TZIF_MAX, f);
    fclose(f);
    struct tz_zone z;
    memset(&z, 0, sizeof z);
    size_t len = strlen(name);
    if (len < sizeof z.name)
        memcpy(z.name, name, len + 1);
    if (len < sizeof z.name && n < TZIF_MAX && zone_parse(buf, n, &z) == 0)
        db_add(db, &z);
    else
        free(z.changes);
    free(buf);
}

static void walk(struct tz_db *db, const char *dir, const char *prefix, int depth)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' ||
            (depth == 0 && (strcmp(e->d_name, "posix") == 0 || strcmp(e->d_name, "right") == 0)))
            continue;
        char path[1024], name[TZ_NAME_MAX + 1];
        struct stat st;
        int np = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int nn = snprintf(name, sizeof name, "%s%s", prefix, e->d_name);
        if (np < 0 || (size_t)np >= sizeof path || nn < 0 || nn >= TZ_NAME_MAX - 1 ||
            stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth < WALK_DEPTH) {
            strcat(name, "/");
            walk(db, path, name, depth + 1);
        } else if (S_ISREG(st.st_mode) && st.st_size < TZIF_MAX) {
            read_zone(db, path, name);
        }
    }
    closedir(d);
}

static int zone_cmp(const void *a, const void *b)
{
    return strcmp(((const struct tz_zone *)a)->name, ((const struct tz_zone *)b)->name);
}

struct tz_db *tz_db_load(const char *dir, int *count)
{
    struct tz_db *db = mem_zalloc(1, sizeof *db);
    walk(db, dir != NULL ? dir : TZ_DIR_DEFAULT, "", 0);
    if (count != NULL)
        *count = (int)db->n;
    if (db->n > 1)
        qsort(db->zones, db->n, sizeof *db->zones, zone_cmp);
    if (tz_db_find(db, "UTC") == NULL) {
        db_add(db, &utc_zone);
        qsort(db->zones, db->n, sizeof *db->zones, zone_cmp);
    }
    return db;
}

void tz_db_free(struct tz_db *db)
{
    if (db == NULL)
        return;
    for (size_t i = 0; i < db->n; i++)
        free(db->zones[i].changes);
    free(db->zones);
    free(db);
}

const struct tz_zone *tz_db_find(const struct tz_db *db, const char *name)
{
    if (db == NULL)
        return strcmp(name, "UTC") == 0 ? &utc_zone : NULL;
    struct tz_zone key;
    if (db->n == 0 || snprintf(key.name, sizeof key.name, "%s", name) >= (int)sizeof key.name)
        return NULL; /* (bsearch and qsort take no NULL array, even empty) */
    const struct tz_zone *z = bsearch(&key, db->zones, db->n, sizeof *db->zones, zone_cmp);
    return z;
}
