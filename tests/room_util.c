/* room_util.c: fake clients of the lobby (see room_util.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "room_util.h"
#include "util/log.h"

static void fake_wake(struct session *s)
{
    ((struct fake *)(void *)s)->wakes++;
}

static void fake_close(struct session *s)
{
    ((struct fake *)(void *)s)->closes++;
}

static const struct session_sink fake_sink = {fake_wake, fake_close};

struct lobby *lb;
uint64_t now;
#define MAX_FAKES 64
static struct fake *fakes[MAX_FAKES];
static int nfakes;

static void limits_default(struct lobby_limits *l)
{
    (void)l;
}

void setup_with(void (*tweak)(struct lobby_limits *))
{
    struct lobby_limits l;
    lobby_limits_defaults(&l);
    tweak(&l);
    log_level_set(LOG_WARN);
    lb = lobby_new(&l);
    now = 1000000;
    nfakes = 0;
}

void fake_free(struct fake *f)
{
    lobby_session_close(lb, &f->s);
    session_fini(&f->s);
    proto_client_doc_free(f->doc);
    free(f->last);
    for (int i = 0; i < nfakes; i++)
        if (fakes[i] == f) {
            fakes[i] = fakes[--nfakes];
            break;
        }
    free(f);
}

void teardown(void)
{
    while (nfakes > 0)
        fake_free(fakes[0]);
    lobby_free(lb);
    lb = NULL;
}

void setup_default(void)
{
    setup_with(limits_default);
}

TCase *tcase_with(const char *name, void (*setup)(void))
{
    TCase *tc = tcase_create(name);
    tcase_add_checked_fixture(tc, setup, teardown);
    return tc;
}

int queued(const struct fake *f)
{
    return (int)f->s.qlen;
}

/* The `legal` message queued next for f, if any, taken into its document
 * (f->legals counts them). Checks PROTOCOL.md's rule: after a delta, f's
 * connection gets one exactly when f's seat is to move with a list it does
 * not hold yet; after a state or synced (a snapshot, the end of a catch-up),
 * exactly when f's seat is to move. Never otherwise. */
static void legal_follow(struct fake *f, int type, const char *after)
{
    struct sbuf *b = session_peek(&f->s);
    int ready = proto_client_legal_ready(f->doc);
    int mine = proto_client_my_turn(f->doc);
    int came = b != NULL && strstr(b->data, "\"type\":\"legal\"") != NULL;
    ck_assert_msg(!came || mine, "a legal list for a seat not to move (%d) after %s: %s",
                  proto_client_seat(f->doc), after, b != NULL ? b->data : "");
    if (type == PROTO_S_DELTA)
        ck_assert_msg(!came || !ready, "a second legal list for one turn after %s", after);
    else
        ck_assert_msg(came == mine, "no legal list for the mover after %s", after);
    if (came) {
        struct proto_client_event ev;
        ck_assert_int_eq(proto_client_handle(f->doc, b->data, b->len, &ev), 0);
        ck_assert_int_eq(ev.type, PROTO_S_LEGAL);
        ck_assert_int_eq(ev.seq, proto_client_doc_seq(f->doc));
        session_pop(&f->s);
        f->legals++;
        ready = proto_client_legal_ready(f->doc);
    }
    ck_assert_msg(!mine || ready, "no legal list for the mover after %s", after);
}

/* Pop the oldest queued message into f->last and feed it to f's document; a
 * `legal` right after it is taken too (legal_follow). */
const char *pop(struct fake *f)
{
    struct sbuf *b = session_peek(&f->s);
    if (b == NULL)
        return NULL;
    free(f->last);
    f->last = strdup(b->data);
    session_pop(&f->s);
    struct proto_client_event ev;
    int had_doc = proto_client_doc_seq(f->doc) >= 0;
    int rc = proto_client_handle(f->doc, f->last, strlen(f->last), &ev);
    ck_assert_msg(rc == 0, "client library refused %s (%d)", f->last, rc);
    ck_assert_msg(!had_doc || !ev.gap, "a delta skipped a seq: %s", f->last);
    ck_assert_msg(ev.type != PROTO_S_LEGAL, "a legal list out of place: %s", f->last);
    if (ev.type == PROTO_S_JOINED) { /* as a client does: the seat is ours now */
        f->seat = ev.seat;
        proto_client_seat_set(f->doc, ev.seat);
    }
    if (ev.type == PROTO_S_DELTA || ev.type == PROTO_S_STATE || ev.type == PROTO_S_SYNCED)
        legal_follow(f, ev.type, f->last);
    return f->last;
}

const char *jstr(const char *text, const char *path)
{
    static char buf[4][512];
    static int k;
    char *out = buf[k++ & 3];
    out[0] = '\0';
    if (proto_json_path_string(text, strlen(text), path, out, 512) != 0)
        snprintf(out, 512, "<missing %s>", path);
    return out;
}

long long jint(const char *text, const char *path)
{
    long long v = -999999;
    ck_assert_msg(proto_json_path_int(text, strlen(text), path, &v) == 0, "%s: no integer at %s",
                  text, path);
    return v;
}

/* Compact JSON at path (static buffer), or "<missing>". */
const char *jdump(const char *text, const char *path)
{
    static char buf[4096];
    char *s = proto_json_path_dump(text, strlen(text), path);
    snprintf(buf, sizeof buf, "%s", s != NULL ? s : "<missing>");
    free(s);
    return buf;
}

int has(const char *text, const char *path)
{
    char *s = proto_json_path_dump(text, strlen(text), path);
    free(s);
    return s != NULL;
}

