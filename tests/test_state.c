/* test_state.c: state documents, deltas and the client library over whole
 * games (protocol/state.c, state_events.c, patch.c, client.c). Whole random
 * games (base and every set) check that the first snapshot plus every delta
 * gives each later snapshot, that the client library follows along, and that
 * an engine position rebuilt from the client's document has the same legal
 * moves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "event_json.h"
#include "history.h"
#include "msg.h"
#include "room_util.h"
#include "state.h"
#include "tests.h"

#define DATA_DIR "tests/data/protocol"

/* Test hooks of protocol/patch.c (patch.h itself exposes jansson). */
char *proto__diff_text(const char *from, const char *to);
char *proto__patch_text(const char *doc, const char *patch, char *why, size_t whylen);
int proto__dump_same(const char *text);

/* ---- state documents, deltas and the client over whole games ---- */

#define MAXL (CARC_MAX_FRONTIER * 4)

static struct carc_game game_g, rebuilt_g;
static struct proto_client_legal legal_buf[MAXL];

struct sim {
    struct carc_game *g;
    struct proto_room_view view;
    struct proto_state *cur;
    char *state0;
    char *deltas[CARC_MAX_TILES + 64];
    int n;
    struct proto_client_doc *doc;
    struct carc_rng rng;
    int escapes_offered, escapes_taken;
};

/* The client's document as a state message, to compare with the server's. */
static char *client_state_msg(const struct sim *S)
{
    char *cd = proto_client_doc_dump(S->doc);
    ck_assert_ptr_nonnull(cd);
    char *w = malloc(strlen(cd) + 64);
    sprintf(w, "{\"v\":2,\"type\":\"state\",\"seq\":%d,\"state\":%s}", S->n, cd);
    free(cd);
    return w;
}

/* The delta's patch, written from the two documents field by field, does what
 * the generic diff (the oracle) of their snapshots does to the older one. */
static void delta_oracle_check(const struct proto_state *from, const struct proto_state *to,
                               const char *delta)
{
    char *fm = proto_state_encode(from, 0, NULL), *tm = proto_state_encode(to, 0, NULL);
    char *fd = proto_json_path_dump(fm, strlen(fm), "state");
    char *td = proto_json_path_dump(tm, strlen(tm), "state");
    char *patch = proto_json_path_dump(delta, strlen(delta), "patch");
    ck_assert(fd != NULL && td != NULL && patch != NULL);
    char *oracle = proto__diff_text(fd, td), why[160] = "";
    ck_assert_ptr_nonnull(oracle);
    char *got = proto__patch_text(fd, patch, why, sizeof why);
    ck_assert_msg(got != NULL, "patch %s: %s", patch, why);
    char *want = proto__patch_text(fd, oracle, why, sizeof why);
    ck_assert_msg(want != NULL, "oracle %s: %s", oracle, why);
    ck_assert_msg(strcmp(got, want) == 0, "patch %s differs from the oracle's %s", patch, oracle);
    free(fm);
    free(tm);
    free(fd);
    free(td);
    free(patch);
    free(oracle);
    free(got);
    free(want);
}

/* Encode the delta to `next`, feed it to the client, and check that the
 * client's document (state0 plus every delta so far, applied one by one)
 * equals next's snapshot; every 16th delta and at the end, proto_patch_check
 * replays them all from state0 too (at every step that would be quadratic). */
