/* lobby_cmd.c: the lobby's command table (lobby.h): who may send each client
 * message type, to which room and in which phase, and its handler. The checks
 * run before the handler, so handlers never re-check. */
#include "game/lobby.h"

#include <stdio.h>
#include <string.h>

#include "game/fair_room.h"
#include "game/lobby_int.h"
#include "game/roomnode.h"
#include "game/turn.h"
#include "metrics/metrics.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/tz.h"
#include "util/log.h"
#include "util/rand.h"

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
    int located; /* the cluster has looked for the named room already */
};

/* cmd_check and handlers: the request waits for the cluster (roomnode.h),
 * which answers it later; nothing is sent now. */
#define CMD_WAITING 1

/* A handler returns 0 (it queued its replies) or a CARC_E_* code with err:
 * then the sender alone gets `error` and nothing changed. */
typedef int (*cmd_fn)(const struct cmd_ctx *c, struct carc_error *err);

struct cmd {
    cmd_fn fn;
    int who;    /* enum who */
    int phases; /* PH_* of the target room */
    int target; /* enum target */
    /* It needs a write: while storage fails it is refused with storage_error
     * and this sentence (NULL: served, from what the room holds). */
    const char *writes;
};

#define W_ROOM "the server cannot store rooms now; retry"
#define W_SEAT "the server cannot store seats now; retry"
#define W_START "the server cannot store the game's start now; retry"
#define W_CHAT "the server cannot store chat now; retry"
#define W_ENTROPY "the server cannot store it now; retry"

static void reply(struct session *s, char *text);

static int cmd_list(const struct cmd_ctx *c, struct carc_error *err)
{
    (void)err;
    reply(c->s, lobby_rooms_encode(c->lb, c->m->id, 1));
    return 0;
}

/* Room creation limits: the rooms counted against the sender's address (in
 * the lobby, or games left to bots: lobby__room_recount), then the
 * connection's and the address's create rates (one token each). So that one
 * client cannot fill max-rooms and keep everyone else out, nor keep the bots
 * of many games nobody watches searching. */
