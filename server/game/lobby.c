/* lobby.c: rooms by id, connections per address, the idle list, the life
 * cycle and time (lobby.h); the command table is lobby_cmd.c. */
#include "game/lobby.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/directory.h"
#include "game/lobby_int.h"
#include "game/roomdb.h"
#include "game/roomnode.h"
#include "game/turn.h"
#include "metrics/metrics.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/tz.h"
#include "util/log.h"
#include "util/mem.h"

#define IP_BUCKETS 1024u

/* ---- rooms by id ---- */

static unsigned hash_id(const char *id)
{
    unsigned h = 2166136261u;
    for (; *id != '\0'; id++)
        h = (h ^ (unsigned char)*id) * 16777619u;
    return h;
}

struct room *lobby_room_find(const struct lobby *lb, const char *id)
{
    for (struct room *r = lb->buckets[hash_id(id) & (lb->nbuckets - 1)]; r != NULL; r = r->hnext)
        if (strcmp(r->id, id) == 0)
            return r;
    return NULL;
}

static void rooms_grow(struct lobby *lb)
{
    unsigned n = lb->nbuckets * 2;
    struct room **b = mem_zalloc(n, sizeof *b);
    for (unsigned i = 0; i < lb->nbuckets; i++) {
        struct room *r = lb->buckets[i];
        while (r != NULL) {
            struct room *next = r->hnext;
            unsigned k = hash_id(r->id) & (n - 1);
            r->hnext = b[k];
            b[k] = r;
            r = next;
        }
    }
    free(lb->buckets);
    lb->buckets = b;
    lb->nbuckets = n;
}

void lobby__room_insert(struct lobby *lb, struct room *r)
{
    if ((unsigned)lb->nrooms >= lb->nbuckets)
        rooms_grow(lb);
    unsigned k = hash_id(r->id) & (lb->nbuckets - 1);
    r->hnext = lb->buckets[k];
    lb->buckets[k] = r;
    r->older = lb->newest;
    r->newer = NULL;
    if (lb->newest != NULL)
        lb->newest->newer = r;
    else
        lb->oldest = r;
    lb->newest = r;
    lb->nrooms++;
}

/* Unlink r, tell its members they left, free it. */
static void room_delete(struct lobby *lb, struct room *r)
{
    if (lb->node != NULL)
        roomnode_room_gone(lb->node, r);
    struct room **p = &lb->buckets[hash_id(r->id) & (lb->nbuckets - 1)];
    while (*p != r)
        p = &(*p)->hnext;
    *p = r->hnext;
    if (r->newer != NULL)
        r->newer->older = r->older;
    else
        lb->newest = r->older;
    if (r->older != NULL)
        r->older->newer = r->newer;
    else
        lb->oldest = r->newer;
    lb->nrooms--;
    lobby__room_uncount(lb, r);
    log_event(LOG_DEBUG, &(struct log_fields){.room = r->id}, "room deleted");
    room_evict(r, 1);
    room_free(r);
}

static struct lobby_ip **ip_slot(struct lobby *lb, const char *addr);
static void ip_unused(struct lobby *lb, struct lobby_ip **p);

/* Count r against its creator's address (want 1) or not (0). */
static void room_count_set(struct lobby *lb, struct room *r, int want)
{
    if (r->creator[0] == '\0' || r->ip_counted == want)
        return;
    r->ip_counted = want;
    if (want) {
        (*lobby__ip_get(lb, r->creator))->rooms++;
        return;
    }
    struct lobby_ip **p = ip_slot(lb, r->creator);
    if (*p != NULL) {
        (*p)->rooms--;
        ip_unused(lb, p);
    }
}

void lobby__room_uncount(struct lobby *lb, struct room *r)
{
    room_count_set(lb, r, 0);
}

void lobby__room_recount(struct lobby *lb, struct room *r)
{
    /* A game nobody is connected to costs the server its bots' searches
     * until it pauses, and a place among the rooms until room-ttl: it counts
     * like a lobby room, so that one address cannot leave games to bots
     * without bound. */
    room_count_set(lb, r,
                   r->phase == PROTO_PHASE_LOBBY ||
                       (r->phase == PROTO_PHASE_PLAYING && room_members(r) == 0));
}

