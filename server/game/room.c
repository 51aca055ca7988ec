#include "game/room.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/bots.h"
#include "game/fair_room.h"
#include "game/turn.h"
#include "metrics/metrics.h"
#include "store/store.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/rand.h"

/* ---- the public document and deltas ---- */

static void room__view(const struct room *r, struct proto_room_view *v)
{
    memset(v, 0, sizeof *v);
    v->room = r->id;
    v->phase = r->phase;
    v->sets = r->sets;
    v->no_farmers = r->no_farmers;
    v->escape_rule = r->escape_rule;
    v->farm_rule = r->farm_rule;
    v->small_city = r->small_city;
    v->seat_random = r->seat_random;
    v->rated = r->rated;
    v->host = r->host;
    v->nseats = r->nseats;
    for (int i = 0; i < r->nseats; i++) {
        const struct room_seat *seat = &r->seats[i];
        memcpy(v->seats[i].name, seat->name, sizeof v->seats[i].name);
        v->seats[i].taken = seat->taken;
        v->seats[i].connected = seat->s != NULL;
        v->seats[i].bot = seat->bot;
        v->seats[i].autoplay = seat->autoplay;
        v->seats[i].entropy = seat->entropy[0] != '\0';
        /* In the lobby every seat will start with the initial time. */
        v->seats[i].time_ms = r->clock.initial <= 0 || !seat->taken ? -1
                              : r->phase == PROTO_PHASE_LOBBY ? (long long)r->clock.initial * 1000
                                                              : seat->clock_ms;
    }
    v->game = r->game;
    v->clock = r->clock;
    v->turn_started = r->turn_ms != 0 ? r->turn_wall : -1;
    v->deadline = turn_deadline(r);
    v->commitment = r->fair_commit[0] != '\0' ? r->fair_commit : NULL;
}

/* The document of r now; prev (the document at r->seq, or NULL) lets the
 * builder share what did not change. */
static struct proto_state *room__build(const struct room *r, const struct proto_state *prev)
{
    struct proto_room_view v;
    room__view(r, &v);
    struct proto_state *st = proto_state_build_next(prev, &v);
    if (st == NULL)
        mem_oom("building a state document");
    return st;
}

static void room__hist_clear(struct room *r)
{
    for (int i = 0; i < r->hist_cap; i++) {
        sbuf_unref(r->hist[i]);
        r->hist[i] = NULL;
    }
    r->hist_bytes = 0;
    r->hist_first = r->seq + 1;
    r->snap_below = r->seq + 1;
}

static void room__hist_drop_oldest(struct room *r)
{
    struct sbuf **h = &r->hist[r->hist_first % r->hist_cap];
    if (*h != NULL)
        r->hist_bytes -= (*h)->len;
    sbuf_unref(*h);
    *h = NULL;
    r->hist_first++;
}

static void room__hist_push(struct room *r, long long seq, struct sbuf *b)
{
    if (seq - r->hist_first + 1 > r->hist_cap)
        room__hist_drop_oldest(r);
    r->hist[seq % r->hist_cap] = sbuf_ref(b);
    r->hist_bytes += b->len;
    /* The newest delta stays even when it alone is over the bound. */
    while (r->hist_bytes > r->hist_max_bytes && r->hist_first < seq)
        room__hist_drop_oldest(r);
}

/* Queue b to every connected member but skip, held as kind (room.h). */
static void room__broadcast(struct room *r, struct sbuf *b, const struct session *skip, int kind)
{
    int hold = room__holding(r);
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].s != NULL && r->seats[i].s != skip) {
            if (hold)
                room__hold(r, r->seats[i].s, b, NULL, kind, NULL);
            else
                session_send(r->seats[i].s, b);
        }
    for (struct session *s = r->spectators; s != NULL; s = s->rnext)
        if (s != skip) {
            if (hold)
                room__hold(r, s, b, NULL, kind, NULL);
            else
                session_send(s, b);
        }
}

/* The mover's private list, to the mover's connection only (PROTOCOL.md
 * "legal"): never kept in the history, never to spectators. */
static void room__send_legal(struct room *r, const struct session *skip)
{
    int m = proto_state_mover(r->state);
    if (m < 0 || m >= r->nseats || r->seats[m].s == NULL || r->seats[m].s == skip)
        return;
    room__send_text(r, r->seats[m].s, proto_legal_encode(r->state, r->seq));
}