/* Pop one message and check its type (line: the caller's, for messages). */
const char *expect_at(int line, struct fake *f, const char *type)
{
    const char *m = pop(f);
    ck_assert_msg(m != NULL, "line %d: expected %s, the queue is empty", line, type);
    ck_assert_msg(strcmp(jstr(m, "type"), type) == 0, "line %d: expected %s, got %s", line, type,
                  m);
    return m;
}

const char *expect_error_at(int line, struct fake *f, const char *code)
{
    const char *m = expect_at(line, f, "error");
    ck_assert_msg(strcmp(jstr(m, "code"), code) == 0, "line %d: expected error %s, got %s", line,
                  code, m);
    return m;
}

void expect_nothing_at(int line, struct fake *f)
{
    ck_assert_msg(queued(f) == 0, "line %d: unexpected message %s", line,
                  session_peek(&f->s)->data);
}

void drain(struct fake *f)
{
    while (pop(f) != NULL)
        ;
}

struct fake *fake_new_from(const char *peer)
{
    struct fake *f = calloc(1, sizeof *f);
    ck_assert_ptr_nonnull(f);
    f->doc = proto_client_doc_new();
    f->seat = -1;
    session_init(&f->s, &fake_sink, f, &lb->lim, now);
    ck_assert_int_lt(nfakes, MAX_FAKES);
    fakes[nfakes++] = f;
    lobby_session_open(lb, &f->s, peer, now);
    return f;
}

struct fake *fake_new(void)
{
    struct fake *f = fake_new_from("10.0.0.1");
    expect(f, "welcome");
    return f;
}

/* Send text as one whole message, at the current time. */
void raw(struct fake *f, const char *text)
{
    lobby_session_message(lb, &f->s, text, strlen(text), now);
}

/* Send one message (printf-style JSON without the "v" key); the clock moves
 * 60 ms so normal traffic stays under the rate limit. */
void say(struct fake *f, const char *fmt, ...)
{
    char body[20000], msg[20100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof msg, "{\"v\":2,%s}", body);
    lobby_session_message(lb, &f->s, msg, strlen(msg), now);
    now += 60;
}

/* create: f becomes the host at seat 0; returns the room. */
struct room *create(struct fake *f, const char *extra)
{
    say(f, "\"type\":\"create\",\"id\":1,\"name\":\"Ann\",\"seats\":%s", extra);
    const char *j = expect(f, "joined");
    ck_assert_int_eq(jint(j, "ref"), 1);
    ck_assert_int_eq(jint(j, "seat"), 0);
    snprintf(f->token, sizeof f->token, "%s", jstr(j, "token"));
    snprintf(f->room, sizeof f->room, "%s", jstr(j, "room"));
    proto_client_seat_set(f->doc, 0);
    ck_assert_uint_eq(strlen(f->token), 32);
    ck_assert_uint_eq(strlen(f->room), 8);
    f->seat = 0;
    const char *st = expect(f, "state");
    ck_assert_int_eq(jint(st, "seq"), 0);
    struct room *r = lobby_room_find(lb, f->room);
    ck_assert_ptr_nonnull(r);
    return r;
}

/* join: f takes the next seat of room; everyone else in it gets a delta. */
void join(struct fake *f, const char *room, const char *name)
{
    say(f, "\"type\":\"join\",\"id\":\"j\",\"room\":\"%s\",\"name\":\"%s\"", room, name);
    const char *j = expect(f, "joined");
    ck_assert_str_eq(jstr(j, "ref"), "j");
    snprintf(f->token, sizeof f->token, "%s", jstr(j, "token"));
    snprintf(f->room, sizeof f->room, "%s", room);
    f->seat = (int)jint(j, "seat");
    proto_client_seat_set(f->doc, f->seat);
    expect(f, "state");
}

/* The room's document and seq as text, to check that an error changed nothing. */
char *snapshot(const struct room *r)
{
    return proto_state_encode(r->state, r->seq, "");
}

void assert_unchanged(const struct room *r, char *before)
{
    char *after = snapshot(r);
    ck_assert_str_eq(before, after);
    free(after);
    free(before);
}

const char *const short_deck[] = {"BA.V", "BA.U", "BA.E", "BA.K", "BA.W",
                                  "BA.J", "BA.D", "BA.L", "BA.B", "BA.H"};
const int short_deck_len = (int)(sizeof short_deck / sizeof short_deck[0]);

/* A started two-player game: a hosts (seat 0), b joined (seat 1). */
struct room *two_player_game(struct fake **pa, struct fake **pb)
{
    ck_assert_int_eq(lobby_test_game(lb, 7, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new();
    struct room *r = create(a, "2");
    join(b, a->room, "Bob");
    expect(a, "delta");
    say(a, "\"type\":\"start\",\"id\":2");
    const char *d = expect(a, "delta");
    ck_assert_str_eq(jstr(d, "events.0.type"), "start");
    expect(b, "delta");
    ck_assert_int_eq(r->phase, PROTO_PHASE_PLAYING);
    *pa = a;
    *pb = b;
    return r;
}

struct fake *current(struct room *r, struct fake *a, struct fake *b)
{
    return r->game->current == a->seat ? a : b;
}

int room_move_json(const struct room *r, int i, char *buf, size_t size)
{
    char *text = room__move_text(r, i);
    size_t n = text != NULL ? strlen(text) : 0;
    int ok = text != NULL && n < size;
    if (ok)
        memcpy(buf, text, n + 1);
    free(text);
    return ok ? (int)n : -1;
}
