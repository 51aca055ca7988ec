#include "game/fair_room.h"

#include <stdio.h>
#include <string.h>

#include "game/room.h"
#include "record.h"
#include "util/rand.h"

void fair_room_init(struct room *r)
{
    uint8_t secret[CARC_FAIR_BYTES];
    rand_bytes(secret, sizeof secret);
    carc_fair_hex(secret, sizeof secret, r->fair_secret);
    memset(secret, 0, sizeof secret);
    carc_fair_commitment(r->fair_secret, r->fair_commit);
}

int fair_room_entropy(struct room *r, int i, const char *data)
{
    struct room_seat *seat = &r->seats[i];
    int was = seat->entropy[0] != '\0';
    snprintf(seat->entropy, sizeof seat->entropy, "%.64s", data);
    return !was;
}

uint64_t fair_room_seed(struct room *r)
{
    r->fair = 0;
    memset(r->fair_entropy, 0, sizeof r->fair_entropy);
    if (!carc_fair_hex_ok(r->fair_secret))
        return rand_u64() >> 11; /* 53 bits: records may be read as doubles */
    int n = 0;
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].taken)
            memcpy(r->fair_entropy[n++], r->seats[i].entropy, CARC_FAIR_HEX);
    r->fair = 1;
    return carc_fair_seed(r->fair_secret, r->fair_entropy, n, NULL);
}

void fair_room_record(const struct room *r, struct carc_record *rec)
{
    if (!r->fair)
        return;
    rec->has_fair = 1;
    memcpy(rec->fair_secret, r->fair_secret, CARC_FAIR_HEX);
    memcpy(rec->fair_commitment, r->fair_commit, CARC_FAIR_HEX);
    rec->fair_n = r->nseats;
    for (int i = 0; i < r->nseats; i++)
        memcpy(rec->fair_entropy[i], r->fair_entropy[i], CARC_FAIR_HEX);
}

void fair_room_text(const struct room *r, char out[FAIR_ROOM_TEXT])
{
    out[0] = '\0';
    if (!carc_fair_hex_ok(r->fair_secret))
        return;
    size_t n = (size_t)snprintf(out, FAIR_ROOM_TEXT, "%s", r->fair_secret);
    int started = r->phase != PROTO_PHASE_LOBBY;
    for (int i = 0; i < r->nseats && n < FAIR_ROOM_TEXT; i++)
        n += (size_t)snprintf(out + n, FAIR_ROOM_TEXT - n, ",%s",
                              started ? r->fair_entropy[i] : r->seats[i].entropy);
}

void fair_room_load(struct room *r, const char *text, int started, uint64_t seed, int deck_len)
{
    r->fair = 0;
    r->fair_secret[0] = r->fair_commit[0] = '\0';
    memset(r->fair_entropy, 0, sizeof r->fair_entropy);
    for (int i = 0; i < CARC_MAX_PLAYERS; i++)
        r->seats[i].entropy[0] = '\0';
    if (text == NULL || strlen(text) < CARC_FAIR_HEX - 1)
        return;
    char secret[CARC_FAIR_HEX];
    memcpy(secret, text, CARC_FAIR_HEX - 1);
    secret[CARC_FAIR_HEX - 1] = '\0';
    if (!carc_fair_hex_ok(secret))
        return;
    const char *p = text + CARC_FAIR_HEX - 1;
    char ent[CARC_MAX_PLAYERS][CARC_FAIR_HEX];
    memset(ent, 0, sizeof ent);
    int n = 0;
    while (*p == ',' && n < CARC_MAX_PLAYERS) {
        p++;
        size_t len = strcspn(p, ",");
        if (len == CARC_FAIR_HEX - 1) {
            memcpy(ent[n], p, len);
            if (!carc_fair_hex_ok(ent[n]))
                ent[n][0] = '\0';
        }
        p += len;
        n++;
    }
    memcpy(r->fair_secret, secret, CARC_FAIR_HEX);
    carc_fair_commitment(r->fair_secret, r->fair_commit);
    for (int i = 0; i < n && i < r->nseats; i++) {
        if (started)
            memcpy(r->fair_entropy[i], ent[i], CARC_FAIR_HEX);
        else
            memcpy(r->seats[i].entropy, ent[i], CARC_FAIR_HEX);
    }
    if (started)
        r->fair = deck_len == 0 && n == r->nseats &&
                  carc_fair_seed(r->fair_secret, r->fair_entropy, n, NULL) == seed;
}