/* The room changed: build the new document, encode one delta against the
 * previous one, keep it and send it to everyone but skip; then the mover's
 * legal list when it changed. Returns its seq. */
long long room__publish(struct room *r, const struct proto_extra_event *ex, int nex,
                        const struct carc_move *mv, const struct session *skip)
{
    room__dirty(r);
    if (!room__holding(r) && room__failing(r)) {
        /* No delta may go above the seq after the stored one: the change
         * (a seat's connection, the lobby's seats) comes as a fresh state at
         * that seq, and is stored with the first commit that works. */
        room__rebase(r);
        struct sbuf *b = sbuf_take(proto_state_encode(r->state, r->seq, ""));
        room__broadcast(r, b, skip, ROOM_HELD_TELL);
        sbuf_unref(b);
        room__send_legal(r, skip);
        return r->seq;
    }
    struct proto_state *to = room__build(r, r->state);
    long long seq = r->seq + 1;
    struct sbuf *b = sbuf_take(proto_delta_encode(r->state, to, seq, ex, nex, r->game, mv));
    int legal = proto_state_legal_changed(r->state, to);
    proto_state_free(r->state);
    r->state = to;
    r->seq = seq;
    room__hist_push(r, seq, b);
    room__broadcast(r, b, skip, ROOM_HELD_TELL);
    sbuf_unref(b);
    if (legal)
        room__send_legal(r, skip);
    return seq;
}

static void room__seat_changed(struct room *r, int i, const char *name, const struct session *skip)
{
    struct proto_extra_event ev = {
        PROTO_EV_SEAT, i, name, r->seats[i].taken, r->seats[i].s != NULL, r->seats[i].bot, 0};
    room__publish(r, &ev, 1, NULL, skip);
}

/* What s is missing after seq `from`: the kept deltas then `synced`, or a
 * fresh state. Either way the last message with ref ends the catch-up; the
 * mover's legal list follows it when s holds the seat to move. */
static void room__catch_up(struct room *r, struct session *s, long long from, const char *ref)
{
    if (from >= 0 && from >= r->snap_below && from <= r->seq && from + 1 >= r->hist_first) {
        for (long long q = from + 1; q <= r->seq; q++)
            room__send(r, s, r->hist[q % r->hist_cap]);
        room__send_kind(r, s, proto_encode_synced(r->seq, ref), ROOM_HELD_END, ref);
    } else {
        room__send_kind(r, s, proto_state_encode(r->state, r->seq, ref), ROOM_HELD_END, ref);
    }
    if (s->seat >= 0 && s->seat == proto_state_mover(r->state))
        room__send_text(r, s, proto_legal_encode(r->state, r->seq));
}

/* ---- membership ---- */

static void spectator_add(struct room *r, struct session *s)
{
    s->room = r;
    s->seat = -1;
    s->rprev = NULL;
    s->rnext = r->spectators;
    if (r->spectators != NULL)
        r->spectators->rprev = s;
    r->spectators = s;
    r->nspectators++;
}

static void spectator_remove(struct room *r, struct session *s)
{
    room__unhold(r, s);
    if (s->rprev != NULL)
        s->rprev->rnext = s->rnext;
    else
        r->spectators = s->rnext;
    if (s->rnext != NULL)
        s->rnext->rprev = s->rprev;
    s->rnext = s->rprev = NULL;
    s->room = NULL;
    r->nspectators--;
}

static void seat_attach(struct room *r, int i, struct session *s)
{
    r->seats[i].s = s;
    s->room = r;
    s->seat = i;
}

static void seat_detach(struct room *r, struct session *s)
{
    room__unhold(r, s);
    r->seats[s->seat].s = NULL;
    s->room = NULL;
    s->seat = -1;
}

int room_taken(const struct room *r)
{
    int n = 0;
    for (int i = 0; i < r->nseats; i++)
        n += r->seats[i].taken;
    return n;
}

int room_seat_free(const struct room *r)
{
    for (int i = 0; i < r->nseats; i++)
        if (!r->seats[i].taken)
            return i;
    return -1;
}

int room_humans(const struct room *r)
{
    int n = 0;
    for (int i = 0; i < r->nseats; i++)
        n += r->seats[i].taken && !r->seats[i].bot;
    return n;
}

