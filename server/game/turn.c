/* turn.c: see turn.h. */
#include "game/turn.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bot.h"
#include "game/room.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/tz.h"

static int has_clock(const struct room *r)
{
    return r->clock.initial > 0;
}

static int playing(const struct room *r)
{
    return r->phase == PROTO_PHASE_PLAYING && r->game != NULL &&
           r->game->phase == CARC_PHASE_PLACE && r->game->tile >= 0;
}

/* The level that plays seat i now, or -1 when its player does. */
static int bot_level(const struct room *r, int i)
{
    const struct room_seat *seat = &r->seats[i];
    if (seat->bot)
        return seat->bot - 1;
    return seat->autoplay != PROTO_AUTO_NONE ? TURN_STAND_IN_LEVEL : -1;
}

static void turn_start(struct room *r, uint64_t now)
{
    r->turn_ms = now != 0 ? now : 1;
    r->turn_wall = clock_wall_ms();
    r->turn_moves = r->nmoves;
    r->timed_out = 0;
    r->turn_moved = 0;
}

static void nothing(struct turn_outcome *out)
{
    memset(out, 0, sizeof *out);
    out->act = TURN_NONE;
}

/* One delta with the event ev (and a second one when ev2 is not NULL). */
static void publish(struct turn_outcome *out, const struct proto_extra_event *ev,
                    const struct proto_extra_event *ev2, int schedule)
{
    nothing(out);
    out->act = TURN_PUBLISH;
    out->ev[out->nev++] = *ev;
    if (ev2 != NULL)
        out->ev[out->nev++] = *ev2;
    out->schedule = schedule;
}

void turn_bot_name(const struct room *r, int level, char *out, size_t size)
{
    const char *name = carc_bot_level_name(level);
    for (int k = 1;; k++) {
        if (k == 1)
            snprintf(out, size, "%c%s bot", name[0] - 'a' + 'A', name + 1);
        else
            snprintf(out, size, "%c%s bot %d", name[0] - 'a' + 'A', name + 1, k);
        if (room_name_seat(r, out) < 0) /* also "greedy BOT", a person's name */
            return;
    }
}

void turn_game_start(struct room *r, uint64_t now)
{
    for (int i = 0; i < r->nseats; i++)
        r->seats[i].clock_ms = (long long)r->clock.initial * 1000;
    turn_start(r, now);
    room__turn_to(r, -1); /* the first mover, if away, is told */
}

/* The room's time zone (UTC when the server does not know its name). */
static const struct tz_zone *zone(const struct room *r)
{
    return r->tz != NULL ? r->tz : tz_db_find(NULL, "UTC");
}

/* The part of the wall-clock interval [from, to) that the room's clocks run:
 * all of it, or with weekend_pause what falls outside the room zone's week
 * ends. */
static long long counted(const struct room *r, long long from, long long to)
{
    if (to <= from)
        return 0;
    return r->clock.weekend_pause ? tz_week_days_ms(zone(r), from, to) : to - from;
}

/* The instant ms of running clock after t. */
static long long counted_add(const struct room *r, long long t, long long ms)
{
    return r->clock.weekend_pause ? tz_week_days_add(zone(r), t, ms) : t + (ms > 0 ? ms : 0);
}

/* counted() for seat's clock: without its account's vacation. */
static long long counted_seat(const struct room *r, const struct room_seat *seat, long long from,
                              long long to)
{
    long long all = counted(r, from, to);
    if (r->clock.per_move <= 0 || seat->vac_until <= seat->vac_from)
        return all;
    long long a = from > seat->vac_from ? from : seat->vac_from;
    long long b = to < seat->vac_until ? to : seat->vac_until;
    return all - counted(r, a, b);
}

/* Time used by the current turn so far. The loop's clock says how long the
 * turn has run; the wall clock, which moves with it (turn_stall,
 * turn_resume), says which of it fell on a week end or a vacation. */
static long long turn_elapsed(const struct room *r, uint64_t now)
{
    long long e = r->turn_ms != 0 && now > r->turn_ms ? (long long)(now - r->turn_ms) : 0;
    return e > 0 ? counted_seat(r, &r->seats[r->game->current], r->turn_wall, r->turn_wall + e) : 0;
}