static char *sim_push(struct sim *S, struct proto_state *next, const struct proto_extra_event *ex,
                      int nex, const struct carc_move *mv)
{
    char *d = proto_delta_encode(S->cur, next, S->n + 1, ex, nex, S->g, mv);
    ck_assert_ptr_nonnull(d);
    delta_oracle_check(S->cur, next, d);
    struct proto_client_event ev;
    ck_assert_int_eq(proto_client_handle(S->doc, d, strlen(d), &ev), 0);
    ck_assert(ev.type == PROTO_S_DELTA && ev.applied && !ev.gap && ev.seq == S->n + 1);
    ck_assert_int_eq(proto_server_type_of(d, strlen(d), NULL), PROTO_S_DELTA);
    ck_assert_int_eq(ev.turn_over, mv != NULL);
    S->deltas[S->n++] = d;
    int new_list = proto_state_legal_changed(S->cur, next);
    proto_state_free(S->cur);
    S->cur = next;
    /* The mover's list comes in its own message, after the delta; only then. */
    ck_assert_int_eq(proto_client_legal_ready(S->doc), proto_state_mover(next) >= 0 && !new_list);
    char *lm = proto_legal_encode(next, S->n);
    ck_assert_int_eq(lm != NULL, proto_state_mover(next) >= 0);
    if (new_list) {
        ck_assert_int_eq(proto_client_handle(S->doc, lm, strlen(lm), &ev), 0);
        ck_assert(ev.type == PROTO_S_LEGAL && !ev.applied && ev.seq == S->n);
        ck_assert_int_eq(proto_server_type_of(lm, strlen(lm), NULL), PROTO_S_LEGAL);
    }
    ck_assert_int_eq(proto_client_legal_ready(S->doc), proto_state_mover(next) >= 0);
    free(lm);
    char *st = proto_state_encode(next, S->n, NULL), *cs = client_state_msg(S);
    ck_assert_msg(strstr(st, "\"legal\"") == NULL, "the document holds a legal list");
    ck_assert_int_eq(proto_server_type_of(st, strlen(st), NULL), PROTO_S_STATE);
    ck_assert_msg(proto__dump_same(d) && proto__dump_same(st), "dump differs from jansson's");
    struct proto_error err;
    proto_error_init(&err);
    int rc = 0;
    if (S->n % 16 == 0 || S->g->phase == CARC_PHASE_OVER)
        rc = proto_patch_check(S->state0, (const char *const *)S->deltas, S->n, st, &err);
    ck_assert_msg(rc == 0, "delta %d: %s: %s", S->n, err.field, err.text);
    rc = proto_patch_check(cs, NULL, 0, st, &err);
    ck_assert_msg(rc == 0, "client at %d: %s", S->n, err.text);
    free(st);
    free(cs);
    return d;
}

/* The next document, built sharing with the current one; it must equal a fresh build. */
static struct proto_state *sim_build(struct sim *S)
{
    struct proto_state *s = proto_state_build_next(S->cur, &S->view);
    struct proto_state *fresh = proto_state_build(&S->view);
    ck_assert(s != NULL && fresh != NULL);
    char *a = proto_state_encode(s, 0, NULL), *b = proto_state_encode(fresh, 0, NULL);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    proto_state_free(fresh);
    return s;
}

/* The client's view agrees with the engine, and so does a rebuilt position. */
static void check_views(struct sim *S, int n)
{
    const struct carc_game *g = S->g;
    struct carc_error err = {0};
    ck_assert_int_eq(proto_client_tile(S->doc), g->tile);
    ck_assert_int_eq(proto_client_turn(S->doc), g->turn);
    ck_assert_int_eq(proto_client_tiles_left(S->doc), carc_game_tiles_left(g));
    ck_assert_int_eq(proto_client_remaining(S->doc, NULL, 0), carc_game_tiles_left(g));
    ck_assert_int_eq(proto_client_board(S->doc, NULL, 0), g->ntiles);
    ck_assert_int_eq(n, carc_game_placements(g, g->tile, NULL, 0));
    int rc = proto_client_game(S->doc, &rebuilt_g, &err);
    ck_assert_msg(rc == 0, "turn %d: rebuild: %s", g->turn, err.text);
    ck_assert_int_eq(carc_game_placements(&rebuilt_g, g->tile, NULL, 0), n);
    ck_assert_int_eq(rebuilt_g.current, g->current);
    ck_assert_int_eq(carc_game_tiles_left(&rebuilt_g), carc_game_tiles_left(g));
    const struct carc_player *me = &g->players[g->current];
    for (int i = 0; i < n; i++) {
        const struct proto_client_legal *l = &legal_buf[i];
        unsigned want = carc_game_meeple_spots(g, g->tile, l->x, l->y, l->rot), got = 0;
        unsigned again = carc_game_meeple_spots(&rebuilt_g, g->tile, l->x, l->y, l->rot);
        for (int k = 0; k < l->nmeeples; k++)
            got |= 1u << l->meeples[k].seg;
        /* Not ck_assert in this loop: each one costs a write to Check's pipe. */
        if (again != want || got != (me->meeples > 0 || me->large > 0 ? want : 0))
            ck_abort_msg("turn %d at (%d,%d) rot %d: spots %#x, rebuilt %#x, listed %#x", g->turn,
                         l->x, l->y, l->rot, want, again, got);
    }
    for (int p = 0; p < g->nplayers; p++) {
        struct proto_client_seat seat;
        ck_assert_int_eq(proto_client_seat_get(S->doc, p, &seat), 0);
        ck_assert_int_eq(seat.score, g->players[p].score);
        ck_assert_int_eq(seat.meeples, g->players[p].meeples);
        ck_assert_int_eq(seat.large, g->players[p].large);
        ck_assert_int_eq(rebuilt_g.players[p].score, g->players[p].score);
    }
}

