/* tz.h: time zones for the weekend pause of correspondence clocks: which
 * wall-clock instants fall on a week end (Saturday 00:00 to Monday 00:00,
 * local time) in a named zone.
 *
 * A zone's rule is the POSIX TZ string (POSIX.1-2017 section 8.3, with the
 * RFC 8536 section 3.3.1 extension of hours -167..167) that ends every
 * version 2+ TZif file of the system's tz database: "CET-1CEST,M3.5.0,M10.5.0/3".
 * It describes the zone's rules after the file's last transition. Zones
 * whose changes follow no such rule (Morocco's around Ramadan) list them as
 * transitions instead, years ahead: those from 2020 on are kept too.
 *
 * struct tz_db: every zone of a zoneinfo directory, read once at start-up
 * (tz_db_load, synchronous disk: before the loop runs), then read-only, so
 * any thread may look zones up. Owned by its creator (main.c), freed by
 * tz_db_free after everything that looked zones up is gone: a struct
 * tz_zone returned by tz_db_find points into it.
 *
 * The arithmetic (tz_rule_*, tz_zone_*, tz_week*) is pure: times are ms since 1970
 * (UTC), no clock is read. */
#ifndef CARCD_UTIL_TZ_H
#define CARCD_UTIL_TZ_H

#include <stddef.h>
#include <stdint.h>

#define TZ_NAME_MAX 64 /* bytes of a zone's name, NUL included */
#define TZ_DIR_DEFAULT "/usr/share/zoneinfo"

/* One date rule of a POSIX TZ string: Jn, n or Mm.w.d, and its time. */
struct tz_when {
    int kind; /* 'J' (1..365, no Feb 29), 'n' (0..365), 'M' */
    int day, month, week, wday;
    int secs; /* local time of the change, seconds (may be < 0 or > 24 h) */
};

struct tz_rule {
    int std_off; /* seconds east of UTC in standard time */
    int dst_off; /* ... in daylight saving time */
    int has_dst;
    struct tz_when start, end; /* into and out of DST */
};

/* A change of offset listed in a TZif file. */
struct tz_change {
    int64_t at; /* ms since 1970 */
    int off;    /* seconds east of UTC from then on */
};

/* A zone: its listed changes (sorted; may be none), then its rule. */
struct tz_zone {
    char name[TZ_NAME_MAX];
    struct tz_rule rule;       /* from the last listed change on */
    struct tz_change *changes; /* owned by the zone's database; NULL when none */
    int nchanges;
    int off_before; /* seconds east of UTC before the first listed change */
};

struct tz_db;

/* Parse a POSIX TZ string into *r: 0, or -1 (r unspecified) when s is not
 * one (or names a DST without rules, which no TZif footer does). */
int tz_rule_parse(const char *s, struct tz_rule *r);
/* Seconds east of UTC at t (ms since 1970) by the rule alone. */
int tz_rule_offset(const struct tz_rule *r, int64_t t);
/* Seconds east of UTC at t in zone z (its listed changes, then its rule). */
int tz_zone_offset(const struct tz_zone *z, int64_t t);

/* 1 when t falls on a week end (local Saturday 00:00 to Monday 00:00) in
 * zone z, else 0; *edge then gets when that changes next: the week end's
 * end, or the next one's start (ms since 1970, > t). */
int tz_week_end(const struct tz_zone *z, int64_t t, int64_t *edge);
/* Milliseconds of [from, to) that fall outside week ends (0 when to <= from).
 * Bounded: one step per week. */
int64_t tz_week_days_ms(const struct tz_zone *z, int64_t from, int64_t to);
/* The instant at which ms milliseconds outside week ends have passed since
 * from (from itself when ms <= 0 and from is not on a week end). */
int64_t tz_week_days_add(const struct tz_zone *z, int64_t from, int64_t ms);

/* Read every zone of dir (TZ_DIR_DEFAULT if NULL): each file starting with
 * "TZif" version 2 or later whose POSIX footer parses (and its changes from
 * 2020 on), named by its path
 * under dir ("Europe/Paris"; the posix/ and right/ copies are skipped).
 * "UTC" is always there, even when dir cannot be read. Never NULL; *count
 * (may be NULL) gets the zones read from dir. */
struct tz_db *tz_db_load(const char *dir, int *count);
void tz_db_free(struct tz_db *db);
/* The zone called name (case-sensitive, as the tz database spells it), or
 * NULL. db may be NULL: then only "UTC" is known. */
const struct tz_zone *tz_db_find(const struct tz_db *db, const char *name);

#endif
