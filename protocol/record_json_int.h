/* record_json_int.h: what the record files share (record_json.c reads
 * records, record_dump.c writes them, record_move.c reads and writes one
 * stored move with their own checks, so that a move stored alone
 * (store/store.h) and a move inside a record are one format). Not for the
 * rest of the code: record_json.h is the interface, and only protocol/ sees
 * jansson. */
#ifndef PROTO_RECORD_JSON_INT_H
#define PROTO_RECORD_JSON_INT_H

#include <jansson.h>
#include <stddef.h>

#include "record_json.h"

/* Room for a field path such as "moves[3].meeple.feature". */
#define PATH_MAX_LEN 64

/* options.siege_escape, by enum carc_escape_rule. */
extern const char *const proto__escape_rules[2];

/* base + i: "moves" + 3 -> "moves[3]", into out[PATH_MAX_LEN]. */
void proto__path_index(char *out, const char *base, size_t i);

/* Read v into rec->moves[i] (zeroed first), as proto_record_load reads the
 * i-th element of "moves": an escape names a tile that rec->start or
 * rec->moves[0..i] puts there. rec->nmoves becomes i + 1. Returns 0 or a code
 * of proto_record_load with err filled (err->move = i). */
int proto__record_move_read(const json_t *v, struct carc_record *rec, int i,
                            struct proto_error *err);

/* rec->moves[i] (i < rec->nmoves) as proto_record_dump writes it: a new
 * reference, or NULL with err (CARC_E_INVAL, CARC_E_NOMEM). */
json_t *proto__record_move_write(const struct carc_record *rec, int i, struct proto_error *err);

#endif