void lobby__presence(struct lobby *lb, struct room *r)
{
    room_presence(r, lb->now);
    lobby__room_recount(lb, r);
}

static void room_reap_if_dead(struct lobby *lb, struct room *r)
{
    if (r != NULL && room_is_dead(r)) {
        if (r->store != NULL)
            roomdb_forget(lb, r, 1);
        room_delete(lb, r);
    }
}

void lobby_room_delete(struct lobby *lb, struct room *r)
{
    room_delete(lb, r);
}

void lobby_room_reap(struct lobby *lb, struct room *r)
{
    room_reap_if_dead(lb, r);
}

void lobby_room_close(struct lobby *lb, struct room *r, const char *closed, const char *text)
{
    struct sbuf *b = sbuf_take(proto_encode_notice(text, r->id)); /* text: the server's own */
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].s != NULL)
            session_send(r->seats[i].s, b);
    for (struct session *s = r->spectators; s != NULL; s = s->rnext)
        session_send(s, b);
    sbuf_unref(b);
    if (r->store != NULL)
        roomdb_close(lb, r, closed);
    room_delete(lb, r); /* every member gets `left` */
}

int lobby_notice(struct lobby *lb, const char *text)
{
    char *t = proto_encode_notice(text, NULL);
    if (t == NULL)
        return -1;
    struct sbuf *b = sbuf_take(t);
    int n = 0;
    for (struct session *s = lb->idle_head; s != NULL; s = s->inext)
        if (!s->closing) {
            session_send(s, b);
            n++;
        }
    sbuf_unref(b);
    return n;
}

void lobby_store_set(struct lobby *lb, struct store *st)
{
    lb->store = st;
    roomdb_attach(lb, st);
}

static void room_notice(void *arg, const struct room *r, int seat, int kind);

/* A room's game ended: its absent players are told, and a rated one goes to
 * the rated_game hook. */
static void room_over(void *arg, const struct room *r)
{
    struct lobby *lb = arg;
    for (int i = 0; r->game != NULL && i < r->nseats && i < r->game->nplayers; i++)
        room_notice(lb, r, i, ROOM_NOTICE_OVER);
    if (!r->rated || lb->rated_game == NULL || r->game == NULL)
        return;
    struct lobby_rated_game g;
    memset(&g, 0, sizeof g);
    snprintf(g.room, sizeof g.room, "%s", r->id);
    g.time_ms = (long long)clock_wall_ms();
    g.n = r->nseats < r->game->nplayers ? r->nseats : r->game->nplayers;
    for (int i = 0; i < g.n; i++) {
        g.p[i].account = r->seats[i].bot ? 0 : r->seats[i].account;
        g.p[i].bot = r->seats[i].bot;
        g.p[i].score = r->game->players[i].score;
        g.p[i].forfeited = r->seats[i].forfeited;
    }
    lb->rated_game(lb->rated_game_arg, &g);
}

/* A room's news for seat: a person's seat of an account, with nobody
 * connected on it (and, but for the game's end or a rematch, no bot
 * standing in), goes to the notice hook. A rematch's notice names the new
 * room (to) and the seat that offers it (from). */
static void notice_send(struct lobby *lb, const struct room *r, int seat, int kind, const char *to,
                        int from)
{
    const struct room_seat *s = &r->seats[seat];
    int ended = kind == ROOM_NOTICE_OVER || kind == ROOM_NOTICE_REMATCH;
    if (lb->notice == NULL || s->bot || s->account <= 0 || s->s != NULL ||
        (!ended && (s->autoplay != PROTO_AUTO_NONE || s->forfeited)))
        return;
    struct lobby_notice t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    snprintf(t.room, sizeof t.room, "%s", to != NULL ? to : r->id);
    t.from = from;
    t.account = s->account;
    t.seat = seat;
    long long deadline = turn_deadline(r); /* the mover's; nobody else's clock runs */
    t.deadline = deadline > 0 && r->game != NULL && r->game->current == seat ? deadline : 0;
    t.moves = r->nmoves;
    t.n = r->nseats < CARC_MAX_PLAYERS ? r->nseats : CARC_MAX_PLAYERS;
    t.rank = 1;
    for (int i = 0; i < t.n; i++) {
        snprintf(t.names[i], sizeof t.names[i], "%s", r->seats[i].name);
        t.scores[i] = r->game != NULL ? r->game->players[i].score : 0;
    }
    for (int i = 0; i < t.n; i++)
        t.rank += t.scores[i] > t.scores[seat];
    lb->notice(lb->notice_arg, &t);
}

