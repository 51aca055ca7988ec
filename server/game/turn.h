/* turn.h: who plays the turn, and for how long: a room's clock, its bot
 * seats, and the takeover of seats whose players are gone (PROTOCOL.md
 * "Clocks and bots").
 *
 * These functions decide; the room acts (room_turn.c). They read the room,
 * change its seats' and clock's fields, and return what the room must then
 * do (struct turn_outcome: publish a delta, play a timeout's skip, look for
 * a bot's turn). They never publish, move, nor start a bot's search
 * themselves, and call no room function: the calls go one way, room -> turn.
 *
 * Time: `now` is the loop's clock in ms (uv_now); the state document shows
 * the turn's start on the wall clock. Clocks are charged per move: a seat's
 * clock_ms is its time left when its turn started, the current turn's time is
 * now - r->turn_ms.
 *
 * Bots alone: a game nobody has been connected to for r->alone_grace_ms
 * (bots-alone-grace) pauses: no bot searches, no clock runs out, no seat is
 * taken over. When someone connects again it goes on where it stood: the
 * turn's start moves by the pause, so nobody is charged for it, and a bot
 * waits its pace from then.
 *
 * Correspondence clocks (r->clock.per_move > 0) give each turn per_move
 * seconds, nothing carried over; they never pause when everyone is gone, and
 * a restart charges the time since the stored turn start. With
 * r->clock.weekend_pause, no clock runs from Saturday 00:00 to Monday 00:00
 * in the room's zone (r->tz): the time charged is the turn's wall-clock time
 * outside week ends.
 *
 * Rated rooms (r->rated, which always have a clock: lobby_cmd.c) take no
 * seat from a person but by the clock's rule, whose play counts as the
 * game's result (PROTOCOL.md "Ratings"): no `offline` takeover, no pause
 * when everyone is gone (the absent player's clock runs and on_timeout
 * applies), `leave` forfeits the seat, and a seat out of time for good stays
 * its bot's when its player comes back. */
#ifndef CARCD_TURN_H
#define CARCD_TURN_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "game.h"
#include "state.h"

struct room;

/* A bot playing a person's seat plays at this level. */
#define TURN_STAND_IN_LEVEL 1 /* CARC_BOT_GREEDY */
/* Timeouts in a row under on_timeout skip before a bot plays the seat. */
#define TURN_IDLE_TIMEOUTS 3
/* Seconds a seat out of time for good gets when its player takes it back. */
#define TURN_BACK_S 60

/* What a decision asks of the room, in this order: cancel, act, then (schedule)
 * start a bot's search if one is due. */
enum turn_act {
    TURN_NONE,    /* nothing to publish */
    TURN_PUBLISH, /* one delta with the events ev[0..nev) */
    TURN_SKIP,    /* play mv (a timeout's skip) as the next move, ev before its own events;
                     then turn_skipped, or turn_skip_refused when it could not be played */
};
struct turn_outcome {
    int act; /* enum turn_act */
    struct proto_extra_event ev[2];
    int nev;
    struct carc_move mv; /* TURN_SKIP */
    int cancel;          /* first stop the bot's search for this turn (r->job) */
    int schedule;        /* then see whether a bot must search (turn_bot_level) */
};

/* The name of a new bot seat of level: "Greedy bot", "Greedy bot 2"... not
 * already seated in r. */
void turn_bot_name(const struct room *r, int level, char *out, size_t size);

/* The game starts: every clock is set to its initial time, the first turn
 * starts at now. Call before publishing the start. */
void turn_game_start(struct room *r, uint64_t now);
/* seat `mover` moved (its move is in r->moves): its clock is charged and gets
 * the increment, the next turn starts at now. Call before publishing. */
void turn_moved(struct room *r, int mover, uint64_t now);

/* The time the current turn has used at now (ms): what its mover is charged
 * (week ends left out). */
long long turn_used(const struct room *r, uint64_t now);
/* When the mover's time runs out if nobody moves (wall clock ms, week ends
 * skipped); -1 without a clock or a running turn. */
long long turn_deadline(const struct room *r);
/* Seat i's time left at wall (ms since 1970): its clock, less the running
 * turn's time when it moves; -1 without a clock. */
long long turn_time_left(const struct room *r, int i, long long wall);

/* Vacations (PROTOCOL.md "Vacations"): a correspondence clock of an
 * account's seat that runs out first asks the room's vacation hook (once a
 * turn, no timeout meanwhile); the answer, or a vacation taken by hand, is
 * the account's vacation [from, until) (wall ms), during which the seat's
 * clock does not run. Seat i learns it (moves: r->nmoves when asked, -1 when
 * not an answer); until <= wall on an answer for this turn: none, the
 * clock's end stands. Returns 1 when the mover's deadline moved (publish). */
