/* fuzz_room.c: libFuzzer harness for the lobby and the room handler, driven by
 * decoded messages without sockets (the fake-session approach of
 * tests/room_util.c).
 *
 * The input is lines. A line starting with a digit 0-3 is a message from that
 * client (the digit stripped); `+` moves the clock 1 s and ticks the lobby and
 * the clocks, `~` closes and reopens that client's connection, `!K` makes it
 * send the K-th (a digit) legal placement of the newest room's drawn tile (`!KS`:
 * with a meeple on segment S); any
 * other line is a message from client 0. `@R` in a message stands for the
 * newest room's id (ids are random, so a fuzzer could not guess them). Every message the server
 * queues is fed to that client's protocol/client.h document, which must accept it (so each delta
 * applies to the state before it), and carc_game_check runs after every move
 * (the fuzzing build's -DCARC_FUZZ). Games are dealt from a fixed seed.
 * FUZZ_ROOM_TRACE=1 in the environment prints every message both ways. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "conn/session.h"
#include "game/lobby.h"
#include "game/room.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NCLIENTS 4

struct fake {
    struct session s; /* first: the sink gets &f->s */
    struct proto_client_doc *doc;
    int open;
};

static void fake_wake(struct session *s)
{
    (void)s;
}

static void fake_close(struct session *s)
{
    (void)s;
}

static const struct session_sink fake_sink = {fake_wake, fake_close};

static void fake_open(struct lobby *lb, struct fake *f, int i, uint64_t now)
{
    char peer[32];
    snprintf(peer, sizeof peer, "10.0.0.%d", i + 1);
    f->doc = proto_client_doc_new();
    session_init(&f->s, &fake_sink, f, &lb->lim, now);
    lobby_session_open(lb, &f->s, peer, now);
    f->open = 1;
}

static void fake_shut(struct lobby *lb, struct fake *f)
{
    if (!f->open)
        return;
    lobby_session_close(lb, &f->s);
    session_fini(&f->s);
    proto_client_doc_free(f->doc);
    f->open = 0;
}

static int trace;

/* Everything queued for f goes through its client document. */
static void fake_drain(struct fake *f, int i)
{
    struct sbuf *b;
    while ((b = session_peek(&f->s)) != NULL) {
        if (trace)
            fprintf(stderr, "%d <- %s\n", i, b->data);
        struct proto_client_event ev;
        int rc = proto_client_handle(f->doc, b->data, strlen(b->data), &ev);
        if (rc != 0) {
            fprintf(stderr, "the client library refused (%d): %s\n", rc, b->data);
            abort();
        }
        session_pop(&f->s);
    }
}

/* The message a line stands for, malloc'd and NUL-terminated as the transport
 * hands it to the lobby (the text may hold NUL bytes before its end). */
static char *line_text(const struct lobby *lb, const char *p, size_t len, size_t *outlen)
{
    const struct room *r = lb->newest;
    const struct carc_game *g = r != NULL ? r->game : NULL;
    if ((len == 2 || len == 3) && p[0] == '!') {
        char *out = malloc(200), meeple[64] = "null";
        struct carc_placement pl = {0, 0, 0};
        int tile = g != NULL ? g->tile : -1;
        int n = tile >= 0 ? carc_game_placements(g, tile, NULL, 0) : 0;
        if (n > 0)
            carc_game_placement_nth(g, tile, ((unsigned char)p[1] - '0') % (unsigned)n, &pl);
        int seg = len == 3 ? (unsigned char)p[2] - '0' : -1;
        if (n > 0 && seg >= 0 && seg < carc_tiles[tile].nsegs)
            snprintf(meeple, sizeof meeple, "{\"feature\":\"%s\"}",
                     carc_tiles[tile].segs[seg].name);
        snprintf(out, 200,
                 "{\"v\":2,\"type\":\"play\",\"tile\":\"%s\",\"x\":%d,\"y\":%d,\"rot\":%d,"
                 "\"meeple\":%s}",
                 tile >= 0 ? carc_tiles[tile].id : "BA.A", pl.x, pl.y, pl.rot * 90, meeple);
        *outlen = strlen(out);
        return out;
    }
    const char *id = r != NULL ? r->id : "none";
    size_t idlen = strlen(id);
    char *out = malloc(len * (idlen > 2 ? idlen : 2) + 1), *o = out;
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '@' && i + 1 < len && p[i + 1] == 'R') {
            memcpy(o, id, idlen);
            o += idlen;
            i++;
        } else {
            *o++ = p[i];
        }
    }
    *o = '\0';
    *outlen = (size_t)(o - out);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int quiet;
    if (!quiet) {
        log_level_set(LOG_ERROR);
        trace = getenv("FUZZ_ROOM_TRACE") != NULL;
        quiet = 1;
    }
    struct lobby_limits lim;
    lobby_limits_defaults(&lim);
    struct lobby *lb = lobby_new(&lim);
    lobby_test_game(lb, 1, NULL, 0);
    uint64_t now = 1000000;
    struct fake fakes[NCLIENTS];
    memset(fakes, 0, sizeof fakes);
    for (int i = 0; i < NCLIENTS; i++)
        fake_open(lb, &fakes[i], i, now);
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl != NULL ? nl : end;
        int who = 0;
        if (p < line_end && *p >= '0' && *p < '0' + NCLIENTS) {
            who = *p - '0';
            p++;
        }
        if (line_end - p == 1 && *p == '+') {
            now += 1000;
            lobby_tick(lb, now);
            lobby_clock_tick(lb, now);
        } else if (line_end - p == 1 && *p == '~') {
            fake_shut(lb, &fakes[who]);
            fake_open(lb, &fakes[who], who, now);
        } else if (fakes[who].open && !fakes[who].s.closing) {
            size_t len;
            char *text = line_text(lb, p, (size_t)(line_end - p), &len);
            if (trace)
                fprintf(stderr, "%d -> %.*s\n", who, (int)len, text);
            lobby_session_message(lb, &fakes[who].s, text, len, now);
            free(text);
            now += 60;
        }
        for (int i = 0; i < NCLIENTS; i++)
            if (fakes[i].open)
                fake_drain(&fakes[i], i);
        p = nl != NULL ? nl + 1 : end;
    }
    for (int i = 0; i < NCLIENTS; i++)
        fake_shut(lb, &fakes[i]);
    lobby_free(lb);
    return 0;
}
