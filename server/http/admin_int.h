/* admin_int.h: what the admin files share (admin.c, admin_rooms.c, admin_json.c,
 * admin_accounts.c). */
#ifndef CARCD_ADMIN_INT_H
#define CARCD_ADMIN_INT_H

#include <stddef.h>

#include "http/api.h"

struct lobby;
struct room;
struct admin;
struct admin_path;

#define ADMIN_NOTICE_MAX 500 /* bytes of a notice's text */

/* A growing JSON text; out of memory aborts. */
struct admin_json {
    char *buf;
    size_t len, cap;
};
void admin__json_init(struct admin_json *j);
void admin__json_raw(struct admin_json *j, const char *text);
void admin__json_fmt(struct admin_json *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* s as a JSON string (quotes, escapes; bytes >= 0x80 as they are). */
void admin__json_str(struct admin_json *j, const char *s);
/* The text (malloc'd, the caller's); j is empty again. */
char *admin__json_take(struct admin_json *j);

/* A JSON reply (json taken; NULL aborts: out of memory), and {"error":code}. */
void admin__reply(struct api_reply *out, int status, char *json);
void admin__error(struct api_reply *out, int status, const char *code);

/* GET /admin/rooms: {"rooms":[details...]}, oldest first. */
char *admin__rooms_json(const struct lobby *lb);
/* One room's details; with_state: {"room":details,"state":<its state message>}. */
char *admin__room_json(const struct room *r, int with_state);
/* The seat actions (seat in range): NULL when done, else the error code for 409. */
const char *admin__seat_free(struct lobby *lb, struct room *r, int seat);
const char *admin__seat_bot(struct lobby *lb, struct room *r, int seat);

/* admin_accounts.c: the accounts' and invites' routes (ADMIN_R_ACCOUNTS ..
 * ADMIN_R_INVITES), deferred; 503 no_storage without accounts. */
void admin__accounts_route(struct admin *ad, const struct api_request *rq,
                           const struct admin_path *ap, struct api_reply *out);

#endif
