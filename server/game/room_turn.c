/* room_turn.c: the room acting on turn.h's decisions. turn.c decides who
 * plays and when (clocks, bot seats, takeovers) and returns what happened;
 * this file publishes it, plays a timeout's skip or a bot's move through
 * room__move (the validated, write-before-tell path of a person's move) and
 * runs the bots' searches (bots.h) for the turns turn.c gives to a bot. */
#include <string.h>

#include "game/bots.h"
#include "game/room.h"
#include "game/turn.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/rand.h"

void room__turn_apply(struct room *r, const struct turn_outcome *o, uint64_t now)
{
    if (o->cancel) {
        bots_job_cancel(r->job);
        r->job = NULL;
    }
    if (o->act == TURN_PUBLISH) {
        room__publish(r, o->ev, o->nev, NULL, NULL);
    } else if (o->act == TURN_SKIP) {
        struct carc_error err = {0, ""};
        if (room__move(r, &o->mv, o->ev, o->nev, now, &err) < 0) {
            turn_skip_refused(r);
            return;
        }
        struct turn_outcome next;
        turn_skipped(r, o->mv.player, &next);
        room__turn_apply(r, &next, now);
    }
    if (o->schedule)
        room__schedule(r, now);
}

static void on_bot_move(void *arg, int status, const struct carc_move *m, uint64_t now)
{
    struct room *r = arg;
    r->job = NULL;
    if (!turn_bot_current(r, status, m)) {
        room__schedule(r, now);
        return;
    }
    struct carc_error err = {0, ""};
    if (room__move(r, m, NULL, 0, now, &err) < 0)
        turn_bot_refused(r, m, &err);
}

void room__turn_to(struct room *r, int mover)
{
    r->low_told = 0;
    if (r->phase == PROTO_PHASE_PLAYING && r->notice != NULL && r->game != NULL &&
        r->game->current != mover)
        r->notice(r->notice_arg, r, r->game->current, ROOM_NOTICE_TURN);
}

#define LOW_MIN_MS (20 * 60 * 1000LL) /* a shorter turn is watched, not told */
#define HOUR_MS (60 * 60 * 1000LL)

void room__time_check(struct room *r, uint64_t now)
{
    if (r->notice == NULL || r->phase != PROTO_PHASE_PLAYING || r->game == NULL ||
        r->clock.initial <= 0 || r->turn_ms == 0 || r->paused_ms != 0 || now < r->turn_ms)
        return;
    const struct room_seat *seat = &r->seats[r->game->current];
    long long had = seat->clock_ms, left = had - turn_used(r, now);
    int bit = 0;
    if (!(r->low_told & 1) && had >= LOW_MIN_MS && left <= had / 4)
        bit = 1;
    else if (!(r->low_told & 2) && had > 2 * HOUR_MS && left <= HOUR_MS)
        bit = 2;
    if (bit == 0 || left <= 0)
        return;
    r->low_told |= bit | (bit == 2 ? 1 : 0); /* past the last hour, a quarter says nothing new */
    r->notice(r->notice_arg, r, r->game->current, ROOM_NOTICE_LOW);
}

void room_vacation(struct room *r, int i, int moves, long long from, long long until)
{
    if (turn_vacation(r, i, moves, from, until, clock_wall_ms()))
        room__publish(r, NULL, 0, NULL, NULL); /* clock.deadline */
    room__dirty(r);
}

void room__schedule(struct room *r, uint64_t now)
{
    /* Storage refuses moves: a search would be thrown away, again and again
     * (the tick asks every tenth of a second). The tick starts it once a
     * commit works. */
    if (room__failing(r))
        return;
    int watched = room_members(r) > 0;
    int level = turn_bot_level(r, watched, now);
    if (level < 0)
        return;
    r->job_moves = r->nmoves;
    r->job = bots_job_start(r->bots, r->game, level, rand_u64(),
                            watched ? BOTS_WATCHED : BOTS_ALONE, on_bot_move, r);
}

void room_presence(struct room *r, uint64_t now)
{
    int members = room_members(r);
    if (members > 0)
        bots_job_promote(r->job);
    switch (turn_alone(r, members, now)) {
    case TURN_PAUSE:
        bots_job_cancel(r->job); /* its answer would be a move nobody sees */
        r->job = NULL;
        turn_pause(r, now);
        log_event(LOG_INFO, &(struct log_fields){.room = r->id},
                  "game paused: nobody connected for %llu s",
                  (unsigned long long)(r->alone_grace_ms / 1000));
        break;
    case TURN_RESUME: {
        uint64_t paused = now > r->paused_ms ? now - r->paused_ms : 0;
        if (turn_resume(r, now))
            room__publish(r, NULL, 0, NULL, NULL); /* clock.turn_started */
        log_event(LOG_INFO, &(struct log_fields){.room = r->id},
                  "game goes on after a pause of %llu s", (unsigned long long)(paused / 1000));
        room__schedule(r, now);
        break;
    }
    default:
        break;
    }
}

void room_turn_restart(struct room *r, uint64_t now)
{
    if (turn_restart(r, now))
        room__publish(r, NULL, 0, NULL, NULL);
}

int room_stall(struct room *r, uint64_t ms, uint64_t now)
{
    return turn_stall(r, ms, now);
}

void room_tick(struct room *r, uint64_t now, uint64_t grace_ms)
{
    /* A restored room's turn starts now; a stall moved the turn's start:
     * either way the state's clock.turn_started changed. */
    int moved = r->turn_moved;
    r->turn_moved = 0;
    if (turn_restart(r, now) || moved)
        room__publish(r, NULL, 0, NULL, NULL);
    room_presence(r, now);
    struct turn_outcome o;
    turn_tick(r, now, grace_ms, &o);
    room__turn_apply(r, &o, now);
    room__schedule(r, now);
    room__time_check(r, now);
}

/* One delta telling everyone of seat i's change (a bot's seat). */
static void bot_seat_event(struct room *r, int i)
{
    const struct room_seat *seat = &r->seats[i];
    struct proto_extra_event ev = {PROTO_EV_SEAT, i, seat->name, seat->taken, 0, seat->bot, 0};
    room__publish(r, &ev, 1, NULL, NULL);
}

int room_bot_add(struct room *r, int level, struct carc_error *err)
{
    int i = room_seat_free(r);
    if (i < 0)
        return carc_error_set(err, CARC_E_ROOM_FULL, NULL);
    struct room_seat *seat = &r->seats[i];
    memset(seat, 0, sizeof *seat);
    turn_bot_name(r, level, seat->name, sizeof seat->name);
    seat->taken = 1;
    seat->bot = 1 + level;
    bot_seat_event(r, i);
    return 0;
}

int room_bot_remove(struct room *r, int i, struct carc_error *err)
{
    if (i < 0 || i >= r->nseats)
        return carc_error_set(err, CARC_E_INVAL, "seat: the room has %d seats", r->nseats);
    if (!r->seats[i].bot)
        return carc_error_set(err, CARC_E_NOT_BOT, "seat %d holds no bot", i);
    memset(&r->seats[i], 0, sizeof r->seats[i]);
    bot_seat_event(r, i);
    return 0;
}
