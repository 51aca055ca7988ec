/* msg_clock.c: a create's "clock" (msg.h, PROTOCOL.md "create"): a bank
 * clock or a correspondence one, with its week-end pause and time zone. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "msg_int.h"

/* A time zone's name as the tz database spells them: letters, digits and
 * "/_+-", not starting with "/" nor holding "..". */
static int tz_name_ok(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n < PROTO_TZ_MAX && s[0] != '/' && strstr(s, "..") == NULL &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-") == n;
}

/* "clock": time_zone and weekend_pause, of either kind of clock. */
static int read_clock_zone(const json_t *v, struct proto_clock *c, struct proto_error *err)
{
    const json_t *pause = json_object_get(v, "weekend_pause");
    if (pause != NULL && !json_is_boolean(pause))
        return msg__bad(err, CARC_E_INVAL, "clock.weekend_pause", "must be a boolean");
    c->weekend_pause = json_is_true(pause);
    const json_t *tz = json_object_get(v, "time_zone");
    snprintf(c->time_zone, sizeof c->time_zone, "UTC");
    if (tz == NULL)
        return 0;
    if (!json_is_string(tz) || !tz_name_ok(json_string_value(tz)))
        return msg__bad(err, CARC_E_INVAL, "clock.time_zone",
                        "must be a time zone's name of the tz database, such as \"Europe/Paris\"");
    snprintf(c->time_zone, sizeof c->time_zone, "%s", json_string_value(tz));
    return 0;
}

/* "clock": null, {"initial", "increment", "on_timeout"} or {"per_move",
 * "on_timeout"}, with "weekend_pause" and "time_zone" optional. */
int msg__read_clock(const json_t *v, struct proto_msg *m, struct proto_error *err)
{
    static const char *const keys[] = {"initial",       "increment", "on_timeout", "per_move",
                                       "weekend_pause", "time_zone", NULL};
    if (v == NULL || json_is_null(v))
        return 0;
    long long initial = 0, increment = 0, per_move = 0;
    int rc = msg__check_keys(v, "clock", keys, NULL, err);
    if (rc == 0 && json_object_get(v, "per_move") != NULL) {
        rc = msg__get_int(v, "clock", "per_move", 1, 1, PROTO_CLOCK_INITIAL_MAX, &per_move, err);
        if (rc == 0 && json_object_get(v, "initial") != NULL)
            rc = msg__bad(err, CARC_E_INVAL, "clock.initial", "not with per_move");
        if (rc == 0 && json_object_get(v, "increment") != NULL)
            rc = msg__bad(err, CARC_E_INVAL, "clock.increment", "not with per_move");
        initial = per_move;
    } else {
        if (rc == 0)
            rc = msg__get_int(v, "clock", "initial", 1, 1, PROTO_CLOCK_INITIAL_MAX, &initial, err);
        if (rc == 0)
            rc = msg__get_int(v, "clock", "increment", 1, 0, PROTO_CLOCK_INCREMENT_MAX, &increment,
                              err);
    }
    if (rc == 0)
        rc = read_clock_zone(v, &m->u.create.clock, err);
    if (rc != 0)
        return rc;
    const json_t *p = json_object_get(v, "on_timeout");
    int policy = -1;
    for (int i = 0; msg__str_of(p) != NULL && i <= PROTO_TIMEOUT_FORFEIT; i++)
        if (strcmp(msg__str_of(p), proto_timeout_name(i)) == 0)
            policy = i;
    if (policy < 0)
        return msg__bad(err, CARC_E_INVAL, "clock.on_timeout",
                        "must be \"bot\", \"skip\" or \"forfeit\"");
    m->u.create.clock.initial = (int)initial;
    m->u.create.clock.increment = (int)increment;
    m->u.create.clock.per_move = (int)per_move;
    m->u.create.clock.on_timeout = policy;
    return 0;
}
