/* state.c: writing the public state document of a room, and the deltas
 * between two of them (see state.h and PROTOCOL.md "The public state
 * document"); state_build.c builds the documents, state_events.c writes the
 * events a delta carries.
 *
 * A struct proto_state is a compact C copy of everything the document shows
 * (a few KiB, no jansson values): the board as placed tiles with their
 * meeples, the seats, counters and supplies, and the mover's legal list
 * already as JSON text (shared between consecutive documents while the game
 * does not move). The list is not part of the document: it goes to the mover
 * alone, in a `legal` message (proto_legal_encode). A snapshot is written as text from it on
 * demand; a delta's patch is written by comparing two of them field by field, in the order and
 * shape of the generic JSON diff (patch.h's proto__diff, kept as the tests' oracle): keys in byte
 * order, scalars replaced, board cells added, meeples replaced, arrays replaced whole when their
 * length changes or most elements differ. */
#include "state.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "state_int.h"

/* ---- writing documents ---- */

static void put_bool(struct proto__out *b, int v)
{
    if (v)
        PUT(b, "true");
    else
        PUT(b, "false");
}

static void put_seat_name(struct proto__out *b, const struct seat_view *st)
{
    if (st->null_name)
        PUT(b, "null");
    else
        put_string(b, st->name);
}

static void put_int_or_null(struct proto__out *b, long long v)
{
    if (v < 0)
        PUT(b, "null");
    else
        put_int(b, v);
}

static void put_name_or_null(struct proto__out *b, const char *name)
{
    if (name == NULL)
        PUT(b, "null");
    else
        put_name(b, name);
}

static void put_seat(struct proto__out *b, const struct seat_view *st)
{
    PUT(b, "{\"name\":");
    put_seat_name(b, st);
    PUT(b, ",\"taken\":");
    put_bool(b, st->taken);
    PUT(b, ",\"connected\":");
    put_bool(b, st->connected);
    PUT(b, ",\"bot\":");
    put_name_or_null(b, st->bot > 0 ? carc_bot_level_name(st->bot - 1) : NULL);
    PUT(b, ",\"autoplay\":");
    put_name_or_null(b, proto_autoplay_name(st->autoplay));
    PUT(b, ",\"entropy\":");
    put_bool(b, st->entropy);
    PUT(b, ",\"time_ms\":");
    put_int_or_null(b, st->time_ms);
    PUT(b, ",\"score\":");
    put_int(b, st->score);
    PUT(b, ",\"meeples\":");
    put_int(b, st->meeples);
    PUT(b, ",\"large\":");
    put_int(b, st->large);
    PUT(b, ",\"herbs\":");
    put_int(b, st->herbs);
    PUT(b, "}");
}

static void put_seats(struct proto__out *b, const struct proto_state *s)
{
    PUT(b, "[");
    for (int i = 0; i < s->nseats; i++) {
        if (i > 0)
            PUT(b, ",");
        put_seat(b, &s->seats[i]);
    }
    PUT(b, "]");
}

static void put_sets(struct proto__out *b, unsigned mask)
{
    int first = 1;
    PUT(b, "[");
    for (int i = 0; i < CARC_SET_COUNT; i++)
        if (mask & (1u << i)) {
            if (!first)
                PUT(b, ",");
            first = 0;
            put_name(b, carc_set_name(i));
        }
    PUT(b, "]");
}

static void put_tile_or_null(struct proto__out *b, int t)
{
    if (t < 0)
        PUT(b, "null");
    else
        put_name(b, carc_tiles[t].id);
}

static void put_meeple(struct proto__out *b, const struct cell_view *c)
{
    if (c->meeple == 0) {
        PUT(b, "null");
        return;
    }
    PUT(b, "{\"player\":");
    put_int(b, (c->meeple & ~CARC_MEEPLE_LARGE) - 1);
    PUT(b, ",\"feature\":");
    put_name(b, carc_tiles[c->type].segs[c->seg].name);
    if (c->meeple & CARC_MEEPLE_LARGE)
        PUT(b, ",\"kind\":\"large\"}");
    else
        PUT(b, ",\"kind\":\"normal\"}");
}

static void put_cell(struct proto__out *b, const struct cell_view *c)
{
    PUT(b, "{\"tile\":");
    put_name(b, carc_tiles[c->type].id);
    PUT(b, ",\"rot\":");
    put_int(b, c->rot * 90);
    PUT(b, ",\"meeple\":");
    put_meeple(b, c);
    PUT(b, "}");
}