static int create_allowed(const struct cmd_ctx *c, struct carc_error *err)
{
    struct lobby *lb = c->lb;
    const struct lobby_limits *l = &lb->lim;
    struct lobby_ip *e = NULL;
    if (c->s->peer[0] != '\0') {
        char key[64];
        lobby__peer_key(lb, c->s, key, sizeof key);
        e = *lobby__ip_get(lb, key);
    }
    if (e != NULL && e->rooms >= l->lobby_rooms_ip)
        return carc_error_set(err, CARC_E_TOO_MANY_ROOMS,
                              "your address holds %d rooms in the lobby or games nobody is "
                              "connected to: start or leave a lobby room, or resume a game",
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
    int rc = room_settings_check(c->m, err);
    if (rc == 0 && c->m->u.create.rated && lb->rated_game == NULL)
        rc = carc_error_set(err, CARC_E_INVAL,
                            "rated: this server keeps no accounts (rated rooms need storage "
                            "and accounts)");
    if (rc == 0 && c->m->u.create.rated && c->s->account <= 0)
        rc = carc_error_set(err, CARC_E_SIGN_IN, "sign in to create a rated room");
    /* A rated game's result is what its players did: a seat nobody plays is
     * settled by its clock's rule (PROTOCOL.md "Ratings"), so there must be one. */
    if (rc == 0 && c->m->u.create.rated && c->m->u.create.clock.initial <= 0)
        rc = carc_error_set(err, CARC_E_INVAL,
                            "a rated room needs a clock: give clock.initial (seconds per "
                            "player) and clock.on_timeout");
    const struct proto_clock *k = &c->m->u.create.clock;
    if (rc == 0 && k->initial > 0 && tz_db_find(lb->tz, k->time_zone) == NULL)
        rc = carc_error_set(err, CARC_E_INVAL,
                            "clock.time_zone: this server does not know that time zone "
                            "(a name of the tz database, such as \"Europe/Paris\")");
    if (rc == 0)
        rc = create_allowed(c, err);
    if (rc != 0)
        return rc;
    char id[RAND_ROOM_LEN + 1];
    do
        rand_room_id(id);
    while (lobby_room_find(lb, id) != NULL);
    if (lb->node != NULL) {
        rc = roomnode_create(lb->node, c->s, c->m, id, lobby_room_create, err);
        return rc == 0 ? CMD_WAITING : rc;
    }
    lobby_room_create(lb, c->s, c->m, id);
    return 0;
}

void lobby_room_create(struct lobby *lb, struct session *s, const struct proto_msg *m,
                       const char *id)
{
    struct room *r = room_new(id, m, lb->lim.history, lb->lim.history_bytes);
    lobby_room_add(lb, r);
    if (s->peer[0] != '\0') {
        lobby__peer_key(lb, s, r->creator, sizeof r->creator);
        lobby__room_recount(lb, r);
    }
    room_create_seat(r, s, m->u.create.name, m->id);
    log_event(LOG_INFO,
              &(struct log_fields){.room = r->id, LOG_SEAT(0), .addr = s->peer, .session = s->id},
              "room created");
}

/* rematch (PROTOCOL.md "rematch"): the host of a finished game opens a new
 * room with the finished room's settings (seats, sets, options, clock,
 * private, password) and its bots, in their levels; the host takes seat 0 and
 * gets `joined` (with the request's ref and a token) and its state; every
 * other member of the finished room first gets `rematch` with the new room's
 * id. The people's seats are not reserved: they `join` the new room (the
 * first free seats). The limits are create's. */
static void rematch_settings(const struct room *old, const struct session *s,
                             const struct proto_msg *req, struct proto_msg *m)
{
    memset(m, 0, sizeof *m);
    m->type = PROTO_T_CREATE;
    memcpy(m->id, req->id, sizeof m->id);
    snprintf(m->u.create.name, sizeof m->u.create.name, "%s", old->seats[s->seat].name);
    m->u.create.seats = old->nseats;
    m->u.create.sets = old->sets;
    m->u.create.no_farmers = old->no_farmers;
    m->u.create.escape_rule = old->escape_rule;
    m->u.create.farm_rule = old->farm_rule;
    m->u.create.small_city = old->small_city;
    m->u.create.seat_random = old->seat_random;
    m->u.create.private_room = old->private_room;
    m->u.create.rated = old->rated;
    m->u.create.clock = old->clock;
}

/* The new room id for the finished room the host s is in (still there, or
 * the room is created without its bots and nobody is told). */
static void rematch_create(struct lobby *lb, struct session *s, const struct proto_msg *m,
                           const char *id)
{
    struct room *old = s->room;
    int levels[CARC_MAX_PLAYERS], nbots = 0;
    char pw_hash[SHA256_HEX] = "";
    if (old != NULL && old->phase == PROTO_PHASE_OVER && s->seat == old->host) {
        memcpy(pw_hash, old->pw_hash, sizeof pw_hash);
        for (int i = 0; i < old->nseats; i++)
            if (old->seats[i].taken && old->seats[i].bot)
                levels[nbots++] = old->seats[i].bot - 1;
        const char *host = old->seats[s->seat].name;
        for (int i = 0; i < old->nseats; i++)
            if (old->seats[i].s != NULL && old->seats[i].s != s)
                session_send_text(old->seats[i].s, proto_encode_rematch(id, host, i, NULL));
        for (struct session *w = old->spectators; w != NULL; w = w->rnext)
            session_send_text(w, proto_encode_rematch(id, host, -1, NULL));
        lobby__rematch_notices(lb, old, s->seat, id); /* the players not there */
    }
    if (old != NULL) {
        room_detach(old, s, lb->now);
        lobby__presence(lb, old);
        lobby_room_reap(lb, old);
    }
    lobby_room_create(lb, s, m, id);
    struct room *r = lobby_room_find(lb, id);
    if (r == NULL)
        return;
    memcpy(r->pw_hash, pw_hash, sizeof r->pw_hash);
    for (int k = 0; k < nbots; k++) {
        struct carc_error err = {0, ""};
        if (room_bot_add(r, levels[k], &err) != 0)
            break;
    }
}

static int cmd_rematch(const struct cmd_ctx *c, struct carc_error *err)
{
    struct lobby *lb = c->lb;
    if (lb->nrooms >= lb->lim.max_rooms)
        return carc_error_set(err, CARC_E_LIMIT, "the server has too many rooms; try later");
    int rc = create_allowed(c, err);
    if (rc != 0)
        return rc;
    struct proto_msg m;
    rematch_settings(c->r, c->s, c->m, &m);
    char id[RAND_ROOM_LEN + 1];
    do
        rand_room_id(id);
    while (lobby_room_find(lb, id) != NULL);
    if (lb->node != NULL) {
        rc = roomnode_create(lb->node, c->s, &m, id, rematch_create, err);
        return rc == 0 ? CMD_WAITING : rc;
    }
    rematch_create(lb, c->s, &m, id);
    return 0;
}

static int cmd_join(const struct cmd_ctx *c, struct carc_error *err)
{
    const struct proto_msg *m = c->m;
    if (c->r->rated && c->s->account <= 0)
        return carc_error_set(err, CARC_E_SIGN_IN, NULL);
    return room_join(c->r, c->s, m->u.join.name, m->u.join.password, m->id, err);
}

/* resume: the seat of the token; without one, the seat of the connection's
 * account (PROTOCOL.md "Seats of accounts"). Then the same either way. */
static int cmd_resume(const struct cmd_ctx *c, struct carc_error *err)
{
    const char *token = c->m->u.resume.token;
    int i =
        token[0] != '\0' ? room_token_seat(c->r, token) : room_account_seat(c->r, c->s->account);
    if (i < 0)
        return carc_error_set(err, CARC_E_TOKEN, NULL);
    struct room *old = c->s->room;
    if (old != NULL && !(old == c->r && c->s->seat == i)) {
        room_detach(old, c->s, c->now);
        if (old != c->r) {
            lobby__presence(c->lb, old);
            lobby_room_reap(c->lb, old);
        }
    }
    room_resume(c->r, c->s, i, c->m->u.resume.seq, c->m->id, c->now);
    lobby__presence(c->lb, c->r); /* a paused game goes on */
    metrics_resume_count();
    return 0;
}

static int cmd_watch(const struct cmd_ctx *c, struct carc_error *err)
{
    (void)err;
    room_watch(c->r, c->s, c->m->u.watch.seq, c->m->id);
    lobby__presence(c->lb, c->r); /* a paused game goes on */
    return 0;
}

static int cmd_leave(const struct cmd_ctx *c, struct carc_error *err)
{
    (void)err;
    room_leave(c->r, c->s, c->m->id, c->now);
    lobby__presence(c->lb, c->r);
    lobby_room_reap(c->lb, c->r);
    return 0;
}

static int cmd_start(const struct cmd_ctx *c, struct carc_error *err)
{
    struct lobby *lb = c->lb;
    /* The test hooks' seed, or the fair draw's (53 bits: the seed goes into the game
     * record (JSON), whose readers may hold integers as doubles). */
    uint64_t seed = lb->fixed_seed ? lb->seed : ROOM_SEED_FAIR;
    int rc = room_start(c->r, seed, lb->deck, lb->deck_len, c->now, err);
    if (rc != 0)
        return rc;
    lobby__room_recount(lb, c->r); /* its host is there: no longer counted */
    for (int i = 0; lb->account_game != NULL && i < c->r->nseats; i++)
        if (c->r->seats[i].taken && !c->r->seats[i].bot && c->r->seats[i].account > 0)
            lb->account_game(lb->account_game_arg, c->r->id, i, c->r->seats[i].account,
                             (long long)clock_wall_ms());
    return 0;
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
    return room_bot_add(c->r, c->m->u.add_bot.level, err);
}

static int cmd_remove_bot(const struct cmd_ctx *c, struct carc_error *err)
{
    return room_bot_remove(c->r, c->m->u.remove_bot.seat, err);
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
    (void)err;
    room_entropy(c->r, c->s, c->m->u.entropy.data, c->m->id);
    return 0;
}

static int cmd_ping(const struct cmd_ctx *c, struct carc_error *err)
{
    (void)err;
    reply(c->s, proto_encode_pong(c->m->id));
    return 0;
}

/* play is not marked: room__move refuses it after the turn's own checks
 * (not_your_turn, time_out come first). */
static const struct cmd cmds[PROTO_T_COUNT] = {
    [PROTO_T_LIST] = {cmd_list, WHO_ANY, PH_ANY, T_NONE, NULL},
    [PROTO_T_CREATE] = {cmd_create, WHO_NONE, PH_ANY, T_NONE, W_ROOM},
    [PROTO_T_JOIN] = {cmd_join, WHO_NONE, PH_LOBBY, T_NAMED, W_SEAT},
    [PROTO_T_RESUME] = {cmd_resume, WHO_ANY, PH_ANY, T_NAMED, NULL},
    [PROTO_T_WATCH] = {cmd_watch, WHO_NONE, PH_ANY, T_NAMED, NULL},
    [PROTO_T_LEAVE] = {cmd_leave, WHO_MEMBER, PH_ANY, T_OWN, NULL},
    [PROTO_T_START] = {cmd_start, WHO_HOST, PH_LOBBY, T_OWN, W_START},
    [PROTO_T_PLAY] = {cmd_play, WHO_PLAYER, PH_PLAYING, T_OWN, NULL},
    [PROTO_T_CHAT] = {cmd_chat, WHO_MEMBER, PH_ANY, T_OWN, W_CHAT},
    [PROTO_T_SYNC] = {cmd_sync, WHO_MEMBER, PH_ANY, T_OWN, NULL},
    [PROTO_T_PING] = {cmd_ping, WHO_ANY, PH_ANY, T_NONE, NULL},
    [PROTO_T_ADD_BOT] = {cmd_add_bot, WHO_HOST, PH_LOBBY, T_OWN, W_SEAT},
    [PROTO_T_REMOVE_BOT] = {cmd_remove_bot, WHO_HOST, PH_LOBBY, T_OWN, W_SEAT},
    [PROTO_T_HISTORY] = {cmd_history, WHO_MEMBER, PH_ANY, T_OWN, NULL},
    [PROTO_T_ENTROPY] = {cmd_entropy, WHO_PLAYER, PH_LOBBY, T_OWN, W_ENTROPY},
    [PROTO_T_REMATCH] = {cmd_rematch, WHO_HOST, PH_OVER, T_OWN, W_ROOM},
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
/* The cluster looked for the room a request named (roomnode_locate): the
 * request runs again, and a room still missing is no_such_room. */
static void located(struct lobby *lb, struct session *s, const struct proto_msg *m,
                    const char *room)
{
    (void)room;
    lobby_session_request(lb, s, m, 1);
}

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
        if (c->r == NULL && c->lb->node != NULL && !c->located) {
            int rc = roomnode_locate(c->lb->node, s, c->m, located, err);
            return rc == 0 ? CMD_WAITING : rc;
        }
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

static void cmd_run(struct lobby *lb, struct session *s, const struct proto_msg *m, uint64_t now,
                    int located)
{
    const struct cmd *cmd = &cmds[m->type];
    struct cmd_ctx c = {lb, s, NULL, m, now, located};
    struct carc_error err = {0, ""};
    int rc = cmd_check(cmd, &c, &err);
    if (rc == 0 && cmd->writes != NULL && lb->store != NULL && store_failing(lb->store))
        rc = carc_error_set(&err, CARC_E_STORAGE, "%s", cmd->writes);
    if (rc == 0)
        rc = cmd->fn(&c, &err);
    if (rc < 0)
        reply_error(s, rc, err.text, m->id);
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
    lobby__idle_unlink(lb, s);
    lobby__idle_append(lb, s);
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
    cmd_run(lb, s, &m, now, 0);
}

void lobby_session_request(struct lobby *lb, struct session *s, const struct proto_msg *m,
                           int located)
{
    if (s->open && !s->closing)
        cmd_run(lb, s, m, lb->now, located);
}
