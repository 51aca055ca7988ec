/* room_record.c: what a room has played, as records: its game as record JSON
 * (PROTOCOL.md "Game records": one move at a time for storage, the whole record for GET
 * /api/games and the store), its turns and recent chat as `history`, and the
 * room built again from what the store kept of it (room_new_restored). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "game/fair_room.h"
#include "game/room.h"
#include "game/turn.h"
#include "record_json.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"

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

/* ---- a room rebuilt from what the store kept ---- */

/* The moves of stored room e, each stored text read by the record codec in
 * order (an escape names a tile of the moves before it). NULL with err when
 * one does not load. */
static struct carc_record *stored_moves(const struct store_room *e, char *err, size_t errlen)
{
    struct carc_record *rec = mem_zalloc(1, sizeof *rec);
    rec->start = carc_tile_find("BA.D");
    struct proto_error perr;
    proto_error_init(&perr);
    for (int k = 0; k < e->move_to - e->move_from; k++) {
        const char *text = e->moves[k];
        if (proto_record_move_load(text, strlen(text), rec, &perr) != 0) {
            snprintf(err, errlen, "room %s: its stored moves do not load: %s", e->id, perr.text);
            free(rec);
            return NULL;
        }
    }
    return rec;
}

/* The `create` message that made the room of e: its settings. */
static void stored_settings(const struct store_room *e, struct proto_msg *c)
{
    memset(c, 0, sizeof *c);
    c->u.create.sets = (unsigned)e->sets;
    c->u.create.no_farmers = e->no_farmers;
    c->u.create.escape_rule = e->escape_rule;
    c->u.create.seats = e->nseats;
    c->u.create.private_room = e->priv;
    c->u.create.clock.initial = e->clock_initial;
    c->u.create.clock.increment = e->clock_increment;
    c->u.create.clock.on_timeout = e->clock_policy;
    c->u.create.clock.per_move = e->clock_per_move;
    c->u.create.clock.weekend_pause = e->variants >> 5 & 1;
    snprintf(c->u.create.clock.time_zone, sizeof c->u.create.clock.time_zone, "%s",
             e->clock_zone[0] != '\0' ? e->clock_zone : "UTC");
    c->u.create.farm_rule = e->variants & 3;
    c->u.create.small_city = e->variants >> 2 & 1;
    c->u.create.seat_random = e->variants >> 3 & 1;
    c->u.create.rated = e->variants >> 4 & 1;
}

/* r's seats, host, password and times from e; -1 when its host is no seat. */
static int stored_seats(struct room *r, const struct store_room *e)
{
    snprintf(r->pw_hash, sizeof r->pw_hash, "%s", e->pw);
    r->host = e->host;
    r->created_ms = e->created;
    r->updated_ms = e->updated;
    r->turn_wall_saved = e->turn_wall;
    if (r->host < 0 || r->host >= r->nseats)
        return -1;
    for (int k = 0; k < e->nseat; k++) {
        const struct store_seat *s = &e->seats[k];
        int i = s->idx;
        if (i < 0 || i >= r->nseats)
            continue;
        snprintf(r->seats[i].name, sizeof r->seats[i].name, "%s", s->name);
        snprintf(r->seats[i].token_hash, sizeof r->seats[i].token_hash, "%s", s->hash);
        r->seats[i].taken = 1;
        r->seats[i].bot = s->bot >= 0 && s->bot <= CARC_BOT_LEVELS ? s->bot : 0;
        r->seats[i].autoplay = s->autoplay >= 0 && s->autoplay < PROTO_AUTO_COUNT ? s->autoplay : 0;
        r->seats[i].forfeited = s->forfeited != 0;
        r->seats[i].timeouts = s->timeouts;
        r->seats[i].clock_ms = s->clock_ms;
        r->seats[i].account = s->bot == 0 && s->account > 0 ? s->account : 0;
        r->seats[i].vac_from = s->vac_from;
        r->seats[i].vac_until = s->vac_until;
    }
    return 0;
}

struct room *room_new_restored(const struct store_room *e, int history, int history_bytes,
                               char *err, size_t errlen)
{
    struct proto_msg c;
    stored_settings(e, &c);
    /* Checked before the room is built from them: its state has one view per seat. */
    if (c.u.create.seats < 1 || c.u.create.seats > CARC_MAX_PLAYERS) {
        snprintf(err, errlen, "room %s: bad stored seats", e->id);
        return NULL;
    }
    struct room *r = room_new(e->id, &c, history, history_bytes);
    if (stored_seats(r, e) != 0) {
        snprintf(err, errlen, "room %s: bad stored host", e->id);
        room_free(r);
        return NULL;
    }
    /* After the seats (a lobby room's entropies are theirs), before the game (its "fair"). */
    fair_room_load(r, e->fair, e->phase != PROTO_PHASE_LOBBY, e->seed, e->deck_len);
    int rc = 0;
    struct carc_error cerr = {0, ""};
    if (e->phase != PROTO_PHASE_LOBBY) {
        struct carc_record *rec = stored_moves(e, err, errlen);
        if (rec == NULL) {
            room_free(r);
            return NULL;
        }
        rc = room_restore(r, e->phase, e->seed, e->deck_len > 0 ? e->deck : NULL, e->deck_len,
                          rec->moves, rec->nmoves, e->seq, &cerr);
        free(rec);
    } else {
        rc = room_restore(r, e->phase, 0, NULL, 0, NULL, 0, e->seq, &cerr);
    }
    if (rc != 0) {
        snprintf(err, errlen, "room %s: its stored moves do not replay: %s", e->id, cerr.text);
        room_free(r);
        return NULL;
    }
    return r;
}