static void put_options(struct proto__out *b, const struct proto_state *s)
{
    PUT(b, "{\"farmers\":");
    put_bool(b, s->farmers);
    PUT(b, ",\"siege_escape\":");
    put_name(b, proto__escape_rule_name(s->escape_rule));
    PUT(b, ",\"farms\":");
    put_name(b, proto__farm_rule_name(s->farm_rule));
    if (s->small_city)
        PUT(b, ",\"small_city\":2,\"seat_order\":");
    else
        PUT(b, ",\"small_city\":4,\"seat_order\":");
    put_name(b, proto__seat_order_name(s->seat_random));
    PUT(b, "}");
}

static void put_clock(struct proto__out *b, const struct proto_state *s)
{
    if (s->clock.initial <= 0) {
        PUT(b, "null");
        return;
    }
    PUT(b, "{\"initial\":");
    put_int(b, s->clock.initial);
    PUT(b, ",\"increment\":");
    put_int(b, s->clock.increment);
    PUT(b, ",\"on_timeout\":");
    put_name(b, proto_timeout_name(s->clock.on_timeout));
    PUT(b, ",\"per_move\":");
    put_int_or_null(b, s->clock.per_move > 0 ? s->clock.per_move : -1);
    PUT(b, ",\"weekend_pause\":");
    put_bool(b, s->clock.weekend_pause);
    PUT(b, ",\"time_zone\":");
    put_string(b, s->clock.time_zone[0] != '\0' ? s->clock.time_zone : "UTC");
    PUT(b, ",\"turn_started\":");
    put_int_or_null(b, s->turn_started);
    PUT(b, ",\"deadline\":");
    put_int_or_null(b, s->deadline);
    PUT(b, "}");
}

static void put_commitment(struct proto__out *b, const struct proto_state *s)
{
    if (s->commitment[0] == '\0')
        PUT(b, "null");
    else
        put_name(b, s->commitment);
}

static void put_remaining(struct proto__out *b, const struct proto_state *s)
{
    int first = 1;
    PUT(b, "{");
    for (int t = 0; t < carc_tiles_count && t < 256; t++)
        if (s->remaining[t] > 0) {
            if (!first)
                PUT(b, ",");
            first = 0;
            put_name(b, carc_tiles[t].id);
            PUT(b, ":");
            put_int(b, s->remaining[t]);
        }
    PUT(b, "}");
}

static void put_doc(struct proto__out *b, const struct proto_state *s)
{
    PUT(b, "{\"room\":");
    put_string(b, s->room);
    PUT(b, ",\"phase\":");
    put_name(b, proto__phase_name(s->phase));
    PUT(b, ",\"sets\":");
    put_sets(b, s->sets);
    PUT(b, ",\"options\":");
    put_options(b, s);
    if (s->rated)
        PUT(b, ",\"rated\":true");
    PUT(b, ",\"host\":");
    put_int(b, s->host);
    PUT(b, ",\"seats\":");
    put_seats(b, s);
    PUT(b, ",\"clock\":");
    put_clock(b, s);
    PUT(b, ",\"commitment\":");
    put_commitment(b, s);
    PUT(b, ",\"turn\":");
    put_int(b, s->turn);
    PUT(b, ",\"current\":");
    put_int_or_null(b, s->current);
    PUT(b, ",\"tile\":");
    put_tile_or_null(b, s->tile);
    PUT(b, ",\"tiles_left\":");
    put_int(b, s->tiles_left);
    PUT(b, ",\"remaining\":");
    put_remaining(b, s);
    PUT(b, ",\"herbs_left\":");
    put_int(b, s->herbs_left);
    PUT(b, ",\"board\":{");
    for (int i = 0; i < s->ntiles; i++) {
        char key[16];
        if (i > 0)
            PUT(b, ",");
        size_t n = cell_key(key, s->board[i].x, s->board[i].y);
        proto__out_string(b, key, n);
        PUT(b, ":");
        put_cell(b, &s->board[i]);
    }
    PUT(b, "}}");
}

char *proto_state_encode(const struct proto_state *s, long long seq, const char *ref)
{
    struct proto__out b;
    if (proto__out_init(&b, 4096) != 0)
        return NULL;
    proto__put_frame(&b, PROTO_S_STATE, ref);
    PUT(&b, ",\"seq\":");
    put_int(&b, seq);
    PUT(&b, ",\"state\":");
    put_doc(&b, s);
    PUT(&b, "}");
    return proto__out_finish(&b);
}