/* One turn chosen from the client's legal list, played on the engine. */
static void sim_turn(struct sim *S)
{
    struct carc_game *g = S->g;
    int mover = g->current;
    proto_client_seat_set(S->doc, mover);
    ck_assert(proto_client_my_turn(S->doc));
    ck_assert_int_eq(proto_client_current(S->doc), mover);
    int n = proto_client_legal(S->doc, legal_buf, MAXL);
    check_views(S, n);
    const struct proto_client_legal *l = &legal_buf[carc_rng_below(&S->rng, (uint32_t)n)];
    struct carc_move m = {
        .player = mover, .tile = g->tile, .x = l->x, .y = l->y, .rot = l->rot, .seg = -1};
    const struct carc_player *me = &g->players[mover];
    if (l->nmeeples > 0 && carc_rng_below(&S->rng, 3) != 0) {
        m.seg = l->meeples[carc_rng_below(&S->rng, (uint32_t)l->nmeeples)].seg;
        m.large = me->large > 0 && (me->meeples == 0 || carc_rng_below(&S->rng, 4) == 0);
    }
    S->escapes_offered += l->nescapes > 0;
    if (l->nescapes > 0 && carc_rng_below(&S->rng, 2) == 0) {
        const struct proto_client_spot *e =
            &l->escapes[carc_rng_below(&S->rng, (uint32_t)l->nescapes)];
        m = (struct carc_move){.player = mover,
                               .tile = g->tile,
                               .x = l->x,
                               .y = l->y,
                               .rot = l->rot,
                               .seg = -1,
                               .escape = 1,
                               .ex = e->x,
                               .ey = e->y,
                               .eseg = e->seg};
        S->escapes_taken++;
    }
    struct carc_error err = {0};
    int rc = carc_game_play(g, &m, &err);
    ck_assert_msg(rc == 0, "turn %d: a listed move fails: %s", g->turn, err.text);
    S->view.phase = g->phase == CARC_PHASE_OVER ? PROTO_PHASE_OVER : PROTO_PHASE_PLAYING;
    /* The clock moves on, and now and then a bot plays a person's seat. */
    S->view.seats[mover].time_ms -= 1000 + g->turn;
    S->view.turn_started += 1000 + g->turn;
    S->view.deadline = S->view.clock.per_move > 0 ? S->view.turn_started + 86400000 : -1;
    S->view.seats[mover].autoplay = g->turn % 7 == 3 ? PROTO_AUTO_OFFLINE : PROTO_AUTO_NONE;
    char *d = sim_push(S, sim_build(S), NULL, 0, &m);
    ck_assert_str_eq(jstr(d, "events.0.type"), "placed");
    ck_assert_int_eq(jint(d, "events.0.player"), mover);
    ck_assert_int_eq(jint(d, "events.0.rot"), m.rot * 90);
    ck_assert_int_eq(jint(d, "events.0.x"), m.x);
    ck_assert_str_eq(jstr(d, "events.0.tile"), carc_tiles[m.tile].id);
    if (m.seg >= 0)
        ck_assert_str_eq(jstr(d, "events.0.meeple.feature"), carc_tiles[m.tile].segs[m.seg].name);
    else
        ck_assert_str_eq(jdump(d, "events.0.meeple"), "null");
    if (m.escape)
        ck_assert_int_eq(jint(d, "events.0.escape.y"), m.ey);
    else
        ck_assert_str_eq(jdump(d, "events.0.escape"), "null");
    long long nev = 0;
    char *evs = proto_json_path_dump(d, strlen(d), "events");
    for (const char *p = evs; (p = strstr(p, "\"type\":")) != NULL; p++)
        nev++;
    free(evs);
    ck_assert_int_eq(nev, 1 + g->nevents);
}