static void room_notice(void *arg, const struct room *r, int seat, int kind)
{
    notice_send(arg, r, seat, kind, NULL, -1);
}

void lobby__rematch_notices(struct lobby *lb, const struct room *old, int host, const char *id)
{
    for (int i = 0; i < old->nseats; i++)
        if (i != host && old->seats[i].taken)
            notice_send(lb, old, i, ROOM_NOTICE_REMATCH, id, host);
}

/* The room's vacation hook: to the lobby's, or no vacation at once. */
static void room_vacation_ask(void *arg, const struct room *r, int seat)
{
    struct lobby *lb = arg;
    struct room *mine = lobby_room_find(lb, r->id);
    if (mine == NULL)
        return;
    if (lb->vacation == NULL) {
        room_vacation(mine, seat, mine->nmoves, 0, 0);
        return;
    }
    lb->vacation(lb->vacation_arg, r->seats[seat].account, r->id, seat, r->nmoves,
                 turn_deadline(r));
}

void lobby_vacation_answer(struct lobby *lb, const char *room, int seat, int moves, long long from,
                           long long until)
{
    struct room *r = lobby_room_find(lb, room);
    if (r != NULL)
        room_vacation(r, seat, moves, from, until);
}

void lobby_vacation_set(struct lobby *lb, long long account, long long from, long long until)
{
    if (account <= 0)
        return;
    for (struct room *r = lb->oldest; r != NULL; r = r->newer)
        for (int i = 0; i < r->nseats; i++)
            if (r->seats[i].account == account && !r->seats[i].bot)
                room_vacation(r, i, -1, from, until);
}

void lobby_room_add(struct lobby *lb, struct room *r)
{
    r->over = room_over;
    r->over_arg = lb;
    r->notice = room_notice;
    r->notice_arg = lb;
    r->vacation = room_vacation_ask;
    r->vacation_arg = lb;
    r->store = lb->store;
    r->holds = &lb->holds;
    r->bots = lb->bots;
    r->bot_pace_ms = lb->lim.bot_pace;
    r->alone_grace_ms = (uint64_t)lb->lim.bots_alone_grace * 1000;
    r->tz = tz_db_find(lb->tz, r->clock.time_zone[0] != '\0' ? r->clock.time_zone : "UTC");
    if (r->tz == NULL && r->clock.weekend_pause)
        log_event(LOG_WARN, &(struct log_fields){.room = r->id},
                  "time zone %s unknown to this server: its week ends are UTC's",
                  r->clock.time_zone);
    lobby__room_insert(lb, r);
}

void lobby_zones_set(struct lobby *lb, const struct tz_db *tz)
{
    lb->tz = tz;
}

void lobby_bots_set(struct lobby *lb, struct bots *b)
{
    lb->bots = b;
}

/* ---- connections per address ---- */

void lobby__peer_key(const struct lobby *lb, const struct session *s, char *key, size_t size)
{
    session_peer_key(s->peer, lb->lim.ipv6_prefix, key, size);
}

static struct lobby_ip **ip_slot(struct lobby *lb, const char *addr)
{
    struct lobby_ip **p = &lb->ips[hash_id(addr) & (IP_BUCKETS - 1)];
    while (*p != NULL && strcmp((*p)->addr, addr) != 0)
        p = &(*p)->next;
    return p;
}

