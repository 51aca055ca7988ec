#include "lobby.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fair/fair_room.h"
#include "log.h"
#include "metrics/metrics.h"
#include "rand.h"
#include "roomdb.h"
#include "store/store.h"
#include "turn.h"

#define IP_BUCKETS 1024u

/* One peer address: kept while it has connections or lobby rooms. */
struct lobby_ip {
    struct lobby_ip *next;
    int count;            /* websocket connections */
    int rooms;            /* rooms it created that are still in the lobby */
    struct bucket create; /* rooms it may create (per minute) */
    char addr[64];
};

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
    struct room **b = calloc(n, sizeof *b);
    if (b == NULL)
        srv_oom("room table");
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

static void room_insert(struct lobby *lb, struct room *r)
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

static void room_uncount(struct lobby *lb, struct room *r);

/* Unlink r, tell its members they left, free it. */
static void room_delete(struct lobby *lb, struct room *r)
{
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
    room_uncount(lb, r);
    log_event(LOG_DEBUG, &(struct log_fields){.room = r->id}, "room deleted");
    room_evict(r, 1);
    room_free(r);
}

static struct lobby_ip **ip_slot(struct lobby *lb, const char *addr);
static void ip_unused(struct lobby *lb, struct lobby_ip **p);

/* r leaves the lobby phase or goes: its creator's address holds one lobby
 * room less. */
static void room_uncount(struct lobby *lb, struct room *r)
{
    if (r->creator[0] == '\0')
        return;
    struct lobby_ip **p = ip_slot(lb, r->creator);
    r->creator[0] = '\0';
    if (*p != NULL) {
        (*p)->rooms--;
        ip_unused(lb, p);
    }
}

