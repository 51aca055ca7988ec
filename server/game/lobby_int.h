/* lobby_int.h: what the lobby's files share (lobby.c: rooms by id,
 * connections per address, the idle list, life cycle, time; lobby_cmd.c: the
 * command table). Private to them. */
#ifndef CARCD_LOBBY_INT_H
#define CARCD_LOBBY_INT_H

#include "game/lobby.h"

/* One address key (lobby__peer_key: an IPv4 address, or an IPv6 network of
 * ipv6-prefix bits): kept while it has connections or counted rooms. Owned
 * by the lobby's address table (lobby.ips). */
struct lobby_ip {
    struct lobby_ip *next;
    int count;            /* websocket connections */
    int rooms;            /* rooms it created still in the lobby, or playing with nobody
                             connected (lobby__room_recount) */
    struct bucket create; /* rooms it may create (per minute) */
    char addr[64];
};

/* What the per-address limits count s under: session_peer_key of its peer
 * with the lobby's ipv6-prefix ("" for a session without a peer). */
void lobby__peer_key(const struct lobby *lb, const struct session *s, char *key, size_t size);

/* The entry of addr (a key), made when missing (its create bucket full). Never NULL
 * (out of memory aborts). */
struct lobby_ip **lobby__ip_get(struct lobby *lb, const char *addr);

/* Put r, new, in the table by id, as the newest room. */
void lobby__room_insert(struct lobby *lb, struct room *r);

/* r goes: its creator's address holds one room less, if it was counted. */
void lobby__room_uncount(struct lobby *lb, struct room *r);
/* Count r against the address that created it (lobby-rooms-per-ip) while it
 * is in the lobby or its game goes on with nobody connected (paused or
 * not), else not. Call after r's phase or members changed; lobby_tick calls
 * it for every room each second (the changes that bypass the lobby). */
void lobby__room_recount(struct lobby *lb, struct room *r);
/* The host (seat host) of the finished room old offered a rematch in room
 * id: each other seat of an account with no connection to old is told
 * (the notice hook, ROOM_NOTICE_REMATCH). */
void lobby__rematch_notices(struct lobby *lb, const struct room *old, int host, const char *id);
/* r's members changed: room_presence (a pause ends at once when someone
 * comes back), then lobby__room_recount. */
void lobby__presence(struct lobby *lb, struct room *r);

/* The idle list (lobby.idle_head), least recently active first: unlink s
 * (nothing when it is not listed), append s at the end. */
void lobby__idle_unlink(struct lobby *lb, struct session *s);
void lobby__idle_append(struct lobby *lb, struct session *s);

#endif