static void sim_game(int np, unsigned sets, int no_farmers, int escape_rule, uint64_t seed,
                     int *escapes)
{
    static const char *const names[] = {"Ann", "Bob", "Cy", "Dee", "Zoë", "Fay"};
    struct sim *S = calloc(1, sizeof *S);
    S->g = &game_g;
    carc_rng_seed(&S->rng, seed);
    S->view = (struct proto_room_view){.room = "t1",
                                       .phase = PROTO_PHASE_LOBBY,
                                       .sets = sets,
                                       .no_farmers = no_farmers,
                                       .escape_rule = escape_rule,
                                       .nseats = np,
                                       .seats = {{.name = "Ann", .taken = 1, .connected = 1}},
                                       .turn_started = -1,
                                       .deadline = -1};
    /* Odd seeds play with a clock, so that its fields are patched too; one
     * in three of them a correspondence clock paused on week ends. */
    if (seed & 1)
        S->view.clock =
            (struct proto_clock){.initial = 300, .increment = 10, .on_timeout = (int)(seed % 3)};
    if (seed % 6 == 5)
        S->view.clock = (struct proto_clock){.initial = 86400,
                                             .on_timeout = (int)(seed % 3),
                                             .per_move = 86400,
                                             .weekend_pause = 1,
                                             .time_zone = "America/Argentina/Buenos_Aires"};
    S->cur = NULL;
    S->cur = sim_build(S);
    S->state0 = proto_state_encode(S->cur, 0, "\"w\"");
    S->doc = proto_client_doc_new();
    struct proto_client_event ev;
    ck_assert_int_eq(proto_client_handle(S->doc, S->state0, strlen(S->state0), &ev), 0);
    ck_assert(ev.type == PROTO_S_STATE && ev.applied && ev.seq == 0);
    ck_assert_str_eq(ev.ref, "\"w\"");
    ck_assert_int_eq(proto_client_phase(S->doc), PROTO_PHASE_LOBBY);
    ck_assert_int_eq(proto_client_nseats(S->doc), np);
    ck_assert_int_eq(proto_client_current(S->doc), -1);
    ck_assert_int_eq(proto_client_legal(S->doc, NULL, 0), 0);
    for (int i = 1; i < np; i++) {
        /* Seat 1 is a bot seat (greedy), the others people. */
        struct proto_extra_event e = {PROTO_EV_SEAT, i, names[i], 1, i != 1, i == 1 ? 2 : 0, 0};
        snprintf(S->view.seats[i].name, PROTO_NAME_MAX, "%s", names[i]);
        S->view.seats[i].taken = 1;
        S->view.seats[i].connected = i != 1;
        S->view.seats[i].bot = i == 1 ? 2 : 0;
        char *d = sim_push(S, sim_build(S), &e, 1, NULL);
        ck_assert_str_eq(jstr(d, "events.0.name"), names[i]);
        ck_assert_str_eq(jdump(d, "events.0.connected"), i != 1 ? "true" : "false");
        ck_assert_str_eq(jdump(d, "events.0.bot"), i == 1 ? "\"greedy\"" : "null");
    }
    struct carc_config cfg = {np, sets, no_farmers, escape_rule, -1, seed, NULL, 0, 0, 0};
    struct carc_error err = {0};
    ck_assert_int_eq(carc_game_init(S->g, &cfg, &err), 0);
    S->view.phase = PROTO_PHASE_PLAYING;
    S->view.game = S->g;
    for (int i = 0; i < np; i++)
        S->view.seats[i].time_ms = 300000;
    S->view.turn_started = 1764583200000LL;
    struct proto_extra_event start = {PROTO_EV_START, 0, NULL, 0, 0, 0, 0};
    char *d = sim_push(S, sim_build(S), &start, 1, NULL);
    ck_assert_str_eq(jstr(d, "events.0.type"), "start");
    ck_assert_str_eq(jstr(d, "events.0.players.1"), "Bob");
    while (S->g->phase == CARC_PHASE_PLACE) {
        sim_turn(S);
        if (S->g->turn % 9 == 4) { /* a player drops out and comes back */
            int p = S->g->turn % np;
            S->view.seats[p].connected = !S->view.seats[p].connected;
            struct proto_extra_event e = {
                PROTO_EV_SEAT, p, S->view.seats[p].name, 1, S->view.seats[p].connected, 0, 0};
            d = sim_push(S, sim_build(S), &e, 1, NULL);
            ck_assert_str_eq(jdump(d, "events.0.connected"),
                             S->view.seats[p].connected ? "true" : "false");
        }
    }
    ck_assert_int_eq(proto_client_phase(S->doc), PROTO_PHASE_OVER);
    ck_assert_int_eq(proto_client_current(S->doc), -1);
    ck_assert_int_eq(proto_client_tile(S->doc), -1);
    ck_assert_int_eq(proto_client_legal(S->doc, NULL, 0), 0);
    ck_assert_int_eq(proto_client_tiles_left(S->doc), 0);
    ck_assert_int_eq(proto_client_game(S->doc, &rebuilt_g, &err), -1);
    for (int p = 0; p < np; p++) {
        struct proto_client_seat seat;
        proto_client_seat_get(S->doc, p, &seat);
        ck_assert_int_eq(seat.score, S->g->players[p].score);
    }
    /* Nothing changed: an empty patch. */
    d = proto_delta_encode(S->cur, S->cur, S->n + 1, NULL, 0, NULL, NULL);
    ck_assert_str_eq(jdump(d, "patch"), "[]");
    ck_assert_str_eq(jdump(d, "events"), "[]");
    free(d);
    *escapes += S->escapes_taken;
    for (int i = 0; i < S->n; i++)
        free(S->deltas[i]);
    free(S->state0);
    proto_state_free(S->cur);
    proto_client_doc_free(S->doc);
    free(S);
}

