/* admin_rooms.c: the admin API's view of rooms and its seat actions
 * (admin_int.h). The seat actions change a room through the paths its own
 * commands use (room_leave, room__publish, room__schedule), so every member
 * sees the change as a delta and the store writes it with the next batch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "game/lobby.h"
#include "game/room.h"
#include "game/turn.h"
#include "http/admin_int.h"
#include "util/log.h"
#include "util/mem.h"

static const char *const phases[] = {"lobby", "playing", "over"};

static void room_details(struct admin_json *j, const struct room *r)
{
    admin__json_raw(j, "{\"id\":");
    admin__json_str(j, r->id);
    admin__json_fmt(j,
                    ",\"phase\":\"%s\",\"private\":%s,\"password\":%s,\"host\":%d,\"seq\":%lld,"
                    "\"moves\":%d,\"spectators\":%d,\"paused\":%s,\"created\":%llu,"
                    "\"updated\":%llu,",
                    phases[r->phase >= 0 && r->phase < 3 ? r->phase : 0],
                    r->private_room ? "true" : "false", r->pw_hash[0] != '\0' ? "true" : "false",
                    r->host, r->seq, r->nmoves, r->nspectators,
                    r->paused_ms != 0 ? "true" : "false", (unsigned long long)r->created_ms,
                    (unsigned long long)r->updated_ms);
    if (r->clock.initial > 0) {
        const char *policy = proto_timeout_name(r->clock.on_timeout);
        admin__json_fmt(j, "\"clock\":{\"initial\":%d,\"increment\":%d,\"on_timeout\":\"%s\"},",
                        r->clock.initial, r->clock.increment, policy != NULL ? policy : "bot");
    } else {
        admin__json_raw(j, "\"clock\":null,");
    }
    admin__json_raw(j, "\"seats\":[");
    for (int i = 0; i < r->nseats; i++) {
        const struct room_seat *s = &r->seats[i];
        admin__json_fmt(j, "%s{\"seat\":%d,\"taken\":%s,\"name\":", i ? "," : "", i,
                        s->taken ? "true" : "false");
        if (s->taken)
            admin__json_str(j, s->name);
        else
            admin__json_raw(j, "null");
        const char *autoplay = proto_autoplay_name(s->autoplay);
        admin__json_fmt(
            j, ",\"bot\":%s%s%s,\"autoplay\":%s%s%s,\"connected\":%s,\"score\":%d}",
            s->bot ? "\"" : "", s->bot ? carc_bot_level_name(s->bot - 1) : "null",
            s->bot ? "\"" : "", autoplay != NULL ? "\"" : "", autoplay != NULL ? autoplay : "null",
            autoplay != NULL ? "\"" : "", s->s != NULL ? "true" : "false",
            r->game != NULL && i < r->game->nplayers ? (int)r->game->players[i].score : 0);
    }
    admin__json_raw(j, "]}");
}

char *admin__rooms_json(const struct lobby *lb)
{
    struct admin_json j;
    admin__json_init(&j);
    admin__json_fmt(&j, "{\"count\":%d,\"connections\":%d,\"rooms\":[", lb->nrooms, lb->nsessions);
    for (const struct room *r = lb->oldest; r != NULL; r = r->newer) {
        if (r != lb->oldest)
            admin__json_raw(&j, ",");
        room_details(&j, r);
    }
    admin__json_raw(&j, "]}");
    return admin__json_take(&j);
}

char *admin__room_json(const struct room *r, int with_state)
{
    struct admin_json j;
    admin__json_init(&j);
    if (with_state)
        admin__json_raw(&j, "{\"room\":");
    room_details(&j, r);
    if (with_state) {
        char *state = proto_state_encode(r->state, r->seq, "");
        if (state == NULL)
            mem_oom("admin state");
        admin__json_raw(&j, ",\"state\":");
        admin__json_raw(&j, state);
        admin__json_raw(&j, "}");
        free(state);
    }
    return admin__json_take(&j);
}

/* One delta telling everyone of seat i's change. */
static void seat_changed(struct room *r, int i)
{
    const struct room_seat *seat = &r->seats[i];
    struct proto_extra_event ev = {
        PROTO_EV_SEAT, i, seat->taken ? seat->name : NULL, seat->taken, seat->s != NULL,
        seat->bot,     0};
    room__publish(r, &ev, 1, NULL, NULL);
}

/* A lobby seat freed: its person (connected or not) or its bot goes; the
 * host passes on when it was the host's. */
static void lobby_seat_clear(struct lobby *lb, struct room *r, int i)
{
    struct room_seat *seat = &r->seats[i];
    if (seat->s != NULL) {
        room_leave(r, seat->s, "", lb->now); /* `left`, the delta, the host */
        return;
    }
    memset(seat, 0, sizeof *seat);
    if (r->host == i)
        room__host_pass(r);
    seat_changed(r, i);
}

const char *admin__seat_free(struct lobby *lb, struct room *r, int i)
{
    if (r->phase != PROTO_PHASE_LOBBY)
        return "wrong_phase";
    if (!r->seats[i].taken)
        return "seat_empty";
    log_info("admin: room %s seat %d freed (%s)", r->id, i, r->seats[i].bot ? "a bot" : "a person");
    lobby_seat_clear(lb, r, i);
    lobby_room_reap(lb, r);
    return NULL;
}

const char *admin__seat_bot(struct lobby *lb, struct room *r, int i)
{
    struct room_seat *seat = &r->seats[i];
    if (r->phase == PROTO_PHASE_OVER)
        return "wrong_phase";
    if (seat->bot)
        return "already_bot";
    int level = TURN_STAND_IN_LEVEL;
    if (r->phase == PROTO_PHASE_LOBBY) {
        if (seat->taken)
            lobby_seat_clear(lb, r, i);
        memset(seat, 0, sizeof *seat);
        turn_bot_name(r, level, seat->name, sizeof seat->name);
        seat->taken = 1;
        seat->bot = 1 + level;
        seat_changed(r, i);
        log_info("admin: room %s seat %d handed to a bot", r->id, i);
        lobby_room_reap(lb, r);
        return NULL;
    }
    if (!seat->taken)
        return "seat_empty";
    /* In a game the seat is a bot's from now on: its player is told `left`
     * and its token no longer resumes it. The name stays (the record's). */
    struct session *s = seat->s;
    if (s != NULL) {
        room_detach(r, s, lb->now);
        session_send_text(s, proto_encode_left(""));
    }
    seat->bot = 1 + level;
    seat->autoplay = PROTO_AUTO_NONE;
    seat->token_hash[0] = '\0';
    seat_changed(r, i);
    room__schedule(r, lb->now);
    log_info("admin: room %s seat %d handed to a bot", r->id, i);
    return NULL;
}