static void room_reap_if_dead(struct lobby *lb, struct room *r)
{
    if (r != NULL && room_is_dead(r)) {
        if (r->store != NULL)
            roomdb_forget(r, 1);
        room_delete(lb, r);
    }
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
        roomdb_close(r, closed);
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

void lobby_room_add(struct lobby *lb, struct room *r)
{
    r->bots = lb->bots;
    r->bot_pace_ms = lb->lim.bot_pace;
    room_insert(lb, r);
}

void lobby_bots_set(struct lobby *lb, struct bots *b)
{
    lb->bots = b;
}

/* ---- connections per address ---- */

static struct lobby_ip **ip_slot(struct lobby *lb, const char *addr)
{
    struct lobby_ip **p = &lb->ips[hash_id(addr) & (IP_BUCKETS - 1)];
    while (*p != NULL && strcmp((*p)->addr, addr) != 0)
        p = &(*p)->next;
    return p;
}

/* The entry of addr, made when missing (its create bucket full). */
static struct lobby_ip **ip_get(struct lobby *lb, const char *addr)
{
    struct lobby_ip **p = ip_slot(lb, addr);
    if (*p == NULL) {
        struct lobby_ip *e = calloc(1, sizeof *e);
        if (e == NULL)
            srv_oom("address table");
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
    struct lobby_ip **p = ip_get(lb, addr);
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

static void idle_unlink(struct lobby *lb, struct session *s)
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

static void idle_append(struct lobby *lb, struct session *s)
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
    struct lobby *lb = calloc(1, sizeof *lb);
    if (lb == NULL)
        srv_oom("lobby");
    lb->lim = *lim;
    lb->server_name = "carcd/0.2";
    lb->nbuckets = 64;
    lb->buckets = calloc(lb->nbuckets, sizeof *lb->buckets);
    lb->ips = calloc(IP_BUCKETS, sizeof *lb->ips);
    if (lb->buckets == NULL || lb->ips == NULL)
        srv_oom("lobby");
    return lb;
}

void lobby_free(struct lobby *lb)
{
    if (lb == NULL)
        return;
    while (lb->newest != NULL) {
        struct room *r = lb->newest;
        if (r->store != NULL)
            roomdb_forget(r, 0);
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

int lobby_session_open(struct lobby *lb, struct session *s, const char *peer, uint64_t now)
{
    lb->now = now;
    s->id = ++lb->next_id;
    snprintf(s->peer, sizeof s->peer, "%s", peer != NULL ? peer : "");
    s->open = 1;
    s->last_ms = now;
    lb->nsessions++;
    idle_append(lb, s);
    if (lb->shutting_down) {
        session_close(s, SESSION_CLOSE_GOING_AWAY, "server restarting, retry", 0);
        return -1;
    }
    if (s->peer[0] != '\0') {
        if (ip_acquire(lb, s->peer) != 0) {
            log_event(LOG_INFO,
                      &(struct log_fields){
                          .addr = s->peer, .session = s->id, .close = SESSION_CLOSE_POLICY},
                      "connection refused: too many connections from its address");
            session_close(s, SESSION_CLOSE_POLICY, "too many connections from your address", 0);
            return -1;
        }
        s->counted = 1;
    }
    log_event(LOG_DEBUG, &(struct log_fields){.addr = s->peer, .session = s->id},
              "connection open");
    session_send_text(s, proto_encode_welcome(lb->server_name, lb->lim.message_bytes, lb->lim.rate,
                                              turn_wall_ms()));
    return 0;
}

void lobby_session_close(struct lobby *lb, struct session *s)
{
    if (!s->open)
        return;
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
        room_reap_if_dead(lb, r);
    }
    idle_unlink(lb, s);
    if (s->counted)
        ip_release(lb, s->peer);
    s->counted = 0;
    s->open = 0;
    lb->nsessions--;
}

/* ---- the command table ---- */

enum who {
    WHO_ANY,    /* anyone */
    WHO_NONE,   /* a connection in no room (else already_in_room) */
    WHO_MEMBER, /* a player or spectator of a room (else not_in_room) */
    WHO_PLAYER, /* a seated player (spectator: spectator) */
    WHO_HOST    /* the room's host (another player: not_host) */
};

enum target {
    T_NONE,  /* no room */
    T_OWN,   /* the room of the sender */
    T_NAMED, /* the room named by the message (no_such_room) */
};

#define PH_LOBBY (1 << PROTO_PHASE_LOBBY)
#define PH_PLAYING (1 << PROTO_PHASE_PLAYING)
#define PH_OVER (1 << PROTO_PHASE_OVER)
#define PH_ANY (PH_LOBBY | PH_PLAYING | PH_OVER)

struct cmd_ctx {
    struct lobby *lb;
    struct session *s;
    struct room *r; /* the target room, or NULL */
    const struct proto_msg *m;
    uint64_t now;
};

/* A handler returns 0 (it queued its replies) or a CARC_E_* code with err:
 * then the sender alone gets `error` and nothing changed. */
typedef int (*cmd_fn)(const struct cmd_ctx *c, struct carc_error *err);

struct cmd {
    cmd_fn fn;
    int who;    /* enum who */
    int phases; /* PH_* of the target room */
    int target; /* enum target */
};

static void reply(struct session *s, char *text);

static int cmd_list(const struct cmd_ctx *c, struct carc_error *err)
{
    (void)err;
    reply(c->s, lobby_rooms_encode(c->lb, c->m->id, 1));
    return 0;
}

/* Room creation limits: lobby rooms held by the sender's address, then the
 * connection's and the address's create rates (one token each). So that one
 * client cannot fill max-rooms and keep everyone else out. */
static int create_allowed(const struct cmd_ctx *c, struct carc_error *err)
{
    struct lobby *lb = c->lb;
    const struct lobby_limits *l = &lb->lim;
    struct lobby_ip *e = NULL;
    if (c->s->peer[0] != '\0')
        e = *ip_get(lb, c->s->peer);
    if (e != NULL && e->rooms >= l->lobby_rooms_ip)
        return carc_error_set(err, CARC_E_TOO_MANY_ROOMS,
                              "your address holds %d rooms in the lobby: start or leave one",
                              e->rooms);
    if (bucket_take(&c->s->create, c->now, l->create_rate, l->create_rate, 60000) != 0)
        return carc_error_set(err, CARC_E_RATE, "too many rooms created: slow down");
    if (e != NULL &&
        bucket_take(&e->create, c->now, l->create_rate_ip, l->create_rate_ip, 60000) != 0)
        return carc_error_set(err, CARC_E_RATE, "too many rooms created from your address");
    return 0;
}

static int cmd_create(const struct cmd_ctx *c, struct carc_error *err)
{
    struct lobby *lb = c->lb;
    if (lb->nrooms >= lb->lim.max_rooms)
        return carc_error_set(err, CARC_E_LIMIT, "the server has too many rooms; try later");
    if (lb->store != NULL && store_failing(lb->store))
        return carc_error_set(err, CARC_E_STORAGE, "the server cannot store rooms now; retry");
    int rc = room_settings_check(c->m, err);
    if (rc == 0)
        rc = create_allowed(c, err);
    if (rc != 0)
        return rc;
    char id[RAND_ROOM_LEN + 1];
    do
        rand_room_id(id);
    while (lobby_room_find(lb, id) != NULL);
    struct room *r = room_new(id, c->m, lb->lim.history, lb->lim.history_bytes);
    r->store = lb->store;
    r->bots = lb->bots;
    r->bot_pace_ms = lb->lim.bot_pace;
    room_insert(lb, r);
    if (c->s->peer[0] != '\0') {
        snprintf(r->creator, sizeof r->creator, "%s", c->s->peer);
        (*ip_get(lb, r->creator))->rooms++;
    }
    room_create_seat(r, c->s, c->m->u.create.name, c->m->id);
    log_event(
        LOG_INFO,
        &(struct log_fields){.room = r->id, LOG_SEAT(0), .addr = c->s->peer, .session = c->s->id},
        "room created");
    return 0;
}

static int cmd_join(const struct cmd_ctx *c, struct carc_error *err)
{
    const struct proto_msg *m = c->m;
    if (c->lb->store != NULL && store_failing(c->lb->store))
        return carc_error_set(err, CARC_E_STORAGE, "the server cannot store seats now; retry");
    return room_join(c->r, c->s, m->u.join.name, m->u.join.password, m->id, err);
}

static int cmd_resume(const struct cmd_ctx *c, struct carc_error *err)
{
    int i = room_token_seat(c->r, c->m->u.resume.token);
    if (i < 0)
        return carc_error_set(err, CARC_E_TOKEN, NULL);
    struct room *old = c->s->room;
    if (old != NULL && !(old == c->r && c->s->seat == i)) {
        room_detach(old, c->s, c->now);
        if (old != c->r)
            room_reap_if_dead(c->lb, old);
    }
    room_resume(c->r, c->s, i, c->m->u.resume.seq, c->m->id, c->now);
    metrics_resume_count();
    return 0;
}

static int cmd_watch(const struct cmd_ctx *c, struct carc_error *err)
{
    (void)err;
    room_watch(c->r, c->s, c->m->u.watch.seq, c->m->id);
    return 0;
}

static int cmd_leave(const struct cmd_ctx *c, struct carc_error *err)
{
    (void)err;
    room_leave(c->r, c->s, c->m->id, c->now);
    room_reap_if_dead(c->lb, c->r);
    return 0;
}

static int cmd_start(const struct cmd_ctx *c, struct carc_error *err)
{
    struct lobby *lb = c->lb;
    /* The test hooks' seed, or the fair draw's (53 bits: the seed goes into the game
     * record (JSON), whose readers may hold integers as doubles). */
    uint64_t seed = lb->fixed_seed ? lb->seed : ROOM_SEED_FAIR;
    int rc = room_start(c->r, seed, lb->deck, lb->deck_len, c->now, err);
    if (rc == 0)
        room_uncount(lb, c->r);
    return rc;
}

static int cmd_play(const struct cmd_ctx *c, struct carc_error *err)
{
    return room_play(c->r, c->s, c->m, c->now, err);
}

static int cmd_history(const struct cmd_ctx *c, struct carc_error *err)
{
    (void)err;
    room_history(c->r, c->s, c->m->id);
    return 0;
}

static int cmd_add_bot(const struct cmd_ctx *c, struct carc_error *err)
{
    if (c->lb->store != NULL && store_failing(c->lb->store))
        return carc_error_set(err, CARC_E_STORAGE, "the server cannot store seats now; retry");
    return turn_bot_add(c->r, c->m->u.add_bot.level, err);
}

static int cmd_remove_bot(const struct cmd_ctx *c, struct carc_error *err)
{
    return turn_bot_remove(c->r, c->m->u.remove_bot.seat, err);
}

static int cmd_chat(const struct cmd_ctx *c, struct carc_error *err)
{
    const struct lobby_limits *l = &c->lb->lim;
    if (bucket_take(&c->s->chat, c->now, l->chat_rate, l->chat_burst, 60000) != 0)
        return carc_error_set(err, CARC_E_RATE, "too many chat messages: slow down");
    room_chat(c->r, c->s, c->m->u.chat.text);
    return 0;
}

static int cmd_sync(const struct cmd_ctx *c, struct carc_error *err)
{
    (void)err;
    room_sync(c->r, c->s, c->m->u.sync.seq, c->m->id);
    return 0;
}

static int cmd_entropy(const struct cmd_ctx *c, struct carc_error *err)
{
    if (c->lb->store != NULL && store_failing(c->lb->store))
        return carc_error_set(err, CARC_E_STORAGE, "the server cannot store it now; retry");
    return fair_room_entropy(c->r, c->s, c->m->u.entropy.data, c->m->id);
}

static int cmd_ping(const struct cmd_ctx *c, struct carc_error *err)
{
    (void)err;
    reply(c->s, proto_encode_pong(c->m->id));
    return 0;
}

static const struct cmd cmds[PROTO_T_COUNT] = {
    [PROTO_T_LIST] = {cmd_list, WHO_ANY, PH_ANY, T_NONE},
    [PROTO_T_CREATE] = {cmd_create, WHO_NONE, PH_ANY, T_NONE},
    [PROTO_T_JOIN] = {cmd_join, WHO_NONE, PH_LOBBY, T_NAMED},
    [PROTO_T_RESUME] = {cmd_resume, WHO_ANY, PH_ANY, T_NAMED},
    [PROTO_T_WATCH] = {cmd_watch, WHO_NONE, PH_ANY, T_NAMED},
    [PROTO_T_LEAVE] = {cmd_leave, WHO_MEMBER, PH_ANY, T_OWN},
    [PROTO_T_START] = {cmd_start, WHO_HOST, PH_LOBBY, T_OWN},
    [PROTO_T_PLAY] = {cmd_play, WHO_PLAYER, PH_PLAYING, T_OWN},
    [PROTO_T_CHAT] = {cmd_chat, WHO_MEMBER, PH_ANY, T_OWN},
    [PROTO_T_SYNC] = {cmd_sync, WHO_MEMBER, PH_ANY, T_OWN},
    [PROTO_T_PING] = {cmd_ping, WHO_ANY, PH_ANY, T_NONE},
    [PROTO_T_ADD_BOT] = {cmd_add_bot, WHO_HOST, PH_LOBBY, T_OWN},
    [PROTO_T_REMOVE_BOT] = {cmd_remove_bot, WHO_HOST, PH_LOBBY, T_OWN},
    [PROTO_T_HISTORY] = {cmd_history, WHO_MEMBER, PH_ANY, T_OWN},
    [PROTO_T_ENTROPY] = {cmd_entropy, WHO_PLAYER, PH_LOBBY, T_OWN},
};

static const char *named_room(const struct proto_msg *m)
{
    switch (m->type) {
    case PROTO_T_JOIN:
        return m->u.join.room;
    case PROTO_T_RESUME:
        return m->u.resume.room;
    case PROTO_T_WATCH:
        return m->u.watch.room;
    default:
        return "";
    }
}

/* Who may send it, which room, which phase: the checks every handler relies on. */
static int cmd_check(const struct cmd *cmd, struct cmd_ctx *c, struct carc_error *err)
{
    struct session *s = c->s;
    struct room *own = s->room;
    switch (cmd->who) {
    case WHO_NONE:
        if (own != NULL)
            return carc_error_set(err, CARC_E_IN_ROOM, NULL);
        break;
    case WHO_MEMBER:
    case WHO_PLAYER:
    case WHO_HOST:
        if (own == NULL)
            return carc_error_set(err, CARC_E_NOT_IN_ROOM, NULL);
        if (cmd->who != WHO_MEMBER && s->seat < 0)
            return carc_error_set(err, CARC_E_SPECTATOR, NULL);
        if (cmd->who == WHO_HOST && s->seat != own->host)
            return carc_error_set(err, CARC_E_NOT_HOST, NULL);
        break;
    default:
        break;
    }
    c->r = NULL;
    if (cmd->target == T_OWN)
        c->r = own;
    else if (cmd->target == T_NAMED) {
        c->r = lobby_room_find(c->lb, named_room(c->m));
        if (c->r == NULL)
            return carc_error_set(err, CARC_E_NO_ROOM, NULL);
    }
    /* A move after the end: the more precise code. */
    if (c->r != NULL && c->m->type == PROTO_T_PLAY && c->r->phase == PROTO_PHASE_OVER)
        return carc_error_set(err, CARC_E_OVER, NULL);
    if (c->r != NULL && !(cmd->phases & (1 << c->r->phase)))
        return carc_error_set(err, CARC_E_PHASE, "%s is not allowed while the room is in the %s",
                              proto_type_name(c->m->type),
                              c->r->phase == PROTO_PHASE_LOBBY     ? "lobby"
                              : c->r->phase == PROTO_PHASE_PLAYING ? "game"
                                                                   : "finished game");
    return 0;
}

/* Replies keep the order of requests (room_reply); a storage_error is about
 * the disk, not the room, and goes out at once. */
static void reply(struct session *s, char *text)
{
    if (s->room != NULL)
        room_reply(s->room, s, text);
    else
        session_send_text(s, text);
}

static void reply_error(struct session *s, int code, const char *text, const char *ref)
{
    struct room *r = s->room;
    log_event(LOG_DEBUG,
              &(struct log_fields){.room = r != NULL ? r->id : NULL,
                                   .seat = s->seat,
                                   .has_seat = r != NULL && s->seat >= 0,
                                   .code = carc_err_name(code),
                                   .session = s->id},
              "error reply");
    if (code == CARC_E_STORAGE)
        session_send_text(s, proto_encode_error(code, text, ref));
    else
        reply(s, proto_encode_error(code, text, ref));
}

void lobby_session_message(struct lobby *lb, struct session *s, const char *text, size_t len,
                           uint64_t now)
{
    if (!s->open || s->closing)
        return;
    const struct lobby_limits *l = &lb->lim;
    if (len > (size_t)l->message_bytes) {
        session_close(s, SESSION_CLOSE_TOO_BIG, "message too big", 0);
        return;
    }
    s->last_ms = now;
    lb->now = now;
    idle_unlink(lb, s);
    idle_append(lb, s);
    if (bucket_take(&s->flood, now, l->flood_rate, l->flood_burst, 1000) != 0) {
        log_event(
            LOG_INFO,
            &(struct log_fields){.addr = s->peer, .session = s->id, .close = SESSION_CLOSE_POLICY},
            "connection closed: flooding");
        session_close(s, SESSION_CLOSE_POLICY, "flooding: too many messages", 1);
        return;
    }
    struct proto_msg m;
    struct proto_error perr;
    proto_error_init(&perr);
    int rc = proto_msg_decode(text, len, &m, &perr);
    metrics_received_count(rc == 0 ? m.type : -1);
    if (bucket_take(&s->msg, now, l->rate, l->burst, 1000) != 0) {
        reply_error(s, CARC_E_RATE, NULL, m.id);
        return;
    }
    if (rc != 0) {
        reply_error(s, rc, perr.text, m.id);
        return;
    }
    const struct cmd *cmd = &cmds[m.type];
    struct cmd_ctx c = {lb, s, NULL, &m, now};
    struct carc_error err = {0, ""};
    rc = cmd_check(cmd, &c, &err);
    if (rc == 0)
        rc = cmd->fn(&c, &err);
    if (rc != 0)
        reply_error(s, rc, err.text, m.id);
}

/* ---- time ---- */

void lobby_clock_tick(struct lobby *lb, uint64_t now)
{
    lb->now = now;
    uint64_t grace = (uint64_t)lb->lim.takeover_grace * 1000;
    for (struct room *r = lb->oldest; r != NULL; r = r->newer)
        turn_tick(r, now, grace);
}

void lobby_tick(struct lobby *lb, uint64_t now)
{
    lb->now = now;
    if (lb->store != NULL)
        store_retry(lb->store);
    const struct lobby_limits *l = &lb->lim;
    if (l->idle_timeout > 0) {
        uint64_t limit = (uint64_t)l->idle_timeout * 1000;
        while (lb->idle_head != NULL) {
            struct session *s = lb->idle_head;
            if (!s->closing && (now <= s->last_ms || now - s->last_ms < limit))
                break;
            idle_unlink(lb, s);
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
        if (room_members(r) > 0) {
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
                    roomdb_forget(r, lobby ? 1 : 2);
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
        idle_unlink(lb, s);
        session_close(s, SESSION_CLOSE_GOING_AWAY, "server restarting, retry", 1);
    }
}

char *lobby_rooms_encode(const struct lobby *lb, const char *ref, int as_message)
{
    int max = lb->lim.list_max, n = 0;
    struct proto_room_summary *list = malloc((size_t)(max > 0 ? max : 1) * sizeof *list);
    if (list == NULL)
        srv_oom("room list");
    /* A finished game is in GET /api/games, not among the rooms to join or watch. */
    for (const struct room *r = lb->newest; r != NULL && n < max; r = r->older)
        if (!r->private_room && r->phase != PROTO_PHASE_OVER)
            room_summary(r, &list[n++]);
    char *text = proto_encode_rooms(list, n, ref, as_message);
    free(list);
    if (text == NULL)
        srv_oom("room list");
    return text;
}