/* A lobby document, byte for byte (tests/data/protocol/golden/lobby.json). */
START_TEST(state_lobby_golden)
{
    struct proto_room_view v = {.room = "k3J9xQ2a",
                                .phase = PROTO_PHASE_LOBBY,
                                .sets = 1u << CARC_SET_INNS_CATHEDRALS,
                                .no_farmers = 1,
                                .escape_rule = CARC_ESCAPE_ANY_TILE,
                                .host = 2,
                                .nseats = 3,
                                .seats = {{.name = "Ann", .taken = 1, .connected = 1},
                                          {.name = ""},
                                          {.name = "Cy", .taken = 1}},
                                .turn_started = -1,
                                .deadline = -1};
    struct proto_state *st = proto_state_build(&v);
    char *got = proto_state_encode(st, 0, "1");
    size_t len;
    char *want = test_file_read(DATA_DIR "/golden/lobby.json", &len);
    ck_assert_ptr_nonnull(want);
    want[strcspn(want, "\n")] = '\0';
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    proto_state_free(st);
}
END_TEST

START_TEST(game_base)
{
    int escapes = 0;
    sim_game(2, 1u << CARC_SET_BASE, 0, CARC_ESCAPE_SIEGE_TILE, 1, &escapes);
    sim_game(5, 1u << CARC_SET_BASE, 1, CARC_ESCAPE_SIEGE_TILE, 2, &escapes);
    ck_assert_int_eq(escapes, 0);
}
END_TEST