struct lobby_ip **lobby__ip_get(struct lobby *lb, const char *addr)
{
    struct lobby_ip **p = ip_slot(lb, addr);
    if (*p == NULL) {
        struct lobby_ip *e = mem_zalloc(1, sizeof *e);
        snprintf(e->addr, sizeof e->addr, "%s", addr);
        bucket_fill(&e->create, lb->lim.create_rate_ip, 60000, lb->now);
        *p = e;
        lb->nips++;
    }
    return p;
}

/* Free *p once it has neither connections nor lobby rooms, and its create
 * bucket is full again (a minute after its last create: its burst is a
 * minute's rate), so that reconnecting does not refill it. */
static void ip_unused(struct lobby *lb, struct lobby_ip **p)
{
    struct lobby_ip *e = *p;
    if (e->count <= 0 && e->rooms <= 0 &&
        (e->create.level >= (int64_t)lb->lim.create_rate_ip * 60000 || lb->now < e->create.last ||
         lb->now - e->create.last >= 60000)) {
        *p = e->next;
        free(e);
        lb->nips--;
    }
}

static int ip_acquire(struct lobby *lb, const char *addr)
{
    struct lobby_ip **p = lobby__ip_get(lb, addr);
    if ((*p)->count >= lb->lim.conns_per_ip) {
        ip_unused(lb, p);
        return -1;
    }
    (*p)->count++;
    return 0;
}

static void ip_release(struct lobby *lb, const char *addr)
{
    struct lobby_ip **p = ip_slot(lb, addr);
    if (*p == NULL)
        return;
    (*p)->count--;
    ip_unused(lb, p);
}

/* ---- the idle list ---- */

void lobby__idle_unlink(struct lobby *lb, struct session *s)
{
    if (!s->listed)
        return;
    if (s->iprev != NULL)
        s->iprev->inext = s->inext;
    else
        lb->idle_head = s->inext;
    if (s->inext != NULL)
        s->inext->iprev = s->iprev;
    else
        lb->idle_tail = s->iprev;
    s->inext = s->iprev = NULL;
    s->listed = 0;
}

void lobby__idle_append(struct lobby *lb, struct session *s)
{
    s->inext = NULL;
    s->iprev = lb->idle_tail;
    if (lb->idle_tail != NULL)
        lb->idle_tail->inext = s;
    else
        lb->idle_head = s;
    lb->idle_tail = s;
    s->listed = 1;
}

/* ---- life cycle ---- */

struct lobby *lobby_new(const struct lobby_limits *lim)
{
    struct lobby *lb = mem_zalloc(1, sizeof *lb);
    lb->lim = *lim;
    lb->holds.max = lim->held_bytes > 0 ? (size_t)lim->held_bytes : 0;
    lb->server_name = "carcd/0.2";
    lb->nbuckets = 64;
    lb->buckets = mem_zalloc(lb->nbuckets, sizeof *lb->buckets);
    lb->ips = mem_zalloc(IP_BUCKETS, sizeof *lb->ips);
    return lb;
}

void lobby_free(struct lobby *lb)
{
    if (lb == NULL)
        return;
    while (lb->newest != NULL) {
        struct room *r = lb->newest;
        if (r->store != NULL)
            roomdb_forget(lb, r, 0);
        room_evict(r, 0);
        room_delete(lb, r);
    }
    for (unsigned i = 0; i < IP_BUCKETS; i++)
        while (lb->ips[i] != NULL) {
            struct lobby_ip *e = lb->ips[i];
            lb->ips[i] = e->next;
            free(e);
        }
    free(lb->ips);
    free(lb->buckets);
    free(lb);
}

int lobby_test_game(struct lobby *lb, uint64_t seed, const char *const *deck, int n)
{
    if (n < 0 || n > CARC_MAX_DECK)
        return CARC_E_DECK;
    for (int i = 0; i < n; i++) {
        int t = carc_tile_find(deck[i]);
        if (t < 0)
            return CARC_E_DECK;
        lb->deck[i] = (uint8_t)t;
    }
    lb->deck_len = n;
    lb->fixed_seed = 1;
    lb->seed = seed;
    return 0;
}

