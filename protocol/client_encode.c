/* client_encode.c: the client messages of protocol v1 encoded (client.h
 * "client messages"): from the struct the server decodes into, and from plain
 * arguments for bots and tools. Nothing here reads a document. */
#include "client.h"

#include <jansson.h>
#include <string.h>

#include "bot.h"
#include "patch.h"

static json_t *client_frame(int type, const char *id, int *ok)
{
    json_t *o = json_object();
    proto__set(o, "v", json_integer(PROTO_VERSION), ok);
    proto__set(o, "type", json_string(proto_type_name(type)), ok);
    if (id != NULL && id[0] != '\0') {
        json_t *v = json_loads(id, JSON_DECODE_ANY, NULL);
        if (!json_is_string(v) && !json_is_integer(v)) {
            json_decref(v);
            *ok = 0;
        } else {
            proto__set(o, "id", v, ok);
        }
    }
    return o;
}

static void put_text(json_t *o, const char *key, const char *s, int *ok)
{
    proto__set(o, key, s != NULL ? json_string(s) : NULL, ok);
}

static json_t *escape_new(const struct proto_msg *m, int *ok)
{
    if (!m->u.play.escape)
        return json_null();
    json_t *e = json_object();
    proto__set(e, "x", json_integer(m->u.play.ex), ok);
    proto__set(e, "y", json_integer(m->u.play.ey), ok);
    put_text(e, "feature", m->u.play.efeature, ok);
    return e;
}

/* The fields of m after the frame. */
/* A create's clock as the client wrote it: per_move alone, or initial and
 * increment; the week-end keys only when they say something. */
static json_t *clock_json(const struct proto_clock *k, int *ok)
{
    json_t *c = json_object();
    if (k->per_move > 0) {
        proto__set(c, "per_move", json_integer(k->per_move), ok);
    } else {
        proto__set(c, "initial", json_integer(k->initial), ok);
        proto__set(c, "increment", json_integer(k->increment), ok);
    }
    proto__set(c, "on_timeout", proto__string_or(proto_timeout_name(k->on_timeout), ""), ok);
    if (k->weekend_pause)
        proto__set(c, "weekend_pause", json_true(), ok);
    if (k->time_zone[0] != '\0' && strcmp(k->time_zone, "UTC") != 0)
        proto__set(c, "time_zone", json_string(k->time_zone), ok);
    return c;
}

static void put_fields(json_t *o, const struct proto_msg *m, int *ok)
{
    switch (m->type) {
    case PROTO_T_CREATE: {
        put_text(o, "name", m->u.create.name, ok);
        proto__set(o, "seats", json_integer(m->u.create.seats), ok);
        proto__set(o, "sets", proto__sets_new(m->u.create.sets | (1u << CARC_SET_BASE)), ok);
        json_t *opt = proto__options_new(m->u.create.no_farmers, m->u.create.escape_rule,
                                         m->u.create.farm_rule, m->u.create.small_city,
                                         m->u.create.seat_random);
        proto__set(o, "options", opt, ok);
        proto__set(o, "private", json_boolean(m->u.create.private_room), ok);
        if (m->u.create.rated)
            proto__set(o, "rated", json_true(), ok);
        if (m->u.create.password[0] != '\0')
            put_text(o, "password", m->u.create.password, ok);
        if (m->u.create.clock.initial > 0)
            proto__set(o, "clock", clock_json(&m->u.create.clock, ok), ok);
        break;
    }
    case PROTO_T_ADD_BOT:
        proto__set(o, "level", proto__string_or(carc_bot_level_name(m->u.add_bot.level), ""), ok);
        break;
    case PROTO_T_REMOVE_BOT:
        proto__set(o, "seat", json_integer(m->u.remove_bot.seat), ok);
        break;
    case PROTO_T_JOIN:
        put_text(o, "room", m->u.join.room, ok);
        put_text(o, "name", m->u.join.name, ok);
        if (m->u.join.password[0] != '\0')
            put_text(o, "password", m->u.join.password, ok);
        break;
    case PROTO_T_RESUME:
        put_text(o, "room", m->u.resume.room, ok);
        if (m->u.resume.token[0] != '\0') /* none: the seat of the connection's account */
            put_text(o, "token", m->u.resume.token, ok);
        if (m->u.resume.seq >= 0)
            proto__set(o, "seq", json_integer(m->u.resume.seq), ok);
        break;
    case PROTO_T_WATCH:
        put_text(o, "room", m->u.watch.room, ok);
        if (m->u.watch.seq >= 0)
            proto__set(o, "seq", json_integer(m->u.watch.seq), ok);
        break;
    case PROTO_T_SYNC:
        if (m->u.sync.seq >= 0)
            proto__set(o, "seq", json_integer(m->u.sync.seq), ok);
        break;
    case PROTO_T_CHAT:
        put_text(o, "text", m->u.chat.text, ok);
        break;
    case PROTO_T_PLAY: {
        int t = m->u.play.tile;
        if (t < 0 || t >= carc_tiles_count || m->u.play.rot < 0 || m->u.play.rot > 3) {
            *ok = 0;
            break;
        }
        json_t *meeple = json_null();
        if (m->u.play.feature[0] != '\0') {
            meeple = json_object();
            put_text(meeple, "feature", m->u.play.feature, ok);
            proto__set(meeple, "kind", json_string(m->u.play.large ? "large" : "normal"), ok);
        }
        put_text(o, "tile", carc_tiles[t].id, ok);
        proto__set(o, "x", json_integer(m->u.play.x), ok);
        proto__set(o, "y", json_integer(m->u.play.y), ok);
        proto__set(o, "rot", json_integer(m->u.play.rot * 90), ok);
        proto__set(o, "meeple", meeple, ok);
        proto__set(o, "escape", escape_new(m, ok), ok);
        break;
    }
    default:
        break;
    }
}

