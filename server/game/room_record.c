/* room_record.c: what a room has played, as records: its game as record JSON
 * (PROTOCOL.md "Game records": one move at a time for storage, the whole record for GET
 * /api/games and the store), and its turns and recent chat as `history`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "game/fair_room.h"
#include "util/log.h"
#include "record_json.h"
#include "game/room.h"
#include "conn/sbuf.h"
#include "game/turn.h"
#include "util/mem.h"
#include "util/clock.h"

char *room__move_text(const struct room *r, int i)
{
    /* The codec reads an escape's tile from the record's moves up to i. */
    struct carc_record *rec = mem_alloc(sizeof *rec);
    rec->start = carc_tile_find("BA.D");
    rec->nmoves = i + 1;
    memcpy(rec->moves, r->moves, (size_t)(i + 1) * sizeof *rec->moves);
    char *out = NULL;
    struct proto_error perr;
    proto_error_init(&perr);
    if (proto_record_move_dump(rec, i, &out, &perr) != 0)
        out = NULL;
    free(rec);
    return out;
}

int room_move_json(const struct room *r, int i, char *buf, size_t size)
{
    char *text = room__move_text(r, i);
    size_t n = text != NULL ? strlen(text) : 0;
    int ok = text != NULL && n < size;
    if (ok)
        memcpy(buf, text, n + 1);
    free(text);
    return ok ? (int)n : -1;
}

void room_record_fill(const struct room *r, struct carc_record *rec)
{
    rec->sets = r->sets;
    rec->no_farmers = r->no_farmers;
    rec->escape_rule = r->escape_rule;
    rec->farm_rule = r->farm_rule;
    rec->small_city = r->small_city;
    rec->seat_random = r->seat_random;
    rec->nplayers = r->nseats;
    for (int i = 0; i < r->nseats; i++) {
        const struct room_seat *seat = &r->seats[i];
        snprintf(rec->names[i], sizeof rec->names[i], "%s", seat->name);
        snprintf(rec->bots[i], sizeof rec->bots[i], "%s",
                 seat->bot ? carc_bot_level_name(seat->bot - 1) : "");
        rec->forfeited[i] = seat->forfeited;
    }
    rec->start = carc_tile_find("BA.D");
    rec->has_seed = 1;
    rec->seed = r->seed;
    fair_room_record(r, rec);
    if (r->deck != NULL) {
        rec->has_deck = 1;
        rec->deck_len = r->deck_len;
        memcpy(rec->deck, r->deck, (size_t)r->deck_len);
    }
}

void room__chat_keep(struct room *r, int seat, const char *name, const char *text)
{
    if (r->chat == NULL) {
        r->chat = mem_zalloc(ROOM_CHAT_KEPT, sizeof *r->chat);
    }
    struct proto_chat_line *line = &r->chat[r->chat_next];
    r->chat_next = (r->chat_next + 1) % ROOM_CHAT_KEPT;
    if (r->nchat < ROOM_CHAT_KEPT)
        r->nchat++;
    line->seat = seat;
    snprintf(line->name, sizeof line->name, "%s", name);
    snprintf(line->text, sizeof line->text, "%s", text);
    line->time = clock_wall_ms();
}

void room_history(struct room *r, struct session *s, const char *ref)
{
    struct proto_chat_line lines[ROOM_CHAT_KEPT];
    int n = 0; /* oldest first */
    for (int k = 0; k < r->nchat; k++)
        lines[n++] = r->chat[(r->chat_next - r->nchat + k + ROOM_CHAT_KEPT) % ROOM_CHAT_KEPT];
    struct carc_config cfg;
    if (r->game != NULL)
        room__deal(r, &cfg);
    char *text =
        proto_history_encode(r->game != NULL ? &cfg : NULL, r->moves, r->nmoves, lines, n, ref);
    if (text == NULL)
        mem_oom("room history");
    room_reply(r, s, text);
}

char *room_record_json(const struct room *r, const char *closed)
{
    if (r->game == NULL)
        return NULL;
    struct carc_record *rec = mem_zalloc(1, sizeof *rec);
    room_record_fill(r, rec);
    if (closed != NULL)
        snprintf(rec->closed, sizeof rec->closed, "%s", closed);
    rec->nmoves = r->nmoves;
    memcpy(rec->moves, r->moves, (size_t)r->nmoves * sizeof *rec->moves);
    char *out = NULL;
    struct proto_error perr;
    proto_error_init(&perr);
    if (proto_record_dump(rec, 0, &out, &perr) != 0)
        log_event(LOG_ERROR, &(struct log_fields){.room = r->id}, "cannot write its record: %s",
                  perr.text);
    free(rec);
    return out;
}