START_TEST(game_all_sets)
{
    int escapes = 0;
    sim_game(6, CARC_SETS_ALL, 0, CARC_ESCAPE_SIEGE_TILE, 3, &escapes);
    sim_game(3, CARC_SETS_ALL, 1, CARC_ESCAPE_ANY_TILE, 4, &escapes);
    for (uint64_t seed = 10; seed < 16; seed++)
        sim_game(2, CARC_SETS_ALL, 0, CARC_ESCAPE_ANY_TILE, seed, &escapes);
    ck_assert_msg(escapes > 0, "no escape was ever offered and taken");
}
END_TEST

/* The client library's bookkeeping: gaps, stale deltas, broken patches, other messages. */
/* What a cluster node sends (proto_encode_redirect) is what a client reads
 * (proto_client_handle); a path that is not this host's is refused. */
START_TEST(redirect_round_trip)
{
    char *text = proto_encode_redirect("k3J9xQ2a", "node-2", "/n/node-2/ws", 1000, "7");
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "{\"v\":2,\"type\":\"redirect\",\"ref\":7,\"room\":\"k3J9xQ2a\","
                           "\"node\":\"node-2\",\"path\":\"/n/node-2/ws\",\"retry_ms\":1000}");
    struct proto_client_event ev;
    ck_assert_int_eq(proto_client_handle(NULL, text, strlen(text), &ev), 0);
    ck_assert_int_eq(ev.type, PROTO_S_REDIRECT);
    ck_assert_int_eq(proto_server_type_of(text, strlen(text), NULL), PROTO_S_REDIRECT);
    ck_assert_int_eq(ev.ref_num, 7);
    ck_assert_str_eq(ev.room, "k3J9xQ2a");
    ck_assert_str_eq(ev.node, "node-2");
    ck_assert_str_eq(ev.path, "/n/node-2/ws");
    ck_assert_int_eq(ev.retry_ms, 1000);
    free(text);
    const char *far = "{\"v\":2,\"type\":\"redirect\",\"room\":\"k3J9xQ2a\",\"node\":\"x\","
                      "\"path\":\"ws://evil.example/ws\",\"retry_ms\":1}";
    ck_assert_int_eq(proto_client_handle(NULL, far, strlen(far), &ev), CARC_E_INVAL);
}
END_TEST