/* What sessions report goes to the metrics. */
static const struct session_tally tally = {metrics_sent_count, metrics_close_count};

int lobby_session_open(struct lobby *lb, struct session *s, const char *peer, uint64_t now)
{
    s->tally = &tally;
    lb->now = now;
    s->id = ++lb->next_id;
    snprintf(s->peer, sizeof s->peer, "%s", peer != NULL ? peer : "");
    s->open = 1;
    s->last_ms = now;
    lb->nsessions++;
    lobby__idle_append(lb, s);
    if (lb->shutting_down) {
        session_close(s, SESSION_CLOSE_GOING_AWAY, "server restarting, retry", 0);
        return -1;
    }
    if (s->peer[0] != '\0') {
        char key[64];
        lobby__peer_key(lb, s, key, sizeof key);
        if (ip_acquire(lb, key) != 0) {
            struct log_fields f = {
                .addr = s->peer, .session = s->id, .close = SESSION_CLOSE_POLICY};
            /* The network is not in the text: lines that differ only in it
             * would not be repeats of one another (log.h). */
            if (strchr(key, '/') == NULL) /* an address, not an IPv6 network */
                log_event(LOG_INFO, &f,
                          "connection refused: too many connections from its address");
            else
                log_event(LOG_INFO, &f,
                          "connection refused: too many connections from its network "
                          "(ipv6-prefix)");
            session_close(s, SESSION_CLOSE_POLICY, "too many connections from your address", 0);
            return -1;
        }
        s->counted = 1;
    }
    log_event(LOG_DEBUG, &(struct log_fields){.addr = s->peer, .session = s->id},
              "connection open");
    session_send_text(s, proto_encode_welcome(lb->server_name, lb->lim.message_bytes, lb->lim.rate,
                                              clock_wall_ms()));
    return 0;
}

void lobby_session_close(struct lobby *lb, struct session *s)
{
    if (!s->open)
        return;
    roomnode_session_close(s);
    log_event(LOG_DEBUG,
              &(struct log_fields){.room = s->room != NULL ? s->room->id : NULL,
                                   .seat = s->seat,
                                   .has_seat = s->room != NULL && s->seat >= 0,
                                   .addr = s->peer,
                                   .session = s->id,
                                   .close = s->close_code},
              "connection closed");
    if (s->room != NULL) {
        struct room *r = s->room;
        room_detach(r, s, lb->now);
        lobby__presence(lb, r);
        room_reap_if_dead(lb, r);
    }
    lobby__idle_unlink(lb, s);
    if (s->counted) {
        char key[64];
        lobby__peer_key(lb, s, key, sizeof key);
        ip_release(lb, key);
    }
    s->counted = 0;
    s->open = 0;
    lb->nsessions--;
}

/* ---- time ---- */

void lobby_clock_tick(struct lobby *lb, uint64_t now)
{
    lb->now = now;
    uint64_t grace = (uint64_t)lb->lim.takeover_grace * 1000;
    for (struct room *r = lb->oldest; r != NULL; r = r->newer)
        room_tick(r, now, grace);
}

/* A stall line at most this often (ms): a machine that swaps may stall every
 * few seconds, and the log must not be flooded by it. */
#define STALL_LOG_EVERY 60000

int lobby_stall(struct lobby *lb, uint64_t ms, uint64_t now)
{
    int clocks = 0;
    for (struct room *r = lb->oldest; r != NULL; r = r->newer)
        clocks += room_stall(r, ms, now);
    if (lb->stall_logged != 0 && now - lb->stall_logged < STALL_LOG_EVERY) {
        lb->stall_quiet++;
        lb->stall_quiet_ms += ms;
        return clocks;
    }
    char more[128] = "";
    if (lb->stall_quiet > 0)
        snprintf(more, sizeof more, " (and %d more stall(s) of %.1f s in all since the last line)",
                 lb->stall_quiet, (double)lb->stall_quiet_ms / 1000.0);
    log_warn("the loop stalled for %.1f s; no clock charged for it (%d running clock(s))%s",
             (double)ms / 1000.0, clocks, more);
    lb->stall_logged = now;
    lb->stall_quiet = 0;
    lb->stall_quiet_ms = 0;
    return clocks;
}