long long turn_used(const struct room *r, uint64_t now)
{
    return turn_elapsed(r, now);
}

long long turn_deadline(const struct room *r)
{
    if (!has_clock(r) || !playing(r) || r->turn_ms == 0)
        return -1;
    const struct room_seat *seat = &r->seats[r->game->current];
    long long left = seat->clock_ms > 0 ? seat->clock_ms : 0;
    long long end = counted_add(r, r->turn_wall, left);
    if (r->clock.per_move <= 0 || seat->vac_until <= r->turn_wall || seat->vac_from > end ||
        seat->vac_until <= seat->vac_from)
        return end;
    /* A vacation in the way: what runs before it, then the rest after it. */
    long long from = seat->vac_from > r->turn_wall ? seat->vac_from : r->turn_wall;
    return counted_add(r, seat->vac_until, left - counted(r, r->turn_wall, from));
}

long long turn_time_left(const struct room *r, int i, long long wall)
{
    if (!has_clock(r) || i < 0 || i >= r->nseats)
        return -1;
    long long left = r->seats[i].clock_ms;
    if (playing(r) && r->game->current == i && r->turn_ms != 0)
        left -= counted_seat(r, &r->seats[i], r->turn_wall, wall);
    return left > 0 ? left : 0;
}

/* Seat out of time for good: its clock ran out (on_timeout bot) and no
 * increment will ever give it time again, so every turn of it would time out
 * at once. A bot plays it until its player takes it back (turn_seat_back). */
static int out_of_time(const struct room *r, const struct room_seat *seat)
{
    return has_clock(r) && r->clock.increment == 0 && r->clock.per_move == 0 &&
           seat->autoplay == PROTO_AUTO_TIMEOUT && seat->clock_ms <= 0;
}

void turn_moved(struct room *r, int mover, uint64_t now)
{
    struct room_seat *seat = &r->seats[mover];
    if (has_clock(r) && r->clock.per_move > 0) {
        seat->clock_ms = (long long)r->clock.per_move * 1000; /* nothing carried over */
    } else if (has_clock(r)) {
        long long left = seat->clock_ms - turn_elapsed(r, now);
        seat->clock_ms = (left > 0 ? left : 0) + (long long)r->clock.increment * 1000;
    }
    const struct carc_move *mv = &r->moves[r->nmoves - 1];
    if (!mv->skip)
        seat->timeouts = 0;
    if (seat->autoplay == PROTO_AUTO_TIMEOUT && !out_of_time(r, seat))
        seat->autoplay = PROTO_AUTO_NONE; /* one turn only, unless no time comes back */
    r->bot_refused = 0;
    turn_start(r, now);
}

int turn_bot_level(const struct room *r, int watched, uint64_t now)
{
    if (r->bots == NULL || r->job != NULL || r->paused_ms != 0 || !playing(r) || r->turn_ms == 0)
        return -1;
    int level = bot_level(r, r->game->current);
    if (level < 0)
        return -1;
    /* People watching get time to see each move, and so do people who come
     * back to a room that waited for them; turn_tick comes back for it. A
     * room that pauses when left alone keeps the pace meanwhile, so that a
     * player who looks away for a moment does not come back to a game the
     * bots played on at once. */
    uint64_t from = r->turn_ms > r->resumed_ms ? r->turn_ms : r->resumed_ms;
    if (r->bot_pace_ms > 0 && (watched || r->alone_grace_ms > 0) &&
        now < from + (uint64_t)r->bot_pace_ms)
        return -1;
    return r->bot_refused ? CARC_BOT_RANDOM : level;
}

int turn_bot_current(const struct room *r, int status, const struct carc_move *m)
{
    return status == 0 && playing(r) && r->nmoves == r->job_moves && bot_level(r, m->player) >= 0 &&
           m->player == r->game->current;
}

void turn_bot_refused(struct room *r, const struct carc_move *m, const struct carc_error *err)
{
    /* Storage refusing moves: turn_tick asks again. A refused move would be
     * a bug of the search: the game goes on with a random one rather than
     * stall. */
    if (err->code == CARC_E_STORAGE)
        return;
    log_event(
        LOG_ERROR,
        &(struct log_fields){.room = r->id, LOG_SEAT(m->player), .code = carc_err_name(err->code)},
        "the bot's move was refused: %s", err->text);
    r->bot_refused = 1;
}

