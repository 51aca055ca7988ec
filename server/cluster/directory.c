/* cluster/directory.c: the room directory in Redis (directory.h). */
#include "cluster/directory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/mem.h"

#define SET_KEY LEASE_PREFIX "rooms"
#define ROOM_KEY LEASE_PREFIX "room:"

/* KEYS[1] the set, KEYS[2] the room's key; ARGV: room, created, value, ttl. */
static const char put_lua[] = "redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])\n"
                              "redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])\n"
                              "return 1\n";
/* ARGV: room, this node's prefix "NODE\t". */
static const char del_lua[] = "local v = redis.call('GET', KEYS[2])\n"
                              "if v and string.sub(v, 1, string.len(ARGV[2])) == ARGV[2] then\n"
                              "  redis.call('DEL', KEYS[2])\n"
                              "  redis.call('ZREM', KEYS[1], ARGV[1])\n"
                              "  return 1\n"
                              "end\n"
                              "if not v then redis.call('ZREM', KEYS[1], ARGV[1]) end\n"
                              "return 0\n";
/* ARGV: max, the room key prefix. {id, score, value, ...} of the newest max
 * ids whose key lives; ids whose key expired leave the set. */
static const char list_lua[] =
    "local ids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')\n"
    "local out = {}\n"
    "for i = 1, #ids, 2 do\n"
    "  local v = redis.call('GET', ARGV[2] .. ids[i])\n"
    "  if v then\n"
    "    out[#out + 1] = ids[i]; out[#out + 1] = ids[i + 1]; out[#out + 1] = v\n"
    "  else\n"
    "    redis.call('ZREM', KEYS[1], ids[i])\n"
    "  end\n"
    "end\n"
    "return out\n";

struct directory {
    struct redis *r;
    char node[LEASE_NODE_MAX];
    int ttl_ms;
    struct directory_room *rooms;
    int nrooms;
    int reading;  /* a refresh in flight */
    int inflight; /* commands whose reply has not come */
    int freed;    /* directory_free called: free once inflight is 0 */
};

static void cache_clear(struct directory *d)
{
    for (int i = 0; i < d->nrooms; i++)
        free(d->rooms[i].json);
    free(d->rooms);
    d->rooms = NULL;
    d->nrooms = 0;
}

static void settle(struct directory *d)
{
    d->inflight--;
    if (d->freed && d->inflight == 0) {
        cache_clear(d);
        free(d);
    }
}

struct directory *directory_new(struct redis *r, const char *node, int ttl_ms, char *err,
                                size_t errlen)
{
    if (!lease_node_valid(node)) {
        snprintf(err, errlen, "directory: bad node id");
        return NULL;
    }
    if (ttl_ms < 100) {
        snprintf(err, errlen, "directory: ttl below 100 ms");
        return NULL;
    }
    struct directory *d = mem_zalloc(1, sizeof *d);
    d->r = r;
    snprintf(d->node, sizeof d->node, "%s", node);
    d->ttl_ms = ttl_ms;
    return d;
}

static void on_written(void *arg, int status, const struct redis_reply *rep)
{
    struct directory *d = arg;
    if (status == 0 && rep->type == REDIS_T_ERROR)
        log_warn("cluster: the room directory refused a write: %s", rep->str);
    settle(d);
}

static int dir_send(struct directory *d, redis_cb cb, int argc, const char *const *argv)
{
    int rc = redis_command(d->r, cb, d, argc, argv, NULL);
    if (rc == 0)
        d->inflight++;
    return rc;
}

int directory_put(struct directory *d, const char *room, uint64_t created_ms, const char *json)
{
    char key[sizeof ROOM_KEY + LEASE_ROOM_MAX], created[24], ttl[16];
    snprintf(key, sizeof key, ROOM_KEY "%s", room);
    snprintf(created, sizeof created, "%llu", (unsigned long long)created_ms);
    snprintf(ttl, sizeof ttl, "%d", d->ttl_ms);
    size_t n = strlen(d->node), jl = strlen(json);
    char *value = mem_alloc(n + 1 + jl + 1);
    memcpy(value, d->node, n);
    value[n] = '\t';
    memcpy(value + n + 1, json, jl + 1);
    const char *argv[] = {"EVAL", put_lua, "2", SET_KEY, key, room, created, value, ttl};
    int rc = dir_send(d, on_written, 9, argv);
    free(value);
    return rc;
}

int directory_del(struct directory *d, const char *room)
{
    char key[sizeof ROOM_KEY + LEASE_ROOM_MAX], prefix[LEASE_NODE_MAX + 2];
    snprintf(key, sizeof key, ROOM_KEY "%s", room);
    snprintf(prefix, sizeof prefix, "%s\t", d->node);
    const char *argv[] = {"EVAL", del_lua, "2", SET_KEY, key, room, prefix};
    return dir_send(d, on_written, 7, argv);
}

/* The cache from a list_lua answer: other nodes' rooms, in its order. */
static void cache_fill(struct directory *d, const struct redis_reply *rep)
{
    cache_clear(d);
    size_t n = rep->elements / 3;
    if (n == 0)
        return;
    d->rooms = mem_zalloc(n, sizeof *d->rooms);
    for (size_t i = 0; i < n; i++) {
        const struct redis_reply *id = rep->element[3 * i], *score = rep->element[3 * i + 1],
                                 *v = rep->element[3 * i + 2];
        if (id->type != REDIS_T_STRING || score->type != REDIS_T_STRING ||
            v->type != REDIS_T_STRING)
            continue;
        const char *tab = memchr(v->str, '\t', v->len);
        if (tab == NULL || (size_t)(tab - v->str) >= LEASE_NODE_MAX || id->len >= LEASE_ROOM_MAX)
            continue;
        size_t nl = (size_t)(tab - v->str);
        if (nl == strlen(d->node) && memcmp(v->str, d->node, nl) == 0)
            continue; /* this node's own rooms: the lobby has them exactly */
        struct directory_room *e = &d->rooms[d->nrooms++];
        memcpy(e->room, id->str, id->len);
        memcpy(e->node, v->str, nl);
        e->created = strtoull(score->str, NULL, 10);
        e->json = mem_strndup(tab + 1, v->len - nl - 1);
    }
}

static void on_list(void *arg, int status, const struct redis_reply *rep)
{
    struct directory *d = arg;
    d->reading = 0;
    if (!d->freed) {
        if (status == 0 && rep->type == REDIS_T_ARRAY) {
            cache_fill(d, rep);
        } else {
            if (status == 0 && rep->type == REDIS_T_ERROR)
                log_warn("cluster: the room directory could not be read: %s", rep->str);
            cache_clear(d);
        }
    }
    settle(d);
}

int directory_refresh(struct directory *d, int max)
{
    if (d->reading)
        return 0;
    char n[16];
    snprintf(n, sizeof n, "%d", max > 0 ? max : 1);
    const char *argv[] = {"EVAL", list_lua, "1", SET_KEY, n, ROOM_KEY};
    int rc = dir_send(d, on_list, 6, argv);
    if (rc == 0)
        d->reading = 1;
    else
        cache_clear(d);
    return rc;
}

int directory_rooms(const struct directory *d, const struct directory_room **out)
{
    *out = d->rooms;
    return d->nrooms;
}

void directory_free(struct directory *d)
{
    if (d == NULL)
        return;
    d->freed = 1;
    cache_clear(d);
    if (d->inflight == 0)
        free(d);
}