int room_members(const struct room *r)
{
    int n = r->nspectators;
    for (int i = 0; i < r->nseats; i++)
        n += r->seats[i].s != NULL;
    return n;
}

/* ---- life cycle ---- */

struct room *room_new(const char *id, const struct proto_msg *c, int history, int history_bytes)
{
    struct room *r = mem_zalloc(1, sizeof *r);
    snprintf(r->id, sizeof r->id, "%s", id);
    if (c->u.create.password[0] != '\0') {
        char pw[PROTO_PASSWORD_MAX];
        memcpy(pw, c->u.create.password, sizeof pw);
        pw[sizeof pw - 1] = '\0';
        sha256_hex(pw, r->pw_hash);
    }
    r->private_room = c->u.create.private_room;
    r->rated = c->u.create.rated;
    r->phase = PROTO_PHASE_LOBBY;
    r->sets = c->u.create.sets | (1u << CARC_SET_BASE);
    r->no_farmers = c->u.create.no_farmers;
    r->escape_rule = c->u.create.escape_rule;
    r->farm_rule = c->u.create.farm_rule;
    r->small_city = c->u.create.small_city;
    r->seat_random = c->u.create.seat_random;
    r->nseats = c->u.create.seats;
    r->clock = c->u.create.clock;
    r->hist_cap = history > 0 ? history : 1;
    r->hist_max_bytes = history_bytes > 0 ? (size_t)history_bytes : SIZE_MAX;
    r->hist = mem_zalloc((size_t)r->hist_cap, sizeof *r->hist);
    r->hist_first = 1;
    r->seq_stored = -1;
    fair_room_init(r);
    r->state = room__build(r, NULL);
    return r;
}

void room_free(struct room *r)
{
    if (r == NULL)
        return;
    bots_job_cancel(r->job);
    for (int i = 0; i < r->hist_cap; i++)
        sbuf_unref(r->hist[i]);
    free(r->hist);
    room__held_fini(r);
    free(r->chat);
    proto_state_free(r->state);
    free(r->game);
    free(r->moves);
    free(r->deck);
    free(r);
}

static void game_config(const struct room *r, struct carc_config *cfg, int nplayers)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->nplayers = nplayers;
    cfg->sets = r->sets;
    cfg->no_farmers = r->no_farmers;
    cfg->escape_rule = r->escape_rule;
    cfg->farm_rule = r->farm_rule;
    cfg->small_city = r->small_city;
    cfg->start = -1;
}

int room_settings_check(const struct proto_msg *c, struct carc_error *err)
{
    struct carc_config cfg = {0};
    cfg.nplayers = c->u.create.seats;
    cfg.sets = c->u.create.sets | (1u << CARC_SET_BASE);
    cfg.no_farmers = c->u.create.no_farmers;
    cfg.escape_rule = c->u.create.escape_rule;
    cfg.farm_rule = c->u.create.farm_rule;
    cfg.small_city = c->u.create.small_city;
    cfg.start = -1;
    struct carc_game *g = mem_zalloc(1, sizeof *g); /* zeroed: see room_start */
    int rc = carc_game_init(g, &cfg, err);
    free(g);
    return rc;
}

void room_create_seat(struct room *r, struct session *s, const char *name, const char *ref)
{
    struct room_seat *seat = &r->seats[0];
    char token[RAND_TOKEN_LEN + 1];
    room__seat_own(r, 0, s, name);
    rand_token(token);
    sha256_hex(token, seat->token_hash);
    seat->taken = 1;
    r->host = 0;
    seat_attach(r, 0, s);
    room__dirty(r);
    struct proto_state *st = room__build(r, r->state);
    proto_state_free(r->state);
    r->state = st;
    room__send_seat(r, s, proto_encode_joined(r->id, 0, token, ref), ref);
    room__send_kind(r, s, proto_state_encode(r->state, r->seq, ref), ROOM_HELD_END, ref);
}

/* Does the secret given (a NUL-terminated buffer of size bytes) hash to
 * stored (hex)? Compared without an early exit. */
static int secret_matches(const char *given, size_t size, const char *stored)
{
    char buf[PROTO_PASSWORD_MAX > PROTO_TOKEN_MAX ? PROTO_PASSWORD_MAX : PROTO_TOKEN_MAX];
    size_t n = size < sizeof buf ? size : sizeof buf;
    memcpy(buf, given, n);
    buf[n - 1] = '\0';
    char h[SHA256_HEX];
    sha256_hex(buf, h);
    unsigned diff = 0;
    for (size_t i = 0; i < SHA256_HEX - 1; i++)
        diff |= (unsigned char)(h[i] ^ stored[i]);
    return diff == 0;
}