char *proto_client_encode(const struct proto_msg *m)
{
    int ok = proto_type_name(m->type) != NULL;
    if (!ok)
        return NULL;
    json_t *o = client_frame(m->type, m->id, &ok);
    put_fields(o, m, &ok);
    return proto__dump_take(o, ok);
}

/* A message with only its type and id set; 0, or -1 when id does not fit. */
static int msg_init(struct proto_msg *m, int type, const char *id)
{
    memset(m, 0, sizeof *m);
    m->type = type;
    if (id == NULL)
        return 0;
    if (strlen(id) >= sizeof m->id)
        return -1;
    memcpy(m->id, id, strlen(id) + 1);
    return 0;
}

/* Copy s into a field of size bytes; -1 when s is NULL or too long. */
static int fit(char *out, size_t size, const char *s)
{
    if (s == NULL || strlen(s) >= size)
        return -1;
    memcpy(out, s, strlen(s) + 1);
    return 0;
}

char *proto_client_encode_simple(int type, const char *id)
{
    struct proto_msg m;
    if ((type != PROTO_T_LIST && type != PROTO_T_LEAVE && type != PROTO_T_START &&
         type != PROTO_T_PING) ||
        msg_init(&m, type, id) != 0)
        return NULL;
    return proto_client_encode(&m);
}

char *proto_client_encode_create(const char *name, int seats, unsigned sets, const char *id)
{
    struct proto_msg m;
    if (msg_init(&m, PROTO_T_CREATE, id) != 0 ||
        fit(m.u.create.name, sizeof m.u.create.name, name) != 0)
        return NULL;
    m.u.create.seats = seats;
    m.u.create.sets = sets;
    return proto_client_encode(&m);
}

char *proto_client_encode_join(const char *room, const char *name, const char *id)
{
    struct proto_msg m;
    if (msg_init(&m, PROTO_T_JOIN, id) != 0 ||
        fit(m.u.join.room, sizeof m.u.join.room, room) != 0 ||
        fit(m.u.join.name, sizeof m.u.join.name, name) != 0)
        return NULL;
    return proto_client_encode(&m);
}

char *proto_client_encode_resume(const char *room, const char *token, long long seq, const char *id)
{
    struct proto_msg m;
    if (msg_init(&m, PROTO_T_RESUME, id) != 0 ||
        fit(m.u.resume.room, sizeof m.u.resume.room, room) != 0 ||
        fit(m.u.resume.token, sizeof m.u.resume.token, token) != 0)
        return NULL;
    m.u.resume.seq = seq;
    return proto_client_encode(&m);
}

char *proto_client_encode_watch(const char *room, long long seq, const char *id)
{
    struct proto_msg m;
    if (msg_init(&m, PROTO_T_WATCH, id) != 0 ||
        fit(m.u.watch.room, sizeof m.u.watch.room, room) != 0)
        return NULL;
    m.u.watch.seq = seq;
    return proto_client_encode(&m);
}

char *proto_client_encode_sync(long long seq, const char *id)
{
    struct proto_msg m;
    if (msg_init(&m, PROTO_T_SYNC, id) != 0)
        return NULL;
    m.u.sync.seq = seq;
    return proto_client_encode(&m);
}

char *proto_client_encode_chat(const char *text, const char *id)
{
    struct proto_msg m;
    if (msg_init(&m, PROTO_T_CHAT, id) != 0 || fit(m.u.chat.text, sizeof m.u.chat.text, text) != 0)
        return NULL;
    return proto_client_encode(&m);
}

char *proto_client_encode_play(int tile, int x, int y, int rot, int seg, int large,
                               const struct proto_client_spot *escape, const char *id)
{
    struct proto_msg m;
    if (msg_init(&m, PROTO_T_PLAY, id) != 0 || tile < 0 || tile >= carc_tiles_count)
        return NULL;
    m.u.play.tile = tile;
    m.u.play.x = x;
    m.u.play.y = y;
    m.u.play.rot = rot;
    if (seg >= 0) {
        if (seg >= carc_tiles[tile].nsegs)
            return NULL;
        fit(m.u.play.feature, sizeof m.u.play.feature, carc_tiles[tile].segs[seg].name);
        m.u.play.large = large;
    }
    if (escape != NULL) {
        m.u.play.escape = 1;
        m.u.play.ex = escape->x;
        m.u.play.ey = escape->y;
        if (fit(m.u.play.efeature, sizeof m.u.play.efeature, escape->feature) != 0)
            return NULL;
    }
    return proto_client_encode(&m);
}
