/* cluster/lease.h: which node owns a room, as a lease in Redis.
 *
 * A room is served by one node at a time. The node that takes it sets
 *   carcd:lease:ROOM = "NODE:FENCE"   only if absent (SET NX), expiring after ttl_ms (PX)
 * and, in the same Lua script, takes the room's next fencing number from
 *   carcd:fence:ROOM                  INCR, never expiring, never going back
 * While the room lives its owner renews the lease every renew_ms (PEXPIRE
 * through a script that renews only if the value is still its own), and on a
 * clean shutdown deletes it (the same check), so another node can take the
 * room at once rather than after the expiry.
 *
 * A lease counts as held only until its local deadline: the time its last
 * successful renewal (or the acquisition) was SENT, plus ttl_ms, minus a
 * margin for clock drift (LEASE_MARGIN_PCT of ttl). A node whose loop was
 * paused (SIGSTOP, a long GC-like stall, a VM migration) thus finds its
 * lease gone on waking before it asks anyone, and a renewal Redis refuses
 * (the key is another node's now) loses it at once. Either way the lost
 * hook runs once, and lease_fence returns 0 from then on.
 *
 * The fencing number is what makes a late writer harmless: every write of
 * the room's moves carries it, and PostgreSQL refuses a write whose number is
 * older than the row's (store/postgres.c). The floor given to lease_acquire
 * (the fence the database has for the room) keeps the counter above what the
 * database saw even if Redis lost its data.
 *
 * Owner: the struct lease_set belongs to its creator (main.c, a test); it
 * borrows the struct redis, which must outlive it. Loop thread only. */
#ifndef CARCD_CLUSTER_LEASE_H
#define CARCD_CLUSTER_LEASE_H

#include <stddef.h>
#include <stdint.h>

#include "cluster/redis.h"

struct uv_loop_s;
struct lease_set;

/* Status codes: 0, a Redis client status, or LEASE_E_HELD, LEASE_E_BUSY,
 * LEASE_E_REPLY, LEASE_E_ARGS: all in util/status.h's one table. */

#define LEASE_TTL_MS 5000   /* default lease-ttl */
#define LEASE_MARGIN_PCT 10 /* of ttl: the local deadline ends this much before Redis's */
#define LEASE_NODE_MAX 33   /* a node id: 1 to 32 of [A-Za-z0-9_-] */
#define LEASE_ROOM_MAX 64
#define LEASE_PREFIX "carcd:"

/* 1 when node is a valid node id (1 to 32 of A-Z a-z 0-9 - _). */
int lease_node_valid(const char *node);

struct lease_opts {
    const char *node; /* this node's id (--node-id) */
    int ttl_ms;       /* 0: LEASE_TTL_MS; at least 100 */
    int renew_ms;     /* 0: ttl_ms / 3 */
};

struct lease_hooks {
    /* A lease this node held is lost (not renewed in time, or taken by
     * another node): the room must stop writing and be given up. */
    void (*lost)(void *arg, const char *room, uint64_t fence);
    void *arg;
};

/* A node's leases on r. NULL with a sentence in err when the options are
 * bad (node id, times). Starts its renewal timer on loop. */
struct lease_set *lease_set_new(struct uv_loop_s *loop, struct redis *r,
                                const struct lease_opts *opts, const struct lease_hooks *hooks,
                                char *err, size_t errlen);

/* status 0: the room is ours with fence. LEASE_E_HELD: holder is the node
 * that has it. Otherwise a redis.h or lease status, fence 0, holder "". */
typedef void (*lease_cb)(void *arg, int status, uint64_t fence, const char *holder);

/* Take room's lease, with a fencing number above floor. Returns 0: cb runs
 * once, later, on the loop (unless lease_release is called for the room
 * first: then it never runs, and a lease the script had taken is deleted).
 * Returns LEASE_E_BUSY, LEASE_E_ARGS, REDIS_E_DOWN or REDIS_E_CLOSED: cb never
 * runs. */
int lease_acquire(struct lease_set *ls, const char *room, uint64_t floor, lease_cb cb, void *arg);

/* The fencing number of room while this node holds its lease and the local
 * deadline has not passed; 0 otherwise. */
uint64_t lease_fence(const struct lease_set *ls, const char *room);

/* Give room up: forgotten here at once; its key deleted in Redis if it is
 * still ours (a command sent, not waited for). Nothing if not held. */
void lease_release(struct lease_set *ls, const char *room);

/* Who holds room's lease now, as Redis says (one GET): cb runs once, later,
 * with status 0 and holder the node id ("" when nobody holds it), or a
 * redis.h status and "". Returns 0, or a redis.h status / LEASE_E_ARGS (cb
 * never runs). Independent of ls's life once sent (cb still runs, with
 * REDIS_E_CLOSED, if the client closes first). */
typedef void (*lease_holder_cb)(void *arg, int status, const char *holder);
int lease_holder(struct lease_set *ls, const char *room, lease_holder_cb cb, void *arg);

/* Leases held (for metrics and tests). */
int lease_count(const struct lease_set *ls);

/* Shutdown: every lease released in Redis, then (the replies back, or failed
 * within the client's command deadline) ls is freed and done(arg) runs on
 * the loop. No hook runs after this call. */
void lease_set_close(struct lease_set *ls, void (*done)(void *), void *arg);

#endif
