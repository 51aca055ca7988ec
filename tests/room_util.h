/* room_util.h: fake clients of the lobby, for the tests that drive carcd's
 * transport-free core without sockets (test_room.c, test_session.c, test_api.c).
 *
 * Each client is a fake session whose sink only counts: tests read what the
 * server queued with session_peek/session_pop, feed every message to a
 * protocol/client.h document (so each delta must apply to the state before
 * it), and move the lobby's clock (`now`) by hand. Games are dealt from an
 * explicit deck (lobby_test_game) so every run plays the same moves. Every
 * helper fails the running Check test instead of returning an error. */
#ifndef CARC_ROOM_UTIL_H
#define CARC_ROOM_UTIL_H

#include <check.h>
#include <stdint.h>

#include "client.h"
#include "conn/session.h"
#include "game/lobby.h"
#include "game/room.h"

struct fake {
    struct session s; /* first: the sink gets &f->s */
    int wakes;
    int closes;
    struct proto_client_doc *doc;
    char token[PROTO_TOKEN_MAX];
    char room[PROTO_ROOM_MAX];
    int seat;
    char *last; /* the last message popped (owned) */
    int legals; /* `legal` messages received (pop takes them with what they follow) */
};

/* The lobby under test and its clock (ms). */
extern struct lobby *lb;
extern uint64_t now;

/* Fixtures: a fresh lobby with the default limits changed by tweak (setup_with)
 * or unchanged (setup_default); teardown frees every fake and the lobby. */
void setup_with(void (*tweak)(struct lobby_limits *));
void setup_default(void);
void teardown(void);
/* A test case of that name with the setup and teardown above. */
TCase *tcase_with(const char *name, void (*setup)(void));

/* A fake connected from peer (fake_new: from 10.0.0.1, its welcome popped). */
struct fake *fake_new_from(const char *peer);
struct fake *fake_new(void);
/* f's connection goes away. */
void fake_free(struct fake *f);
/* Messages queued for f. */
int queued(const struct fake *f);

/* Pop the oldest queued message into f->last and feed it to f's document.
 * A `legal` after a delta, state or synced is taken with it, and checked: it
 * comes exactly when f's seat is to move without the turn's list. */
const char *pop(struct fake *f);
void drain(struct fake *f);
/* JSON fields of a message: a string (or "<missing path>"), an integer (fails if
 * none), whether the path exists. */
const char *jstr(const char *text, const char *path);
long long jint(const char *text, const char *path);
int has(const char *text, const char *path);
/* Compact JSON at path (static buffer), or "<missing>". */
const char *jdump(const char *text, const char *path);

/* Pop one message and check its type / error code, or that nothing is queued
 * (line: the caller's, for messages). */
const char *expect_at(int line, struct fake *f, const char *type);
const char *expect_error_at(int line, struct fake *f, const char *code);
void expect_nothing_at(int line, struct fake *f);
#define expect(f, type) expect_at(__LINE__, f, type)
#define expect_error(f, code) expect_error_at(__LINE__, f, code)
#define expect_nothing(f) expect_nothing_at(__LINE__, f)

/* Send text as one whole message, at the current time. */
void raw(struct fake *f, const char *text);
/* Send one message (printf-style JSON without the "v" key); the clock moves
 * 60 ms so normal traffic stays under the rate limit. */
void say(struct fake *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* create: f becomes the host at seat 0; returns the room. */
struct room *create(struct fake *f, const char *extra);
/* join: f takes the next seat of room; everyone else in it gets a delta. */
void join(struct fake *f, const char *room, const char *name);

/* The room's document and seq as text, to check that an error changed nothing;
 * assert_unchanged compares and frees before. */
char *snapshot(const struct room *r);
void assert_unchanged(const struct room *r, char *before);

/* A short fixed deck for lobby_test_game. */
extern const char *const short_deck[];
extern const int short_deck_len;
#define SHORT_DECK short_deck_len

/* A started two-player game: a hosts (seat 0), b joined (seat 1). */
struct room *two_player_game(struct fake **pa, struct fake **pb);
/* The one of a and b whose turn it is. */
struct fake *current(struct room *r, struct fake *a, struct fake *b);

/* Move i of r as the store keeps it (room__move_text) into buf: its length,
 * or -1 when it does not fit or the codec fails. */
int room_move_json(const struct room *r, int i, char *buf, size_t size);

#endif
