/* record.h: a game record (PROTOCOL.md "Game records") as a plain C value, and playing it.
 *
 * The JSON form lives in protocol/ (proto_record_load / proto_record_dump);
 * this is the decoded value, fixed size, owned by the caller. */
#ifndef CARC_RECORD_H
#define CARC_RECORD_H

#include <stdint.h>

#include "game.h"

#define CARC_NAME_MAX 64    /* bytes of a player name, NUL included */
#define CARC_BOT_NAME_MAX 8 /* bytes of a bot level name ("strong"), NUL included */

struct carc_record {
    unsigned sets;   /* bitmask of (1 << enum carc_set); the JSON default is base */
    int no_farmers;  /* options.farmers == false */
    int escape_rule; /* options.siege_escape */
    int farm_rule;   /* options.farms: enum carc_farm_rule */
    int small_city;  /* options.small_city == 2 */
    int seat_random; /* options.seat_order == "random": the players were shuffled at the start */
    int nplayers;
    char names[CARC_MAX_PLAYERS][CARC_NAME_MAX];
    char bots[CARC_MAX_PLAYERS][CARC_BOT_NAME_MAX]; /* a bot seat's level name, or "" */
    int forfeited[CARC_MAX_PLAYERS];                /* lost the seat to a clock (forfeit) */
    int start;                                      /* tile type of the start tile */
    int has_seed;
    uint64_t seed;
    /* The fair draw (fair.h, PROTOCOL.md "The fair draw"): has_fair 0 for records without a
     * commitment. Hex strings of 64 lowercase digits; an entropy "" when the player sent none. */
    int has_fair;
    char fair_commitment[65], fair_secret[65];
    int fair_n;
    char fair_entropy[CARC_MAX_PLAYERS][65];
    int has_deck;
    int deck_len;
    uint8_t deck[CARC_MAX_TILES];
    char closed[16]; /* "" or why the room closed before the game's end: "room-ttl", "stale-room",
                        "admin" */
    int nmoves;
    struct carc_move moves[CARC_MAX_MOVES]; /* player is filled when played */
};

/* Fill cfg from rec (cfg->deck points into rec). */
void carc_record_config(const struct carc_record *rec, struct carc_config *cfg);

/* Start rec's game in g. Returns 0 or a negative code (err filled). */
int carc_record_start(const struct carc_record *rec, struct carc_game *g, struct carc_error *err);

/* Play move i of rec on g (the current player is filled in). Returns 0 or a
 * negative code; the game over before move i is CARC_E_OVER. */
int carc_record_step(const struct carc_record *rec, int i, struct carc_game *g,
                     struct carc_error *err);

#endif