int proto_state_mover(const struct proto_state *s)
{
    return s->phase == PROTO_PHASE_PLAYING ? s->current : -1;
}

int proto_state_legal_changed(const struct proto_state *from, const struct proto_state *to)
{
    if (proto_state_mover(to) < 0)
        return 0;
    if (from == NULL || proto_state_mover(from) != to->current || from->turn != to->turn ||
        from->tile != to->tile)
        return 1;
    return from->legal != to->legal && (from->legal->len != to->legal->len ||
                                        memcmp(from->legal->text, to->legal->text, to->legal->len));
}

char *proto_legal_encode(const struct proto_state *s, long long seq)
{
    if (proto_state_mover(s) < 0)
        return NULL;
    struct proto__out b;
    if (proto__out_init(&b, 128 + s->legal->len) != 0)
        return NULL;
    proto__put_frame(&b, PROTO_S_LEGAL, NULL);
    PUT(&b, ",\"seq\":");
    put_int(&b, seq);
    PUT(&b, ",\"turn\":");
    put_int(&b, s->turn);
    PUT(&b, ",\"player\":");
    put_int(&b, s->current);
    PUT(&b, ",\"tile\":");
    put_tile_or_null(&b, s->tile);
    PUT(&b, ",\"legal\":");
    put_raw(&b, s->legal->text, s->legal->len);
    PUT(&b, "}");
    return proto__out_finish(&b);
}

/* ---- deltas ---- */

struct patch {
    struct proto__out *b;
    int n; /* operations written */
};

/* Start an operation: {"op":op,"path":"/path"; the caller adds the value and "}". */
static void op_open(struct patch *p, const char *op, const char *path, const char *key)
{
    struct proto__out *b = p->b;
    if (p->n++ > 0)
        PUT(b, ",");
    PUT(b, "{\"op\":\"");
    put_raw(b, op, strlen(op));
    PUT(b, "\",\"path\":\"");
    put_raw(b, path, strlen(path));
    if (key != NULL) {
        /* Keys here are cell keys and tile ids: no '~', '/', '"' or '\\' to escape. */
        PUT(b, "/");
        put_raw(b, key, strlen(key));
    }
    PUT(b, "\"");
}

static void op_int(struct patch *p, const char *path, long long v)
{
    op_open(p, "replace", path, NULL);
    PUT(p->b, ",\"value\":");
    put_int(p->b, v);
    PUT(p->b, "}");
}

static void op_bool(struct patch *p, const char *path, int v)
{
    op_open(p, "replace", path, NULL);
    PUT(p->b, ",\"value\":");
    put_bool(p->b, v);
    PUT(p->b, "}");
}

struct board_op {
    char key[16];
    int idx;
    int add; /* 1: add the cell, 0: replace its meeple */
};

static int board_op_cmp(const void *a, const void *b)
{
    return strcmp(((const struct board_op *)a)->key, ((const struct board_op *)b)->key);
}

static int cell_same_place(const struct cell_view *a, const struct cell_view *b)
{
    return a->type == b->type && a->rot == b->rot && a->x == b->x && a->y == b->y;
}

static void diff_board(struct patch *p, const struct proto_state *a, const struct proto_state *b)
{
    int whole = b->ntiles < a->ntiles;
    for (int i = 0; i < a->ntiles && !whole; i++)
        whole = !cell_same_place(&a->board[i], &b->board[i]);
    if (whole) {
        op_open(p, "replace", "/board", NULL);
        PUT(p->b, ",\"value\":{");
        for (int i = 0; i < b->ntiles; i++) {
            char key[16];
            if (i > 0)
                PUT(p->b, ",");
            size_t n = cell_key(key, b->board[i].x, b->board[i].y);
            proto__out_string(p->b, key, n);
            PUT(p->b, ":");
            put_cell(p->b, &b->board[i]);
        }
        PUT(p->b, "}}");
        return;
    }
    struct board_op ops[CARC_MAX_TILES];
    int n = 0;
    for (int i = 0; i < b->ntiles; i++) {
        int add = i >= a->ntiles;
        if (!add && (a->board[i].meeple == b->board[i].meeple &&
                     (b->board[i].meeple == 0 || a->board[i].seg == b->board[i].seg)))
            continue;
        cell_key(ops[n].key, b->board[i].x, b->board[i].y);
        ops[n].idx = i;
        ops[n].add = add;
        n++;
    }
    if (n > 1)
        qsort(ops, (size_t)n, sizeof ops[0], board_op_cmp);
    for (int k = 0; k < n; k++) {
        const struct cell_view *c = &b->board[ops[k].idx];
        if (ops[k].add) {
            op_open(p, "add", "/board", ops[k].key);
            PUT(p->b, ",\"value\":");
            put_cell(p->b, c);
        } else {
            char path[48] = "/board/";
            size_t kl = strnlen(ops[k].key, sizeof ops[k].key - 1);
            memcpy(path + 7, ops[k].key, kl);
            memcpy(path + 7 + kl, "/meeple", 8);
            op_open(p, "replace", path, NULL);
            PUT(p->b, ",\"value\":");
            put_meeple(p->b, c);
        }
        PUT(p->b, "}");
    }
}

