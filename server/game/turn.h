/* turn.h: who plays the turn, and for how long: a room's clock, its bot
 * seats, and the takeover of seats whose players are gone (PROTOCOL.md
 * "Clocks and bots").
 *
 * The room (room.c) calls these at the points where turns change hands; they
 * change the room's seats and clock and publish through room__publish and
 * room__move, the same path as a person's move. A bot's move is searched by
 * bots.h off the loop and applied here when it comes back, if the turn it
 * was for is still the current one.
 *
 * Time: `now` is the loop's clock in ms (uv_now); the state document shows
 * the turn's start on the wall clock. Clocks are charged per move: a seat's
 * clock_ms is its time left when its turn started, the current turn's time is
 * now - r->turn_ms. */
#ifndef CARCD_TURN_H
#define CARCD_TURN_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct room;

/* A bot playing a person's seat plays at this level. */
#define TURN_STAND_IN_LEVEL 1 /* CARC_BOT_GREEDY */
/* Timeouts in a row under on_timeout skip before a bot plays the seat. */
#define TURN_IDLE_TIMEOUTS 3

/* The name of a new bot seat of level: "Greedy bot", "Greedy bot 2"... not
 * already seated in r. */
void turn_bot_name(const struct room *r, int level, char *out, size_t size);

/* The host seats a bot of level (enum carc_bot_level) in the first free
 * seat of r (lobby): everyone gets a delta. 0, or CARC_E_ROOM_FULL. */
int turn_bot_add(struct room *r, int level, struct carc_error *err);
/* The host frees bot seat i (lobby). 0, CARC_E_NOT_BOT or CARC_E_INVAL. */
int turn_bot_remove(struct room *r, int i, struct carc_error *err);

/* The game starts: every clock is set to its initial time, the first turn
 * starts at now. Call before publishing the start. */
void turn_game_start(struct room *r, uint64_t now);
/* seat `mover` moved (its move is in r->moves): its clock is charged and gets
 * the increment, the next turn starts at now. Call before publishing. */
void turn_moved(struct room *r, int mover, uint64_t now);
/* If a bot plays the seat to move and none is searching yet for this turn,
 * start one; while anyone is connected to the room, not before the turn is
 * r->bot_pace_ms old (turn_tick starts it then). Call after publishing a
 * change. */
void turn_schedule(struct room *r, uint64_t now);

/* A person's `play` from seat i: 0 when it may go ahead; CARC_E_TIME_OUT
 * when the seat was forfeited, CARC_E_TURN when it is not its turn, then
 * CARC_E_TIME_OUT when the clock ran out (the timeout is applied now) or a
 * bot plays this turn for a timeout. A play of a seat a bot
 * plays because its player was gone (left, offline, idle) takes it back. */
int turn_play_check(struct room *r, int i, uint64_t now, struct carc_error *err);

/* Seat i's player sent `leave` during the game: a bot plays it until they
 * resume. */
void turn_seat_left(struct room *r, int i, uint64_t now);
/* Seat i's player resumed: they have the seat back (not after a forfeit). */
void turn_seat_back(struct room *r, int i, uint64_t now);

/* Time passes (about ten times a second): a restored room's turn starts,
 * the clock of the seat to move runs out, a disconnected player's seat is
 * taken over after grace_ms on its turn (rooms without a clock; 0: never),
 * and a bot whose search failed is asked again. */
void turn_tick(struct room *r, uint64_t now, uint64_t grace_ms);

#endif