void lobby_tick(struct lobby *lb, uint64_t now)
{
    lb->now = now;
    if (lb->store != NULL)
        store_retry(lb->store);
    if (lb->node != NULL)
        roomnode_tick(lb->node, now);
    const struct lobby_limits *l = &lb->lim;
    if (l->idle_timeout > 0) {
        uint64_t limit = (uint64_t)l->idle_timeout * 1000;
        while (lb->idle_head != NULL) {
            struct session *s = lb->idle_head;
            if (!s->closing && (now <= s->last_ms || now - s->last_ms < limit))
                break;
            lobby__idle_unlink(lb, s);
            if (!s->closing) {
                log_event(LOG_INFO,
                          &(struct log_fields){
                              .addr = s->peer, .session = s->id, .close = SESSION_CLOSE_IDLE},
                          "connection closed: idle");
                session_close(s, SESSION_CLOSE_IDLE, "idle timeout", 1);
            }
        }
    }
    for (unsigned i = 0; i < IP_BUCKETS; i++)
        for (struct lobby_ip **p = &lb->ips[i]; *p != NULL;) {
            struct lobby_ip *e = *p;
            ip_unused(lb, p);
            if (*p == e)
                p = &e->next;
        }
    struct room *r = lb->oldest;
    while (r != NULL) {
        struct room *next = r->newer;
        lobby__room_recount(lb, r); /* a game's end, the admin's changes */
        if (room_members(r) > 0 ||
            ((r->rated || r->clock.per_move > 0) && r->phase == PROTO_PHASE_PLAYING)) {
            /* A rated game is never closed for want of people: it does not
             * pause, and its clocks and bots settle it (PROTOCOL.md
             * "Ratings"); closing it would let a loser escape the rating.
             * Nor is a correspondence game, whose players come days apart. */
            r->empty = 0;
        } else if (!r->empty) {
            r->empty = 1;
            r->empty_since = now;
        } else {
            /* A lobby room nobody is connected to (seats of people gone, or
             * bots) goes quickly: it only keeps others from creating. */
            int lobby = r->phase == PROTO_PHASE_LOBBY;
            int ttl = lobby ? l->lobby_room_ttl : l->room_ttl;
            if (ttl > 0 && now - r->empty_since >= (uint64_t)ttl * 1000) {
                if (r->store != NULL)
                    roomdb_forget(lb, r, lobby ? 1 : 2);
                room_delete(lb, r);
            }
        }
        r = next;
    }
}

void lobby_shutdown(struct lobby *lb)
{
    lb->shutting_down = 1;
    while (lb->idle_head != NULL) {
        struct session *s = lb->idle_head;
        lobby__idle_unlink(lb, s);
        session_close(s, SESSION_CLOSE_GOING_AWAY, "server restarting, retry", 1);
    }
}

char *lobby_rooms_encode(const struct lobby *lb, const char *ref, int as_message)
{
    const struct directory_room *far;
    int nfar = roomnode_rooms(lb->node, &far), max = lb->lim.list_max, k = 0, j = 0;
    struct proto_room_summary *list = mem_alloc((size_t)(max > 0 ? max : 1) * sizeof *list);
    /* Newest first: this node's rooms exactly, and in a cluster the other
     * nodes' as the directory last read them. A finished game is in GET
     * /api/games, not among the rooms to join or watch. */
    const struct room *r = lb->newest;
    while (k < max) {
        while (r != NULL && (r->private_room || r->phase == PROTO_PHASE_OVER))
            r = r->older;
        if (r == NULL && j >= nfar)
            break;
        if (j < nfar && (r == NULL || far[j].created > r->created_ms)) {
            memset(&list[k], 0, sizeof list[k]);
            list[k++].json = far[j++].json;
        } else {
            room_summary(r, &list[k++]);
            r = r->older;
        }
    }
    char *text = proto_encode_rooms(list, k, ref, as_message);
    free(list);
    if (text == NULL)
        mem_oom("room list");
    return text;
}