static void op_value_name(struct patch *p, const char *path, const char *name)
{
    op_open(p, "replace", path, NULL);
    PUT(p->b, ",\"value\":");
    put_name_or_null(p->b, name);
    PUT(p->b, "}");
}

static void op_autoplay(struct patch *p, const char *path, int reason)
{
    op_value_name(p, path, proto_autoplay_name(reason));
}

static void op_bot(struct patch *p, const char *path, int bot)
{
    op_value_name(p, path, bot > 0 ? carc_bot_level_name(bot - 1) : NULL);
}

static void op_int_or_null(struct patch *p, const char *path, long long v)
{
    op_open(p, "replace", path, NULL);
    PUT(p->b, ",\"value\":");
    put_int_or_null(p->b, v);
    PUT(p->b, "}");
}

/* "clock": null and an object are replaced whole; two objects key by key. */
static void diff_clock(struct patch *p, const struct proto_state *a, const struct proto_state *b)
{
    if ((a->clock.initial > 0) != (b->clock.initial > 0)) {
        op_open(p, "replace", "/clock", NULL);
        PUT(p->b, ",\"value\":");
        put_clock(p->b, b);
        PUT(p->b, "}");
        return;
    }
    if (b->clock.initial <= 0)
        return;
    /* Keys in byte order: deadline, increment, initial, on_timeout,
     * per_move, time_zone, turn_started, weekend_pause. */
    if (a->deadline != b->deadline)
        op_int_or_null(p, "/clock/deadline", b->deadline);
    if (a->clock.increment != b->clock.increment)
        op_int(p, "/clock/increment", b->clock.increment);
    if (a->clock.initial != b->clock.initial)
        op_int(p, "/clock/initial", b->clock.initial);
    if (a->clock.on_timeout != b->clock.on_timeout)
        op_value_name(p, "/clock/on_timeout", proto_timeout_name(b->clock.on_timeout));
    if (a->clock.per_move != b->clock.per_move)
        op_int_or_null(p, "/clock/per_move", b->clock.per_move > 0 ? b->clock.per_move : -1);
    if (strcmp(a->clock.time_zone, b->clock.time_zone) != 0) {
        op_open(p, "replace", "/clock/time_zone", NULL);
        PUT(p->b, ",\"value\":");
        put_string(p->b, b->clock.time_zone[0] != '\0' ? b->clock.time_zone : "UTC");
        PUT(p->b, "}");
    }
    if (a->turn_started != b->turn_started)
        op_int_or_null(p, "/clock/turn_started", b->turn_started);
    if (a->clock.weekend_pause != b->clock.weekend_pause)
        op_bool(p, "/clock/weekend_pause", b->clock.weekend_pause);
}

static int seat_same(const struct seat_view *a, const struct seat_view *b)
{
    return a->null_name == b->null_name && strcmp(a->name, b->name) == 0 && a->taken == b->taken &&
           a->connected == b->connected && a->score == b->score && a->meeples == b->meeples &&
           a->large == b->large && a->herbs == b->herbs && a->bot == b->bot &&
           a->autoplay == b->autoplay && a->time_ms == b->time_ms && a->entropy == b->entropy;
}