START_TEST(client_handle)
{
    struct proto_client_doc *d = proto_client_doc_new();
    struct proto_client_event ev;
    const char *st =
        "{\"v\":2,\"type\":\"state\",\"seq\":5,\"state\":{\"phase\":\"lobby\",\"a\":1}}";
    const char *d6 = "{\"v\":2,\"type\":\"delta\",\"seq\":6,\"events\":[],\"patch\":"
                     "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":2}]}";
    const char *d8 = "{\"v\":2,\"type\":\"delta\",\"seq\":8,\"events\":[],\"patch\":[]}";
    const char *d7bad = "{\"v\":2,\"type\":\"delta\",\"seq\":7,\"events\":[],\"patch\":"
                        "[{\"op\":\"remove\",\"path\":\"/nope\"}]}";
    ck_assert_int_eq(proto_client_handle(d, d6, strlen(d6), &ev), 0);
    ck_assert(ev.gap && !ev.applied); /* no document yet */
    ck_assert_int_eq(proto_client_handle(d, st, strlen(st), &ev), 0);
    ck_assert_int_eq(proto_client_doc_seq(d), 5);
    ck_assert_int_eq(proto_client_handle(d, d6, strlen(d6), &ev), 0);
    ck_assert(ev.applied && !ev.gap && ev.nevents == 0 && !ev.turn_over);
    ck_assert_int_eq(proto_client_handle(d, d6, strlen(d6), &ev), 0);
    ck_assert(!ev.applied && !ev.gap); /* stale */
    ck_assert_int_eq(proto_client_handle(d, d8, strlen(d8), &ev), 0);
    ck_assert(!ev.applied && ev.gap);
    ck_assert_int_eq(proto_client_doc_seq(d), 6);
    char *dump = proto_client_doc_dump(d);
    ck_assert_str_eq(dump, "{\"phase\":\"lobby\",\"a\":2}");
    free(dump);
    ck_assert_int_eq(proto_client_handle(d, d7bad, strlen(d7bad), &ev), CARC_E_INVAL);
    ck_assert_int_eq(proto_client_doc_seq(d), -1);
    ck_assert_ptr_null(proto_client_doc_dump(d));
    char *sync = proto_client_encode_sync(proto_client_doc_seq(d), NULL);
    ck_assert_str_eq(sync, "{\"v\":2,\"type\":\"sync\"}"); /* asks for a fresh state */
    free(sync);
    ck_assert_int_eq(proto_client_phase(d), -1);

    char *s = proto_encode_error(CARC_E_NOT_HOST, NULL, "\"q\"");
    ck_assert_int_eq(proto_client_handle(d, s, strlen(s), &ev), 0);
    ck_assert(ev.type == PROTO_S_ERROR && ev.code == CARC_E_NOT_HOST && ev.ref_num == -1);
    ck_assert_str_eq(ev.code_name, "not_host");
    ck_assert_str_eq(ev.ref, "\"q\"");
    free(s);
    s = proto_encode_joined("abc", 3, "00112233445566778899aabbccddeeff", "12");
    ck_assert_int_eq(proto_client_handle(NULL, s, strlen(s), &ev), 0);
    ck_assert(ev.type == PROTO_S_JOINED && ev.seat == 3 && ev.ref_num == 12);
    ck_assert_str_eq(ev.room, "abc");
    ck_assert_str_eq(ev.token, "00112233445566778899aabbccddeeff");
    free(s);
    s = proto_encode_welcome("x", 100, 7, 5);
    ck_assert_int_eq(proto_client_handle(d, s, strlen(s), &ev), 0);
    ck_assert(ev.type == PROTO_S_WELCOME && ev.message_bytes == 100 &&
              ev.messages_per_second == 7 && ev.chat_bytes == PROTO_CHAT_MAX);
    free(s);
    s = proto_encode_chat(-1, "Eve", "hey");
    ck_assert_int_eq(proto_client_handle(d, s, strlen(s), &ev), 0);
    ck_assert(ev.type == PROTO_S_CHAT && ev.seat == -1);
    ck_assert_str_eq(ev.text, "hey");
    free(s);
    s = proto_encode_ack(77, NULL);
    ck_assert_int_eq(proto_client_handle(d, s, strlen(s), &ev), 0);
    ck_assert(ev.type == PROTO_S_ACK && ev.seq == 77 && ev.ref[0] == '\0');
    free(s);
    s = proto_encode_synced(41, "8");
    ck_assert_str_eq(s, "{\"v\":2,\"type\":\"synced\",\"ref\":8,\"seq\":41}");
    ck_assert_int_eq(proto_client_handle(d, s, strlen(s), &ev), 0);
    ck_assert(ev.type == PROTO_S_SYNCED && ev.seq == 41 && ev.ref_num == 8);
    free(s);
    ck_assert_int_eq(proto_client_handle(d, "{\"type\":\"zap\"}", 14, &ev), CARC_E_TYPE);
    ck_assert_int_eq(proto_client_handle(d, "nope", 4, &ev), CARC_E_JSON);
    ck_assert_int_eq(proto_client_handle(d, "{\"type\":\"ack\",\"seq\":\"1\"}", 24, &ev),
                     CARC_E_INVAL);
    ck_assert_str_eq(proto_server_type_name(PROTO_S_DELTA), "delta");
    ck_assert_ptr_null(proto_server_type_name(PROTO_S_UNKNOWN));
    ck_assert_str_eq(proto_type_name(PROTO_T_SYNC), "sync");
    proto_client_doc_free(d);
}
END_TEST

static void protocol_game_tests(TCase *tc)
{
    tcase_add_test(tc, state_lobby_golden);
    tcase_add_test(tc, game_base);
    tcase_add_test(tc, game_all_sets);
    tcase_add_test(tc, client_handle);
    tcase_add_test(tc, redirect_round_trip);
}

Suite *suite_state(void)
{
    Suite *s = suite_create("state");
    TCase *tc = tcase_create("state");
    tcase_set_timeout(tc, 120);
    protocol_game_tests(tc);
    suite_add_tcase(s, tc);
    return s;
}
