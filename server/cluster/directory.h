/* cluster/directory.h: the cluster's live room directory in Redis, for a
 * lobby that lists the public rooms of every node.
 *
 * Each node publishes its own public rooms that have not ended:
 *   carcd:room:ROOM  = "NODE\tJSON"   JSON: the room's `rooms` entry (PROTOCOL.md),
 *                                     expiring after ttl_ms unless put again
 *   carcd:rooms      sorted set of room ids, score: the room's creation time (ms)
 * (one Lua script per put, so the two never disagree for long), and takes
 * its room off again (only if the key is still its own: a room that moved to
 * another node is that node's to publish). A node that dies stops putting:
 * its entries expire, and the next read drops their ids from the set.
 *
 * Reading is one script too: the newest `max` ids of the set whose keys
 * still exist, with their text; the answer is cached here (directory_rooms)
 * so that `list` and GET /api/rooms cost Redis one read per node per
 * refresh, not one per request. The scripts touch keys they are not given in
 * KEYS: fine for one Redis (or a primary with replicas), not for Redis
 * Cluster, which would need the directory in one hash slot.
 *
 * Owner: the struct directory belongs to its creator (main.c, a test) and
 * borrows the struct redis, which must outlive it. Loop thread only. */
#ifndef CARCD_CLUSTER_DIRECTORY_H
#define CARCD_CLUSTER_DIRECTORY_H

#include <stddef.h>
#include <stdint.h>

#include "cluster/lease.h"
#include "cluster/redis.h"

struct directory;

/* One room of another node, as last read (strings owned by the directory). */
struct directory_room {
    char room[LEASE_ROOM_MAX];
    char node[LEASE_NODE_MAX];
    uint64_t created; /* ms since 1970 */
    char *json;       /* the `rooms` entry, as its owner encoded it */
};

/* A directory for node (its id, as lease.h checks it) whose entries live
 * ttl_ms after their last put. NULL with err when node or ttl is bad. */
struct directory *directory_new(struct redis *r, const char *node, int ttl_ms, char *err,
                                size_t errlen);

/* Publish (or refresh) room with its entry text. 0, or a redis.h status
 * (nothing sent). Not waited for: a failure shows in the next refresh. */
int directory_put(struct directory *d, const char *room, uint64_t created_ms, const char *json);
/* Take room off (if its key is still this node's). 0 or a redis.h status. */
int directory_del(struct directory *d, const char *room);

/* Read the newest max rooms of every node into the cache (asynchronously;
 * one read at a time: while one is in flight this does nothing). 0, or a
 * redis.h status. */
int directory_refresh(struct directory *d, int max);
/* The cache: rooms of OTHER nodes from the last refresh, newest first (valid
 * until the next refresh answers; a refresh that fails empties it, so that a
 * node cut off from Redis does not list rooms that may be gone). Its count. */
int directory_rooms(const struct directory *d, const struct directory_room **out);

/* Forget everything; replies still in flight are dropped when they come
 * (the struct stays allocated until then). d may be NULL. */
void directory_free(struct directory *d);

#endif