static void diff_seats(struct patch *p, const struct proto_state *a, const struct proto_state *b)
{
    int differ = 0;
    for (int i = 0; i < a->nseats && a->nseats == b->nseats; i++)
        differ += !seat_same(&a->seats[i], &b->seats[i]);
    if (a->nseats != b->nseats || differ * 2 > a->nseats) {
        op_open(p, "replace", "/seats", NULL);
        PUT(p->b, ",\"value\":");
        put_seats(p->b, b);
        PUT(p->b, "}");
        return;
    }
    for (int i = 0; i < a->nseats && differ > 0; i++) {
        const struct seat_view *x = &a->seats[i], *y = &b->seats[i];
        char path[32];
        int len = snprintf(path, sizeof path, "/seats/%d/", i);
        /* Keys in byte order: autoplay, bot, connected, entropy, herbs, large, meeples, name,
         * score, taken, time_ms. */
#define SEAT_OP(field, name, kind)                                                                 \
    if (x->field != y->field) {                                                                    \
        snprintf(path + len, sizeof path - (size_t)len, "%s", name);                               \
        kind(p, path, y->field);                                                                   \
    }
        SEAT_OP(autoplay, "autoplay", op_autoplay)
        SEAT_OP(bot, "bot", op_bot)
        SEAT_OP(connected, "connected", op_bool)
        SEAT_OP(entropy, "entropy", op_bool)
        SEAT_OP(herbs, "herbs", op_int)
        SEAT_OP(large, "large", op_int)
        SEAT_OP(meeples, "meeples", op_int)
        if (x->null_name != y->null_name || strcmp(x->name, y->name) != 0) {
            snprintf(path + len, sizeof path - (size_t)len, "name");
            op_open(p, "replace", path, NULL);
            PUT(p->b, ",\"value\":");
            put_seat_name(p->b, y);
            PUT(p->b, "}");
        }
        SEAT_OP(score, "score", op_int)
        SEAT_OP(taken, "taken", op_bool)
        SEAT_OP(time_ms, "time_ms", op_int_or_null)
#undef SEAT_OP
    }
}

static void diff_remaining(struct patch *p, const struct proto_state *a,
                           const struct proto_state *b)
{
    for (int t = 0; t < carc_tiles_count && t < 256; t++) {
        if (a->remaining[t] == b->remaining[t])
            continue;
        if (b->remaining[t] == 0) {
            op_open(p, "remove", "/remaining", carc_tiles[t].id);
            PUT(p->b, "}");
            continue;
        }
        op_open(p, a->remaining[t] == 0 ? "add" : "replace", "/remaining", carc_tiles[t].id);
        PUT(p->b, ",\"value\":");
        put_int(p->b, b->remaining[t]);
        PUT(p->b, "}");
    }
}

/* The patch turning a into b, top-level keys in byte order. */
static void diff_doc(struct patch *p, const struct proto_state *a, const struct proto_state *b)
{
    diff_board(p, a, b);
    diff_clock(p, a, b);
    if (strcmp(a->commitment, b->commitment) != 0) {
        op_open(p, "replace", "/commitment", NULL);
        PUT(p->b, ",\"value\":");
        put_commitment(p->b, b);
        PUT(p->b, "}");
    }
    if (a->current != b->current) {
        op_open(p, "replace", "/current", NULL);
        PUT(p->b, ",\"value\":");
        put_int_or_null(p->b, b->current);
        PUT(p->b, "}");
    }
    if (a->herbs_left != b->herbs_left)
        op_int(p, "/herbs_left", b->herbs_left);
    if (a->host != b->host)
        op_int(p, "/host", b->host);
    if (a->farmers != b->farmers)
        op_bool(p, "/options/farmers", b->farmers);
    if (a->escape_rule != b->escape_rule) {
        op_open(p, "replace", "/options/siege_escape", NULL);
        PUT(p->b, ",\"value\":");
        put_name(p->b, proto__escape_rule_name(b->escape_rule));
        PUT(p->b, "}");
    }
    /* Options are fixed at create; compared so that any two documents patch exactly. */
    if (a->farm_rule != b->farm_rule) {
        op_open(p, "replace", "/options/farms", NULL);
        PUT(p->b, ",\"value\":");
        put_name(p->b, proto__farm_rule_name(b->farm_rule));
        PUT(p->b, "}");
    }
    if (a->small_city != b->small_city)
        op_int(p, "/options/small_city", b->small_city ? 2 : 4);
    if (a->seat_random != b->seat_random) {
        op_open(p, "replace", "/options/seat_order", NULL);
        PUT(p->b, ",\"value\":");
        put_name(p->b, proto__seat_order_name(b->seat_random));
        PUT(p->b, "}");
    }
    if (a->phase != b->phase) {
        op_open(p, "replace", "/phase", NULL);
        PUT(p->b, ",\"value\":");
        put_name(p->b, proto__phase_name(b->phase));
        PUT(p->b, "}");
    }
    diff_remaining(p, a, b);
    if (strcmp(a->room, b->room) != 0) {
        op_open(p, "replace", "/room", NULL);
        PUT(p->b, ",\"value\":");
        put_string(p->b, b->room);
        PUT(p->b, "}");
    }
    diff_seats(p, a, b);
    if (a->sets != b->sets) {
        op_open(p, "replace", "/sets", NULL);
        PUT(p->b, ",\"value\":");
        put_sets(p->b, b->sets);
        PUT(p->b, "}");
    }
    if (a->tile != b->tile) {
        op_open(p, "replace", "/tile", NULL);
        PUT(p->b, ",\"value\":");
        put_tile_or_null(p->b, b->tile);
        PUT(p->b, "}");
    }
    if (a->tiles_left != b->tiles_left)
        op_int(p, "/tiles_left", b->tiles_left);
    if (a->turn != b->turn)
        op_int(p, "/turn", b->turn);
}

