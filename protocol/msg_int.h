/* msg_int.h: msg.c's decoding helpers shared with msg_clock.c; internal to
 * the decoder (msg.h is the interface). */
#ifndef CARC_MSG_INT_H
#define CARC_MSG_INT_H

#include <jansson.h>

#include "msg.h"
#include "perror.h"

/* err gets code with "field: what"; returns the error's code. */
int msg__bad(struct proto_error *err, int code, const char *field, const char *what);
/* Every key of obj is in allowed (NULL-terminated) or in extra (may be NULL). */
int msg__check_keys(const json_t *obj, const char *path, const char *const *allowed,
                    const char *const *extra, struct proto_error *err);
/* The text of a string value, or NULL (not a string, or holding U+0000). */
const char *msg__str_of(const json_t *v);
/* obj[key], an integer in min..max, into *out; missing is an error when required. */
int msg__get_int(const json_t *obj, const char *path, const char *key, int required, long long min,
                 long long max, long long *out, struct proto_error *err);
/* "clock": null, a bank clock or a correspondence clock into m->u.create.clock. */
int msg__read_clock(const json_t *v, struct proto_msg *m, struct proto_error *err);

#endif