/* Seat i gets (or loses, reason NONE) a bot for its player: one delta, with
 * first before its own event when not NULL. */
static void turn_autoplay(struct room *r, int i, int reason, const struct proto_extra_event *first,
                          struct turn_outcome *out)
{
    r->seats[i].autoplay = reason;
    struct proto_extra_event ev = {PROTO_EV_AUTOPLAY, i, NULL, 0, 0, 0, reason};
    if (first != NULL)
        publish(out, first, &ev, 1);
    else
        publish(out, &ev, NULL, 1);
}

/* The clock of the seat to move ran out: the room's on_timeout. */
static void turn_timeout(struct room *r, struct turn_outcome *out)
{
    int i = r->game->current;
    struct room_seat *seat = &r->seats[i];
    int policy = r->clock.on_timeout;
    r->timed_out = 1;
    seat->clock_ms = 0;
    seat->timeouts++;
    struct proto_extra_event ev = {PROTO_EV_TIMEOUT, i, NULL, 0, 0, 0, policy};
    log_event(LOG_INFO, &(struct log_fields){.room = r->id, LOG_SEAT(i), .code = "time_out"},
              "the seat's clock ran out (%s)", proto_timeout_name(policy));
    if (policy == PROTO_TIMEOUT_SKIP && r->nmoves < CARC_MAX_MOVES) {
        nothing(out);
        out->act = TURN_SKIP;
        out->ev[out->nev++] = ev;
        out->mv = (struct carc_move){.player = i, .tile = r->game->tile, .seg = -1, .skip = 1};
        return;
    }
    if (seat->bot) { /* a bot seat late on its own turn: it plays as soon as it can */
        publish(out, &ev, NULL, 1);
    } else if (policy == PROTO_TIMEOUT_FORFEIT) {
        seat->forfeited = 1;
        turn_autoplay(r, i, PROTO_AUTO_FORFEIT, &ev, out);
    } else if (seat->autoplay == PROTO_AUTO_NONE) {
        turn_autoplay(r, i, PROTO_AUTO_TIMEOUT, &ev, out);
    } else {
        publish(out, &ev, NULL, 0);
    }
}

void turn_skipped(struct room *r, int i, struct turn_outcome *out)
{
    const struct room_seat *seat = &r->seats[i];
    nothing(out);
    if (seat->timeouts >= TURN_IDLE_TIMEOUTS && !seat->bot && seat->autoplay == PROTO_AUTO_NONE)
        turn_autoplay(r, i, PROTO_AUTO_IDLE, NULL, out);
}

void turn_skip_refused(struct room *r)
{
    r->timed_out = 0; /* storage refuses moves: tried again at the next tick */
}

static int timed_out(const struct room *r, uint64_t now)
{
    const struct room_seat *seat = &r->seats[r->game->current];
    /* a seat out of time for good is its bot's: no timeout again each turn */
    if (!has_clock(r) || r->timed_out || r->turn_ms == 0 || out_of_time(r, seat))
        return 0;
    /* A vacation that began as the clock ran out (a day taken then) holds it
     * at zero: its end is the deadline's. */
    if (r->clock.per_move > 0 && seat->vac_until > seat->vac_from)
        return r->turn_wall + (now > r->turn_ms ? (long long)(now - r->turn_ms) : 0) >=
               turn_deadline(r);
    return turn_elapsed(r, now) >= seat->clock_ms;
}

/* The mover's correspondence clock ran out: 1 while its account's vacation
 * decides (asked now, or already), 0 when the clock's end stands (no
 * vacations here, a guest's or a bot's seat, or no vacation this turn). */
static int vacation_pending(struct room *r)
{
    struct room_seat *seat = &r->seats[r->game->current];
    if (r->clock.per_move <= 0 || r->vacation == NULL || seat->account <= 0 || seat->bot ||
        seat->vac_none == r->nmoves + 1)
        return 0;
    if (!seat->vac_asking) {
        seat->vac_asking = 1;
        r->vacation(r->vacation_arg, r, r->game->current);
    }
    return 1;
}