char *proto_delta_encode(const struct proto_state *from, const struct proto_state *to,
                         long long seq, const struct proto_extra_event *extra, int nextra,
                         const struct carc_game *g, const struct carc_move *move)
{
    struct proto__out b;
    if (proto__out_init(&b, 1024) != 0)
        return NULL;
    proto__put_frame(&b, PROTO_S_DELTA, NULL);
    PUT(&b, ",\"seq\":");
    put_int(&b, seq);
    PUT(&b, ",\"events\":[");
    int nev = proto__put_extra_events(&b, extra, nextra, to);
    if (move != NULL && g != NULL && move->tile >= 0 && move->tile < carc_tiles_count) {
        if (nev++ > 0)
            PUT(&b, ",");
        proto__put_move_events(&b, g, move);
    }
    PUT(&b, "],\"patch\":[");
    struct patch p = {&b, 0};
    diff_doc(&p, from, to);
    PUT(&b, "]}");
    return proto__out_finish(&b);
}

/* ---- test helper ---- */

/* The "state" member of a state message (new reference), or NULL. */
static json_t *state_of(const char *msg, long long *seq)
{
    json_t *root = json_loads(msg, 0, NULL);
    json_t *doc = json_incref(json_object_get(root, "state"));
    *seq = json_integer_value(json_object_get(root, "seq"));
    json_decref(root);
    return doc;
}

int proto_patch_check(const char *state_msg, const char *const *delta_msgs, int ndeltas,
                      const char *expected_state_msg, struct proto_error *err)
{
    long long seq = 0, want_seq = 0;
    json_t *doc = state_of(state_msg, &seq);
    json_t *want = state_of(expected_state_msg, &want_seq);
    int rc = 0;
    if (doc == NULL || want == NULL)
        rc = proto_error_set(err, CARC_E_JSON, -1, "state", "a state message has no document");
    for (int i = 0; rc == 0 && i < ndeltas; i++) {
        char why[160], field[32];
        snprintf(field, sizeof field, "deltas[%d]", i);
        json_t *d = json_loads(delta_msgs[i], 0, NULL);
        long long s = json_integer_value(json_object_get(d, "seq"));
        if (d == NULL || !json_is_array(json_object_get(d, "events")))
            rc = proto_error_set(err, CARC_E_JSON, -1, field, "not a delta message");
        else if (s != seq + 1)
            rc = proto_error_set(err, CARC_E_INVAL, -1, field, "seq %lld after %lld", s, seq);
        else if (proto__patch_apply(&doc, json_object_get(d, "patch"), why, sizeof why) != 0)
            rc = proto_error_set(err, CARC_E_INVAL, -1, field, "patch: %s", why);
        seq = s;
        json_decref(d);
    }
    if (rc == 0 && seq != want_seq)
        rc = proto_error_set(err, CARC_E_INVAL, -1, "seq", "deltas end at seq %lld, state is %lld",
                             seq, want_seq);
    if (rc == 0 && !json_equal(doc, want)) {
        char *a = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
        char *b = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS);
        size_t k = 0;
        while (a != NULL && b != NULL && a[k] != '\0' && a[k] == b[k])
            k++;
        rc = proto_error_set(err, CARC_E_INVAL, -1, "state",
                             "documents differ at byte %zu: ...%.50s... vs ...%.50s...", k,
                             a != NULL ? a + (k > 20 ? k - 20 : 0) : "?",
                             b != NULL ? b + (k > 20 ? k - 20 : 0) : "?");
        free(a);
        free(b);
    }
    json_decref(doc);
    json_decref(want);
    return rc;
}