int room_join(struct room *r, struct session *s, const char *name, const char *password,
              const char *ref, struct carc_error *err)
{
    if (r->pw_hash[0] != '\0' && !secret_matches(password, PROTO_PASSWORD_MAX, r->pw_hash))
        return carc_error_set(err, CARC_E_PASSWORD, NULL);
    int i = room_seat_free(r);
    if (i < 0)
        return carc_error_set(err, CARC_E_ROOM_FULL, NULL);
    name = room_seat_name(s, name);
    int other = room_name_seat(r, name);
    if (other >= 0)
        return carc_error_set(err, CARC_E_NAME_TAKEN, "seat %d has that name (case aside)", other);
    struct room_seat *seat = &r->seats[i];
    char token[RAND_TOKEN_LEN + 1];
    room__seat_own(r, i, s, name);
    rand_token(token);
    sha256_hex(token, seat->token_hash);
    seat->taken = 1;
    seat_attach(r, i, s);
    room__seat_changed(r, i, seat->name, s);
    log_event(LOG_INFO,
              &(struct log_fields){.room = r->id, LOG_SEAT(i), .addr = s->peer, .session = s->id},
              "seat taken");
    room__send_seat(r, s, proto_encode_joined(r->id, i, token, ref), ref);
    room__send_kind(r, s, proto_state_encode(r->state, r->seq, ref), ROOM_HELD_END, ref);
    return 0;
}

void room_watch(struct room *r, struct session *s, long long seq, const char *ref)
{
    spectator_add(r, s);
    room__send_kind(r, s, proto_encode_watching(r->id, ref), ROOM_HELD_SAFE, NULL);
    room__catch_up(r, s, seq, ref);
}

int room_token_seat(const struct room *r, const char *token)
{
    int found = -1;
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].taken && !r->seats[i].bot &&
            secret_matches(token, PROTO_TOKEN_MAX, r->seats[i].token_hash))
            found = i;
    return found;
}

void room_resume(struct room *r, struct session *s, int i, long long seq, const char *ref,
                 uint64_t now)
{
    struct room_seat *seat = &r->seats[i];
    if (seat->s != s) {
        struct session *old = seat->s;
        seat_attach(r, i, s);
        if (old != NULL) {
            /* Newest connection wins; the seat stays connected: no delta. */
            room__unhold(r, old);
            old->room = NULL;
            old->seat = -1;
            log_event(LOG_INFO,
                      &(struct log_fields){.room = r->id,
                                           LOG_SEAT(i),
                                           .session = old->id,
                                           .close = SESSION_CLOSE_TAKEOVER},
                      "seat taken over by a newer connection");
            session_close(old, SESSION_CLOSE_TAKEOVER, "seat taken over by a newer connection", 1);
        } else {
            room__seat_changed(r, i, seat->name, s);
        }
    }
    room__send_kind(r, s, proto_encode_joined(r->id, i, NULL, ref), ROOM_HELD_SAFE, NULL);
    room__catch_up(r, s, seq, ref);
    struct turn_outcome o;
    turn_seat_back(r, i, now, &o);
    room__turn_apply(r, &o, now);
}

void room_detach(struct room *r, struct session *s, uint64_t now)
{
    if (s->seat < 0) {
        spectator_remove(r, s);
        return;
    }
    int i = s->seat;
    seat_detach(r, s);
    r->seats[i].offline_ms = now;
    room__seat_changed(r, i, r->seats[i].name, NULL);
}

void room__host_pass(struct room *r)
{
    for (int j = 0; j < r->nseats; j++)
        if (r->seats[j].taken && !r->seats[j].bot) {
            r->host = j;
            return;
        }
}

void room_leave(struct room *r, struct session *s, const char *ref, uint64_t now)
{
    if (s->seat >= 0 && r->phase == PROTO_PHASE_LOBBY) {
        int i = s->seat;
        struct room_seat *seat = &r->seats[i];
        seat_detach(r, s);
        memset(seat, 0, sizeof *seat);
        if (r->host == i)
            room__host_pass(r);
        if (room_humans(r) > 0)
            room__seat_changed(r, i, NULL, NULL); /* a freed seat has no name */
    } else {
        int i = s->seat;
        room_detach(r, s, now);
        if (i >= 0) {
            struct turn_outcome o;
            turn_seat_left(r, i, &o);
            room__turn_apply(r, &o, now);
        }
    }
    session_send_text(s, proto_encode_left(ref));
}

