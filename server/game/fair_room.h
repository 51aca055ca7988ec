/* fair_room.h: a room's part of the fair draw (common/fair.h, PROTOCOL.md "The fair draw").
 *
 * The room owns the data (struct room: fair_secret, fair_commit, fair_entropy, fair, and each
 * seat's entropy); these functions keep it. The secret and the entropies are never in the
 * public state, a delta, `rooms`, /api/rooms, the admin API or a log: only the commitment and,
 * per seat, whether entropy was sent. They are revealed in the record of the game (once it has
 * ended or was closed) and kept in storage (rooms.fair) so that a restored room keeps them. */
#ifndef CARCD_FAIR_ROOM_H
#define CARCD_FAIR_ROOM_H

#include <stddef.h>
#include <stdint.h>

#include "fair.h"
#include "game.h"

struct room;
struct session;
struct carc_record;

/* A new room's secret (getrandom) and its commitment. */
void fair_room_init(struct room *r);

/* `entropy` from seat i (lobby phase, a seated player: the lobby has checked): data (64 hex
 * digits, checked by the decoder) replaces what the seat sent before. Returns 1 when the
 * seat's public `entropy` flag changed (the room publishes it: room_entropy), else 0. */
int fair_room_entropy(struct room *r, int i, const char *data);

/* At the start: the seed derived from the secret and the entropies of the taken seats in seat
 * order (the order of the game's players once the empty seats are dropped); they are kept in
 * that order (r->fair_entropy) and r->fair is set. A room without a secret (stored before the fair
 * draw) gets an OS-random seed and r->fair 0. */
uint64_t fair_room_seed(struct room *r);

/* The record's "fair" block when the game was dealt from the derivation. */
void fair_room_record(const struct room *r, struct carc_record *rec);

/* The stored form (rooms.fair): "" (no secret) or the secret, then for each of n entries a
 * ',' and its entropy or nothing: the seats' entropies by seat index in the lobby, those of
 * the derivation once started. out has FAIR_ROOM_TEXT bytes. */
#define FAIR_ROOM_TEXT (CARC_FAIR_HEX * (1 + CARC_MAX_PLAYERS) + 8)
void fair_room_text(const struct room *r, char out[FAIR_ROOM_TEXT]);
/* Restore from the stored form (text may be NULL or ""): the secret, the commitment and the
 * entropies (to the seats in the lobby; in hash order once started); r->fair is set when the
 * game's seed (seed, no deck) is the derivation's. Bad text leaves a room without a secret. */
void fair_room_load(struct room *r, const char *text, int started, uint64_t seed, int deck_len);

#endif