int turn_vacation(struct room *r, int i, int moves, long long from, long long until,
                  long long wall);

/* The level (enum carc_bot_level) a bot must search the current turn at, or
 * -1: none (r has no bots, a search runs already, a person plays, the turn
 * has not started, the game is paused). Not before the turn (or the game's
 * last resume) is r->bot_pace_ms old, while anyone is connected (watched) or
 * the room is one that pauses when left alone (r->alone_grace_ms > 0; a
 * rated room keeps the pace too, though it never pauses): a later tick asks
 * again. Only a room nobody watches that never pauses plays
 * its bots at once. */
int turn_bot_level(const struct room *r, int watched, uint64_t now);
/* A search for the turn of r->job_moves answered (status 0: m): 1 when m is
 * still the current turn's move to play, 0 when it is stale (look again). */
int turn_bot_current(const struct room *r, int status, const struct carc_move *m);
/* The bot's move m could not be played (err): storage refusing moves is
 * tried again by the tick; any other refusal is the search's bug, logged,
 * and the turn is played at random. */
void turn_bot_refused(struct room *r, const struct carc_move *m, const struct carc_error *err);

/* A person's `play` from seat i: 0 when it may go ahead; CARC_E_TIME_OUT
 * when the seat was forfeited, CARC_E_TURN when it is not its turn, then
 * CARC_E_TIME_OUT when the clock ran out (the timeout is decided now: *out)
 * or a bot plays this turn for a timeout. A play of a seat a bot plays
 * because its player was gone (left, offline, idle) takes it back (0, and
 * *out publishes it). The room acts on *out whatever the verdict. */
int turn_play_check(struct room *r, int i, uint64_t now, struct turn_outcome *out,
                    struct carc_error *err);

/* A timeout's skip was played: after TURN_IDLE_TIMEOUTS in a row, a bot
 * plays the seat (*out). */
void turn_skipped(struct room *r, int i, struct turn_outcome *out);
/* ... or it could not be (storage refusing moves): the next tick tries again. */
void turn_skip_refused(struct room *r);

/* Seat i's player sent `leave` during the game: a bot plays it until they
 * resume; in a rated room the seat is forfeited (autoplay `forfeit`, for
 * good), a resignation. */
void turn_seat_left(struct room *r, int i, struct turn_outcome *out);
/* Seat i's player resumed: they have the seat back (not after a forfeit). A
 * seat out of time for good (on_timeout bot, no increment) gets TURN_BACK_S
 * seconds from now (the initial time when less); in a rated room it does not:
 * its bot keeps playing it (autoplay `timeout`) and its player watches. */
void turn_seat_back(struct room *r, int i, uint64_t now, struct turn_outcome *out);

/* The loop stalled for ms milliseconds, up to now (util/stall.h): nobody is
 * charged for it. The running turn starts ms later (never after now), on the
 * loop's clock and on the wall clock the state shows, and so does a
 * disconnected player's takeover grace; r->turn_moved asks the room to
 * publish the turn's new start (room_tick). Returns 1 when r has a running
 * clock, else 0. */
int turn_stall(struct room *r, uint64_t ms, uint64_t now);

/* A restored room's turn starts at the first tick: 1 when it started now
 * (the room publishes it), else 0. A per-move clock's mover is first charged
 * the time since r->turn_wall_saved (the stored turn start). */
int turn_restart(struct room *r, uint64_t now);
/* Time passes (about ten times a second): the clock of the seat to move runs
 * out, or a disconnected player's seat is taken over after grace_ms on its
 * turn (unrated rooms without a clock; 0: never). The room then also looks for a
 * bot's turn (a search that failed is asked again). Nothing while paused. */
void turn_tick(struct room *r, uint64_t now, uint64_t grace_ms, struct turn_outcome *out);

/* Bots alone: what a room with `members` sessions connected (players and
 * spectators) must do at now. Keeps r->alone_ms (since when nobody is
 * connected to its running game). */
enum turn_alone {
    TURN_GOES_ON, /* nothing changes */
    TURN_PAUSE,   /* nobody for r->alone_grace_ms (> 0; never a rated room): stop its bot's
                     search, then turn_pause */
    TURN_RESUME,  /* paused, and someone is back: turn_resume */
};
int turn_alone(struct room *r, int members, uint64_t now);
/* The game pauses at now (r->paused_ms). The room has stopped its search. */
void turn_pause(struct room *r, uint64_t now);
/* The game goes on at now: the turn's start (loop and wall clock) and the
 * disconnected seats' times move by the pause, so that no clock is charged
 * and no takeover grace runs for it. Returns 1 when the turn's start moved
 * (the room publishes it: `clock.turn_started`), else 0. */
int turn_resume(struct room *r, uint64_t now);

#endif