int turn_vacation(struct room *r, int i, int moves, long long from, long long until, long long wall)
{
    if (i < 0 || i >= r->nseats)
        return 0;
    struct room_seat *seat = &r->seats[i];
    seat->vac_asking = 0;
    int changed = from != seat->vac_from || until != seat->vac_until;
    if (until > from && until > seat->vac_from) {
        seat->vac_from = from;
        seat->vac_until = until;
    } else {
        changed = 0;
    }
    /* No vacation going on: the clock's end stands for this turn. */
    if (moves == r->nmoves && until <= wall)
        seat->vac_none = r->nmoves + 1;
    return changed && playing(r) && r->game->current == i;
}

int turn_play_check(struct room *r, int i, uint64_t now, struct turn_outcome *out,
                    struct carc_error *err)
{
    struct room_seat *seat = &r->seats[i];
    nothing(out);
    if (seat->forfeited) /* whoever's turn it is */
        return carc_error_set(err, CARC_E_TIME_OUT, "the seat was forfeited: a bot plays it");
    if (i != r->game->current)
        return carc_error_set(err, CARC_E_TURN, NULL);
    /* While its vacation is asked, a move is in time: its clock's end is not
     * decided until the bank answers. */
    if (timed_out(r, now) && !vacation_pending(r)) {
        turn_timeout(r, out);
        return carc_error_set(err, CARC_E_TIME_OUT, NULL);
    }
    if (seat->autoplay == PROTO_AUTO_TIMEOUT && r->rated && out_of_time(r, seat))
        return carc_error_set(err, CARC_E_TIME_OUT,
                              "your time ran out for good in a rated game: a bot plays the seat");
    if (seat->autoplay == PROTO_AUTO_TIMEOUT)
        return carc_error_set(err, CARC_E_TIME_OUT, "your time ran out: a bot plays this turn");
    if (seat->autoplay != PROTO_AUTO_NONE) {
        /* The player is back and plays: the bot stops. */
        seat->autoplay = PROTO_AUTO_NONE;
        struct proto_extra_event ev = {PROTO_EV_AUTOPLAY, i, NULL, 0, 0, 0, PROTO_AUTO_NONE};
        publish(out, &ev, NULL, 0);
        out->cancel = 1;
    }
    return 0;
}

void turn_seat_left(struct room *r, int i, struct turn_outcome *out)
{
    struct room_seat *seat = &r->seats[i];
    nothing(out);
    if (r->phase != PROTO_PHASE_PLAYING || seat->bot || seat->autoplay == PROTO_AUTO_FORFEIT)
        return;
    if (r->rated) {
        /* A resignation: the seat ranks below every seat not forfeited, and
         * a bot plays its turns so that the others can finish. */
        seat->forfeited = 1;
        log_event(LOG_INFO, &(struct log_fields){.room = r->id, LOG_SEAT(i), .code = "forfeit"},
                  "the seat's player left the rated game: forfeited");
        turn_autoplay(r, i, PROTO_AUTO_FORFEIT, NULL, out);
        return;
    }
    turn_autoplay(r, i, PROTO_AUTO_LEFT, NULL, out);
}

void turn_seat_back(struct room *r, int i, uint64_t now, struct turn_outcome *out)
{
    struct room_seat *seat = &r->seats[i];
    nothing(out);
    seat->offline_ms = 0;
    if (out_of_time(r, seat) && r->rated)
        return; /* the clock's result stands: its bot plays on, the player watches */
    if (out_of_time(r, seat)) {
        /* Taken back: TURN_BACK_S seconds (the initial time when less) from
         * now, on this turn too when it is the seat's. */
        long long back =
            (long long)(r->clock.initial < TURN_BACK_S ? r->clock.initial : TURN_BACK_S) * 1000;
        int mine = playing(r) && r->game->current == i;
        seat->clock_ms = back + (mine ? turn_elapsed(r, now) : 0);
        if (mine)
            r->timed_out = 0;
        seat->timeouts = 0;
        turn_autoplay(r, i, PROTO_AUTO_NONE, NULL, out);
        out->cancel = mine;
        return;
    }
    if (seat->autoplay == PROTO_AUTO_LEFT || seat->autoplay == PROTO_AUTO_OFFLINE ||
        seat->autoplay == PROTO_AUTO_IDLE) {
        seat->timeouts = 0;
        turn_autoplay(r, i, PROTO_AUTO_NONE, NULL, out);
    }
}

