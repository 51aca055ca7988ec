/* claim_json.h: the body and the answer of POST /api/me/claim
 * (server/http/claim_route.c, PROTOCOL.md "Accounts (HTTP)"): a guest's seats
 * claimed by the account that signed up (or in) in the browser holding their
 * tokens.
 *
 *   {"seats": [{"room": ID, "token": TOKEN}, ...]}     1 .. PROTO_CLAIM_MAX entries
 *   {"claimed": [{"room", "seat"}...], "skipped": [{"room", "reason"}...]}
 *
 * Decoding is strict as in account_json.h: an object with the one key
 * "seats", an array of 1 .. PROTO_CLAIM_MAX objects, each with exactly "room"
 * (a room id: 1 .. 16 ASCII letters and digits, as `join` takes it) and
 * "token" (a seat token: 32 lower-case hex digits). An error names the field
 * ("seats[3].token") and never quotes a value: a token must not come back in
 * an answer nor reach a log line. Plain C structs, no allocation; the caller
 * wipes the body after use (it holds tokens). */
#ifndef PROTO_CLAIM_JSON_H
#define PROTO_CLAIM_JSON_H

#include <stddef.h>

#include "msg.h"
#include "perror.h"

#define PROTO_CLAIM_MAX 100 /* entries of one claim */
/* Bytes of a claim's body: 100 entries written compactly take about 7,100;
 * this leaves room for white space. */
#define PROTO_CLAIM_BODY_MAX 16384

struct proto_claim_seat {
    char room[PROTO_ROOM_MAX];
    char token[PROTO_TOKEN_MAX];
};

struct proto_claim_body {
    int n;
    struct proto_claim_seat seats[PROTO_CLAIM_MAX];
};

/* Decode text[0..len) into *out (zeroed first). 0, or CARC_E_TOO_BIG (over
 * PROTO_CLAIM_BODY_MAX), CARC_E_JSON (not JSON, a key twice), CARC_E_INVAL
 * (not an object, no "seats" array, none or more than PROTO_CLAIM_MAX
 * entries, an entry that is not an object of "room" and "token", a room id or
 * a token of the wrong shape), with err (may be NULL) naming the field. *out
 * is wiped on error. */
int proto_claim_decode(const char *text, size_t len, struct proto_claim_body *out,
                       struct proto_error *err);

/* Overwrite b (its tokens) with zeros. */
void proto_claim_wipe(struct proto_claim_body *b);

/* One entry's outcome for the answer: seat >= 0 with reason NULL for a claimed
 * seat, else reason (a static word) for a skipped one. */
struct proto_claim_outcome {
    const char *room;
    int seat;
    const char *reason;
};

/* {"claimed":[{"room","seat"}..],"skipped":[{"room","reason"}..]} in the order
 * given. Malloc'd, NUL-terminated; NULL when out of memory. */
char *proto_claim_answer_encode(const struct proto_claim_outcome *o, int n);

#endif