/* Room for n moves in r->moves. It grows with the game, doubling: a whole
 * record (CARC_MAX_MOVES moves of 48 bytes) at the start was 12 KiB of every
 * room, when a game halfway has played about 45. */
static void room__moves_reserve(struct room *r, int n)
{
    if (n <= r->moves_cap)
        return;
    int cap = r->moves_cap > 0 ? r->moves_cap : 16;
    while (cap < n)
        cap *= 2;
    if (cap > CARC_MAX_MOVES)
        cap = CARC_MAX_MOVES;
    struct carc_move *m = mem_resize(r->moves, (size_t)cap * sizeof *m);
    r->moves = m;
    r->moves_cap = cap;
}

/* What the game is dealt from (the seed, and a copy of an explicit deck) and
 * room for its first moves: enough to replay it, and to write its record. */
static void room__keep_deal(struct room *r, uint64_t seed, const uint8_t *deck, int deck_len)
{
    r->seed = seed;
    if (deck != NULL && deck_len > 0) {
        r->deck = mem_alloc((size_t)deck_len);
        memcpy(r->deck, deck, (size_t)deck_len);
        r->deck_len = deck_len;
    }
    room__moves_reserve(r, 1);
}

int room_start(struct room *r, uint64_t seed, const uint8_t *deck, int deck_len, uint64_t now,
               struct carc_error *err)
{
    int n = room_taken(r);
    if (n < 2)
        return carc_error_set(err, CARC_E_NOT_ENOUGH, NULL);
    r->fair = 0;
    if (seed == ROOM_SEED_FAIR)
        seed = fair_room_seed(r);
    if (deck != NULL && deck_len > 0)
        r->fair = 0; /* dealt from the deck: the seed is not the draw order */
    struct carc_config cfg;
    game_config(r, &cfg, n);
    cfg.seed = seed;
    if (deck != NULL && deck_len > 0) {
        cfg.deck = deck;
        cfg.deck_len = deck_len;
    }
    /* Zeroed: carc_game_init leaves the slots past the live counts (frontier,
     * nodes, events) as they are, and a recycled allocation would keep an
     * older game's bytes there. */
    struct carc_game *g = mem_zalloc(1, sizeof *g);
    int rc = carc_game_init(g, &cfg, err);
    if (rc != 0) {
        free(g);
        return rc;
    }
    /* Drop the empty seats, keeping the order. */
    int map[CARC_MAX_PLAYERS], k = 0;
    for (int i = 0; i < r->nseats; i++) {
        map[i] = -1;
        if (!r->seats[i].taken)
            continue;
        map[i] = k;
        if (k != i) {
            r->seats[k] = r->seats[i];
            memset(&r->seats[i], 0, sizeof r->seats[i]);
        }
        if (r->seats[k].s != NULL)
            r->seats[k].s->seat = k;
        k++;
    }
    r->host = map[r->host] >= 0 ? map[r->host] : 0;
    r->nseats = n;
    if (r->seat_random)
        room__seats_shuffle(r, seed);
    r->game = g;
    room__keep_deal(r, seed, deck, deck_len);
    r->phase = g->phase == CARC_PHASE_OVER ? PROTO_PHASE_OVER : PROTO_PHASE_PLAYING;
    turn_game_start(r, now);
    log_event(LOG_INFO, &(struct log_fields){.room = r->id}, "game started: %d players", n);
    struct proto_extra_event ev = {PROTO_EV_START, -1, NULL, 0, 0, 0, 0};
    room__publish(r, &ev, 1, NULL, NULL);
    room__schedule(r, now);
    return 0;
}