/* t moved ms later, but not past now; 0 (never) stays 0. */
static uint64_t later(uint64_t t, uint64_t ms, uint64_t now)
{
    if (t == 0 || t >= now)
        return t;
    return now - t > ms ? t + ms : now;
}

int turn_stall(struct room *r, uint64_t ms, uint64_t now)
{
    if (r->phase != PROTO_PHASE_PLAYING || r->turn_ms == 0)
        return 0; /* no turn runs (a restored room's starts at its first tick) */
    uint64_t start = later(r->turn_ms, ms, now);
    r->turn_wall += (long long)(start - r->turn_ms);
    r->turn_ms = start;
    for (int i = 0; i < r->nseats; i++)
        r->seats[i].offline_ms = later(r->seats[i].offline_ms, ms, now);
    if (!has_clock(r) || !playing(r))
        return 0;
    r->turn_moved = 1;
    return 1;
}

int turn_restart(struct room *r, uint64_t now)
{
    if (!playing(r) || r->turn_ms != 0)
        return 0;
    /* A per-move clock runs for days: its turn goes on from where it
     * started (stored), the time since charged, the server's down time with
     * it. Other clocks start the turn again: nobody is charged for the time
     * the server was not there. */
    long long since = r->turn_wall_saved;
    r->turn_wall_saved = 0;
    if (has_clock(r) && r->clock.per_move > 0 && since > 0) {
        struct room_seat *seat = &r->seats[r->game->current];
        long long left = seat->clock_ms - counted_seat(r, seat, since, clock_wall_ms());
        seat->clock_ms = left > 0 ? left : 0;
    }
    turn_start(r, now);
    return 1;
}

void turn_tick(struct room *r, uint64_t now, uint64_t grace_ms, struct turn_outcome *out)
{
    nothing(out);
    if (!playing(r) || r->paused_ms != 0)
        return;
    int i = r->game->current;
    const struct room_seat *seat = &r->seats[i];
    if (timed_out(r, now)) {
        if (!vacation_pending(r))
            turn_timeout(r, out);
    } else if (!has_clock(r) && !r->rated && grace_ms > 0 && !seat->bot &&
               seat->autoplay == PROTO_AUTO_NONE && seat->s == NULL) {
        uint64_t since = seat->offline_ms > r->turn_ms ? seat->offline_ms : r->turn_ms;
        if (now >= since + grace_ms)
            turn_autoplay(r, i, PROTO_AUTO_OFFLINE, NULL, out);
    }
}

int turn_alone(struct room *r, int members, uint64_t now)
{
    if (members > 0) {
        r->alone_ms = 0;
        return r->paused_ms != 0 ? TURN_RESUME : TURN_GOES_ON;
    }
    /* A rated game never pauses, nor a correspondence one (per-move clock),
     * which people leave between their moves: an absent player's clock runs
     * (turn.h). */
    if (r->paused_ms != 0 || r->phase != PROTO_PHASE_PLAYING || r->rated || r->clock.per_move > 0)
        return TURN_GOES_ON;
    if (r->alone_ms == 0) {
        r->alone_ms = now != 0 ? now : 1;
        return TURN_GOES_ON;
    }
    if (r->alone_grace_ms > 0 && now >= r->alone_ms && now - r->alone_ms >= r->alone_grace_ms)
        return TURN_PAUSE;
    return TURN_GOES_ON;
}

void turn_pause(struct room *r, uint64_t now)
{
    r->paused_ms = now != 0 ? now : 1;
}

int turn_resume(struct room *r, uint64_t now)
{
    uint64_t d = now > r->paused_ms ? now - r->paused_ms : 0;
    r->paused_ms = 0;
    r->alone_ms = 0;
    r->resumed_ms = now;
    /* The takeover grace of a disconnected player counts from the later of
     * the turn's start and the player's going: both move, as if the pause
     * had not been. */
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].offline_ms != 0)
            r->seats[i].offline_ms += d;
    if (r->turn_ms == 0 || d == 0)
        return 0;
    r->turn_ms += d;
    r->turn_wall += (long long)d;
    return 1;
}
