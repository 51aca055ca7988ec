/* record_json_int.h: what the record files share (record_json.c reads
 * records, record_dump.c writes them). Not for the rest of the code:
 * record_json.h is the interface. */
#ifndef PROTO_RECORD_JSON_INT_H
#define PROTO_RECORD_JSON_INT_H

#include <stddef.h>

/* Room for a field path such as "moves[3].meeple.feature". */
#define PATH_MAX_LEN 64

/* options.siege_escape, by enum carc_escape_rule. */
extern const char *const proto__escape_rules[2];

/* base + i: "moves" + 3 -> "moves[3]", into out[PATH_MAX_LEN]. */
void proto__path_index(char *out, const char *base, size_t i);

#endif