int room_play(struct room *r, struct session *s, const struct proto_msg *m, uint64_t now,
              struct carc_error *err)
{
    struct carc_game *g = r->game;
    struct turn_outcome o;
    int rc = turn_play_check(r, s->seat, now, &o, err);
    room__turn_apply(r, &o, now); /* a timeout, or the seat taken back from a bot */
    if (rc != 0)
        return rc;
    struct carc_move mv = {0};
    mv.player = s->seat;
    mv.tile = m->u.play.tile;
    mv.x = m->u.play.x;
    mv.y = m->u.play.y;
    mv.rot = m->u.play.rot;
    mv.seg = -1;
    mv.large = m->u.play.large;
    /* Feature names are read on the tile they belong to; a wrong tile is
     * left for the engine to report (wrong_tile). */
    if (m->u.play.feature[0] != '\0' && mv.tile == g->tile) {
        mv.seg = carc_tile_seg_find(mv.tile, m->u.play.feature);
        if (mv.seg < 0)
            return carc_error_set(err, CARC_E_FEATURE, "tile %s has no feature \"%s\"",
                                  carc_tiles[mv.tile].id, m->u.play.feature);
    }
    if (m->u.play.escape) {
        int at = carc_game_tile_at(g, m->u.play.ex, m->u.play.ey);
        if (at == 0)
            return carc_error_set(err, CARC_E_ESCAPE, "no tile lies at (%d,%d)", m->u.play.ex,
                                  m->u.play.ey);
        int t = g->placed[at - 1].type;
        mv.eseg = carc_tile_seg_find(t, m->u.play.efeature);
        if (mv.eseg < 0)
            return carc_error_set(err, CARC_E_ESCAPE, "tile %s at (%d,%d) has no feature \"%s\"",
                                  carc_tiles[t].id, m->u.play.ex, m->u.play.ey, m->u.play.efeature);
        mv.escape = 1;
        mv.ex = m->u.play.ex;
        mv.ey = m->u.play.ey;
    }
    long long seq = room__move(r, &mv, NULL, 0, now, err);
    if (seq < 0)
        return (int)seq;
    room__send_alt(r, s, proto_encode_ack(seq, m->id),
                   proto_encode_error(CARC_E_STORAGE,
                                      "the server could not store the move; it was undone", m->id));
    return 0;
}

long long room__move(struct room *r, const struct carc_move *mv, const struct proto_extra_event *ex,
                     int nex, uint64_t now, struct carc_error *err)
{
    struct carc_game *g = r->game;
    if (r->store != NULL && store_failing(r->store))
        return carc_error_set(err, CARC_E_STORAGE, "the server cannot store moves now; retry");
    if (r->nmoves >= CARC_MAX_MOVES)
        return carc_error_set(err, CARC_E_INVAL, "the game record is full");
    int mover = g->current;
    uint64_t t0 = metrics_now_ns();
    int rc = carc_game_play(g, mv, err);
    if (rc != 0)
        return rc;
    metrics_move_count();
    room__moves_reserve(r, r->nmoves + 1);
    r->moves[r->nmoves++] = *mv;
    if (g->phase == CARC_PHASE_OVER) {
        r->phase = PROTO_PHASE_OVER;
        log_event(LOG_INFO, &(struct log_fields){.room = r->id}, "game over after %d moves",
                  r->nmoves);
        if (r->over != NULL)
            r->over(r->over_arg, r);
    }
    turn_moved(r, mover, now);
    long long seq = room__publish(r, ex, nex, mv, NULL);
    room__move_timed(r, t0);
    room__schedule(r, now);
    room__turn_to(r, mover);
    return seq;
}

void room_entropy(struct room *r, struct session *s, const char *data, const char *ref)
{
    if (fair_room_entropy(r, s->seat, data))
        room__publish(r, NULL, 0, NULL, NULL); /* its `entropy` flag: true */
    else
        room__dirty(r); /* the new value is stored; nothing public changed */
    /* After the delta, once stored (write before tell); refused if that
     * commit fails (the value is kept and written by the next one). */
    room__send_alt(r, s, proto_encode_ack(r->seq, ref),
                   proto_encode_error(CARC_E_STORAGE,
                                      "the server could not store your entropy now; send it again",
                                      ref));
}

void room_chat(struct room *r, struct session *s, const char *text)
{
    const char *name = s->seat >= 0 ? r->seats[s->seat].name : "spectator";
    if (r->store != NULL) {
        store_chat(r->store, r->id, s->seat, name, text, 0);
        room__dirty(r);
    }
    room__chat_keep(r, s->seat, name, text);
    struct sbuf *b = sbuf_take(proto_encode_chat(s->seat, name, text));
    /* A line whose commit fails is still written by the next one: told then. */
    room__broadcast(r, b, NULL, ROOM_HELD_SAFE);
    sbuf_unref(b);
}

