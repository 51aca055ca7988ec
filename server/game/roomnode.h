/* roomnode.h: the rooms' side of the cluster (cluster/: leases, the room
 * directory), as roomdb.h is the rooms' side of storage. cluster/ knows
 * nothing of rooms; this file turns rooms into leases and directory entries
 * and turns answers from Redis and PostgreSQL back into rooms of the lobby.
 *
 * In a cluster (node-id, redis-url, storage = postgres) every room of this
 * node holds its lease (cluster/lease.h); a room exists here only once its
 * lease answered:
 *   create        the new room's lease is taken first, then the room is made
 *   join, watch,  for a room that is not here: who holds its lease? another
 *   resume        node: `redirect` to it. Nobody: if PostgreSQL has the room
 *                 open, take the lease, read the room again (now that no one
 *                 else writes it), rebuild it, and write it at once with the
 *                 new fence, before the request is answered (a takeover)
 * A room whose lease is lost, or whose write the database refused (fenced),
 * is given up: its connections are closed with 4003, nothing more of it is
 * written, and it leaves this node. Every second the node publishes its
 * public rooms in the directory and reads the other nodes' for `list`.
 *
 * Owner: main.c creates the struct roomnode and frees it after the handover;
 * it borrows the lobby, the lease set and the directory. Waiting requests
 * (struct roomnode_wait) are the roomnode's; a session points at its own
 * (session.wait) so that closing it drops the request. Loop thread only. */
#ifndef CARCD_ROOMNODE_H
#define CARCD_ROOMNODE_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

struct lobby;
struct room;
struct session;
struct lease_set;
struct directory;
struct roomnode;

#define ROOMNODE_RETRY_MS 1000 /* a redirect's retry_ms */
#define ROOMNODE_DIR_TTLS 3    /* directory entries live this many lease ttls after a put */

/* A roomnode for lb (lb->node is set to it). node: this node's id; ttl_ms:
 * the lease ttl (directory entries are put again that often). */
struct roomnode *roomnode_new(struct lobby *lb, struct lease_set *ls, struct directory *dir,
                              const char *node, int ttl_ms);
/* After the loop has run out (no callback of Redis or the store can come):
 * requests still waiting are dropped; lb->node is cleared. n may be NULL. */
void roomnode_free(struct roomnode *n);

/* The node is handing its rooms over (its leases are about to be released,
 * its Redis client closed): from now on its rooms write nothing
 * (roomnode_fence is 0), nothing is published or looked up, and new
 * requests that need the cluster get storage_error. Before lease_set_close. */
void roomnode_close(struct roomnode *n);

/* The lease set's `lost` hook (arg: the roomnode). */
void roomnode_lease_lost(void *arg, const char *room, uint64_t fence);

/* ---- for the lobby ---- */

/* What the lobby's command table gives a request that waits for the
 * cluster, called on the loop once it may go on: s, its request m (a copy,
 * valid for the call) and the room it named or will create. The node calls
 * the lobby only through these: the lobby's commands call the node, not the
 * other way round. */
typedef void (*roomnode_then_fn)(struct lobby *lb, struct session *s, const struct proto_msg *m,
                                 const char *room);

/* A join, watch or resume named a room this node does not have: look for it
 * (answered later: then(...) runs the request again here once the room is,
 * or the session gets `redirect` or an error). 0, or a CARC_E_* code with
 * err. */
int roomnode_locate(struct roomnode *n, struct session *s, const struct proto_msg *m,
                    roomnode_then_fn then, struct carc_error *err);
/* A create that passed its checks, for new room id: take its lease, then
 * then(..., id) creates it. 0, or a CARC_E_* code with err. */
int roomnode_create(struct roomnode *n, struct session *s, const struct proto_msg *m,
                    const char *id, roomnode_then_fn then, struct carc_error *err);
/* s is closing: its waiting request is dropped. */
void roomnode_session_close(struct session *s);
/* r is being deleted by the lobby: its lease and its directory entry go. */
void roomnode_room_gone(struct roomnode *n, const struct room *r);
/* The fencing number r's writes carry; 0: r's lease is lost (write nothing). */
uint64_t roomnode_fence(const struct roomnode *n, const struct room *r);
/* r must be given up (why: for the log); r is freed. */
void roomnode_give_up(struct roomnode *n, struct room *r, const char *why);
/* Once a second: publish this node's public rooms, read the others'. */
void roomnode_tick(struct roomnode *n, uint64_t now);
/* The other nodes' public rooms as last read from the directory, newest
 * first (for lobby_rooms_encode); 0 when n is NULL or closed. */
struct directory_room;
int roomnode_rooms(const struct roomnode *n, const struct directory_room **out);

#endif
