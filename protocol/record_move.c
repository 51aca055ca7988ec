/* record_move.c: one record move as JSON text (record_json.h, end). A room
 * stores its moves one by one (store/store.h: each new move a text of its
 * own) and rebuilds its game from them; both ways go through the record
 * codec's own move reader and writer (record_json_int.h), so a stored move is
 * exactly an element of a record's "moves". */
#include <stdlib.h>

#include "record_json_int.h"
#include "record_json.h"

int proto_record_move_load(const char *text, size_t len, struct carc_record *rec,
                           struct proto_error *err)
{
    int i = rec->nmoves;
    if (i < 0 || i >= CARC_MAX_MOVES)
        return proto_error_set(err, CARC_E_RECORD, -1, "moves",
                               "moves: more moves than a game"
                               " record holds (256)");
    json_error_t jerr;
    json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (v == NULL)
        return proto_error_set(err, CARC_E_JSON, i, "", "move %d: line %d column %d: %.100s", i,
                               jerr.line, jerr.column, jerr.text);
    int rc = proto__record_move_read(v, rec, i, err);
    json_decref(v);
    rec->nmoves = rc == 0 ? i + 1 : i;
    return rc;
}

int proto_record_move_dump(const struct carc_record *rec, int i, char **out,
                           struct proto_error *err)
{
    *out = NULL;
    if (i < 0 || i >= rec->nmoves || rec->nmoves > CARC_MAX_MOVES)
        return proto_error_set(err, CARC_E_INVAL, -1, "moves", "moves: no move %d", i);
    json_t *o = proto__record_move_write(rec, i, err);
    if (o == NULL)
        return err != NULL && err->code != 0 ? err->code : CARC_E_INVAL;
    *out = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
    json_decref(o);
    if (*out == NULL)
        return proto_error_set(err, CARC_E_NOMEM, i, "moves", NULL);
    return 0;
}