void room_sync(struct room *r, struct session *s, long long seq, const char *ref)
{
    room__catch_up(r, s, seq, ref);
}

void room_evict(struct room *r, int send_left)
{
    for (int i = 0; i < r->nseats; i++) {
        struct session *s = r->seats[i].s;
        if (s == NULL)
            continue;
        seat_detach(r, s);
        if (send_left)
            session_send_text(s, proto_encode_left(""));
    }
    while (r->spectators != NULL) {
        struct session *s = r->spectators;
        spectator_remove(r, s);
        if (send_left)
            session_send_text(s, proto_encode_left(""));
    }
}

void room_summary(const struct room *r, struct proto_room_summary *out)
{
    out->room = r->id;
    out->seats = r->nseats;
    out->taken = room_taken(r);
    out->phase = r->phase;
    out->sets = r->sets;
    out->password = r->pw_hash[0] != '\0';
    out->host = r->seats[r->host].taken ? r->seats[r->host].name : NULL;
    out->no_farmers = r->no_farmers;
    out->escape_rule = r->escape_rule;
    out->farm_rule = r->farm_rule;
    out->small_city = r->small_city;
    out->seat_random = r->seat_random;
    out->rated = r->rated;
    out->json = NULL; /* this node's own room: encoded from the fields above */
}

/* ---- storage ---- */

/* Deal r's game again from its seed and play its first n moves. */
void room__deal(const struct room *r, struct carc_config *cfg)
{
    game_config(r, cfg, r->nseats);
    cfg->seed = r->seed;
    if (r->deck != NULL) {
        cfg->deck = r->deck;
        cfg->deck_len = r->deck_len;
    }
}

static int room__replay(struct room *r, int n, struct carc_error *err)
{
    struct carc_config cfg;
    room__deal(r, &cfg);
    struct carc_game *g = mem_zalloc(1, sizeof *g); /* zeroed: see room_start */
    int rc = carc_game_init(g, &cfg, err);
    for (int i = 0; rc == 0 && i < n; i++) {
        struct carc_move mv = r->moves[i];
        mv.player = g->current;
        rc = carc_game_play(g, &mv, err);
    }
    if (rc != 0) {
        free(g);
        return rc;
    }
    free(r->game);
    r->game = g;
    r->nmoves = r->moves_saved = r->moves_committed = n;
    r->phase = g->phase == CARC_PHASE_OVER ? PROTO_PHASE_OVER : PROTO_PHASE_PLAYING;
    return 0;
}

void room__rollback(struct room *r)
{
    struct carc_error err = {0, ""};
    if (room__replay(r, r->moves_committed, &err) != 0)
        log_event(LOG_ERROR, &(struct log_fields){.room = r->id, .code = carc_err_name(err.code)},
                  "cannot replay its stored moves: %s", err.text);
    log_event(LOG_WARN, &(struct log_fields){.room = r->id, .code = "storage_error"},
              "storage failed, back to move %d", r->moves_committed);
}

void room__rebase(struct room *r)
{
    proto_state_free(r->state);
    r->seq = r->seq_stored + 1;
    r->state = room__build(r, NULL);
    room__hist_clear(r);
}

int room_restore(struct room *r, int phase, uint64_t seed, const uint8_t *deck, int deck_len,
                 const struct carc_move *moves, int nmoves, long long seq, struct carc_error *err)
{
    if (phase != PROTO_PHASE_LOBBY) {
        if (nmoves < 0 || nmoves > CARC_MAX_MOVES)
            return carc_error_set(err, CARC_E_RECORD, "too many moves");
        room__keep_deal(r, seed, deck, deck_len);
        if (nmoves > 0) {
            room__moves_reserve(r, nmoves);
            memcpy(r->moves, moves, (size_t)nmoves * sizeof *moves);
        }
        int rc = room__replay(r, nmoves, err);
        if (rc != 0)
            return rc;
        r->finish_saved = r->phase == PROTO_PHASE_OVER;
    }
    r->seq = seq + 1;
    r->seq_stored = seq;
    r->turn_ms = 0; /* the turn starts again on the first clock tick: downtime is not charged */
    r->turn_moves = r->nmoves;
    proto_state_free(r->state);
    r->state = room__build(r, NULL);
    room__hist_clear(r);
    return 0;
}
