/* roomdb.h: the rooms' side of storage (store/store.h). The store writes
 * and reads plain data and never calls the rooms or the lobby; this file
 * translates: a room into rows (the fill hook, and the rows of a room that
 * goes), the key of a done batch back to its room (the room itself: the done
 * hook -> room_store_done, room_hold.c, which owns write before tell), and
 * rows read back at start into rooms of the lobby. It owns nothing: the
 * rooms stay the lobby's. */
#ifndef CARCD_ROOMDB_H
#define CARCD_ROOMDB_H

#include <stddef.h>
#include <stdint.h>

struct lobby;
struct room;
struct store;
struct store_room;

/* Give st the hooks that reach lb's rooms (lobby_store_set calls it). */
void roomdb_attach(struct lobby *lb, struct store *st);

/* r is being freed: it leaves the batch being filled. gone: also write that
 * it is over (1: lobby room abandoned, rows deleted; 2: closed after
 * room-ttl; a game that had started is kept as a record, "abandoned"). */
void roomdb_forget(struct lobby *lb, struct room *r, int gone);
/* r is being freed because closed (`closed`: "admin"): a lobby room's rows
 * are deleted, a room whose game started is marked closed and a running game
 * is kept as a record with status "abandoned" and that "closed". */
void roomdb_close(struct lobby *lb, struct room *r, const char *closed);
/* Start-up: store_restore into lb (lb->store): every unfinished room comes
 * back, rebuilt from its seed and moves. The number of rooms restored, or -1
 * with err. */
/* Stored row e rebuilt as a room with lb's history limits (room_new_restored;
 * not added to lb); NULL with err when its seats or moves do not load or
 * replay. */
struct room *roomdb_room_load(struct lobby *lb, const struct store_room *e, char *err,
                              size_t errlen);
int roomdb_restore(struct lobby *lb, int stale_s, uint64_t now_ms, char *err, size_t errlen);

#endif
