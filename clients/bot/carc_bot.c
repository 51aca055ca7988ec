/* carc-bot: an example bot that plays carcd's protocol v2 over a WebSocket.
 *
 *   carc-bot --url ws://127.0.0.1:8080/ws --room ID [--name Bot]
 *   carc-bot --url ws://127.0.0.1:8080/ws --create [--seats 2] [--sets base,...] [--start-when N]
 *
 * It joins (or creates and hosts) a room and plays to the end of the game.
 * Each turn it rebuilds the position in a local carc_game from the public
 * state (proto_client_game: the draw pile in catalogue order, since the true
 * order is secret) and asks the built-in bots' search (common/bot.h,
 * carc_bot_choose) for a move at --level random, greedy (the default: best
 * immediate own gain, ties to the best end-of-game margin) or strong (flat UCB
 * over determinized playouts, --budget playouts). As host it starts the game
 * when --start-when seats (default all) are taken. It prints the room id (`room ID`), then `final
 * scores: ...`, and exits 0 when the game is over; 1 on errors, 2 on usage. All JSON goes through
 * protocol/client.h.
 *
 * Behind a cluster of carcd nodes (route.h) it follows a `redirect` to the room's node, and
 * when a connection ends with 1001, 4003 or no close frame it reconnects to --url (never to a
 * redirected path) and resumes its seat with its token and last seq. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "botlib.h"
#include "client.h"
#include "game.h"
#include "route.h"
#include "ws.h"

#define MAX_LEGAL 1024 /* CARC_MAX_FRONTIER positions x 4 rotations */
#define MAX_RESUMES 20 /* reconnections in one game before giving up */

struct bot {
    struct ws_conn ws;
    struct proto_client_doc *doc;
    struct carc_game *g; /* the position rebuilt from the document */
    struct carc_bot_search *search;
    struct proto_client_legal *legal;
    uint64_t rng;
    int level;   /* enum carc_bot_level */
    long budget; /* playouts of the strong level, 0: its default */
    int host, start_when, start_sent;
    long long acted_seq; /* the doc seq we last played for */
    int play_id;         /* id of our last play */
    int refused;         /* plays refused in a row */
    int pending;         /* our last play is unanswered (no ack or error yet): a delta that
                            comes meanwhile (a seat connecting) is not a new turn */
    int resuming;        /* resumed: wait for the pong that follows the catch-up */
    int quiet;
    struct route route; /* the base URL and how redirects are followed (route.h) */
    char room[PROTO_ROOM_MAX];
    char token[PROTO_TOKEN_MAX]; /* our seat's, for `resume` after a reconnect */
    int resumes;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: carc-bot --url ws://HOST:PORT/ws (--room ID | --create) [options]\n"
            "  --name NAME       player name (default Bot)\n"
            "  --create          create a room and host it; prints `room ID`\n"
            "  --seats N         seats of the created room (2-6, default 2)\n"
            "  --sets A,B        sets of the created room (default base)\n"
            "  --start-when N    start when N seats are taken (default: all)\n"
            "  --password P      password of the room to join\n"
            "  --seed S          seed of the bot's choices\n"
            "  --level L         random, greedy (default) or strong\n"
            "  --budget N        playouts per move of the strong level (default %d)\n"
            "  --random          the same as --level random\n"
            "  --quiet           print only the room id and the final scores\n",
            CARC_BOT_STRONG_BUDGET);
}

/* The bot's move (carc_bot_choose at b->level on the rebuilt position) as a
 * `play` message, or NULL (no document, the search found nothing, out of
 * memory). */
static char *search_play(struct bot *b, const char *id)
{
    struct carc_error err = {0};
    if (proto_client_game(b->doc, b->g, &err) != 0) {
        fprintf(stderr, "carc-bot: cannot rebuild the position: %s\n", err.text);
        return NULL;
    }
    struct carc_move m;
    int rc = carc_bot_choose(b->search, b->g, b->level, bot_rand(&b->rng), b->budget, NULL, &m);
    if (rc != 0) {
        fprintf(stderr, "carc-bot: no move: %s\n", carc_err_name(rc));
        return NULL;
    }
    struct proto_client_spot escape = {m.ex, m.ey, m.eseg, ""};
    if (m.escape) {
        int idx = carc_game_tile_at(b->g, m.ex, m.ey) - 1;
        if (idx < 0)
            return NULL;
        snprintf(escape.feature, sizeof escape.feature, "%s",
                 carc_tiles[b->g->placed[idx].type].segs[m.eseg].name);
    }
    if (!b->quiet)
        printf("turn %d: %s at %d,%d rot %d%s%s%s\n", proto_client_turn(b->doc),
               carc_tiles[m.tile].id, m.x, m.y, m.rot * 90, m.seg >= 0 ? " meeple " : "",
               m.seg >= 0 ? carc_tiles[m.tile].segs[m.seg].name : "",
               m.escape ? " with an escape" : "");
    return proto_client_encode_play(m.tile, m.x, m.y, m.rot, m.seg, m.large,
                                    m.escape ? &escape : NULL, id);
}

static void print_scores(struct bot *b)
{
    printf("final scores:");
    int n = proto_client_nseats(b->doc);
    for (int i = 0; i < n; i++) {
        struct proto_client_seat s;
        proto_client_seat_get(b->doc, i, &s);
        printf("%s %s %d", i ? "," : "", s.name, s.score);
    }
    printf(" (we are seat %d)\n", proto_client_seat(b->doc));
    fflush(stdout);
}

/* After the document changed: start, play, or finish. Returns 1 when the game
 * is over, 0 to go on, -1 on a send error. */
static int act(struct bot *b)
{
    int phase = proto_client_phase(b->doc);
    if (phase == PROTO_PHASE_OVER) {
        print_scores(b);
        return 1;
    }
    if (phase == PROTO_PHASE_LOBBY && b->host && !b->start_sent) {
        int taken = 0, n = proto_client_nseats(b->doc);
        for (int i = 0; i < n; i++) {
            struct proto_client_seat s;
            if (proto_client_seat_get(b->doc, i, &s) == 0 && s.taken)
                taken++;
        }
        if (taken >= (b->start_when > 0 ? b->start_when : n)) {
            b->start_sent = 1;
            return bot_send_take(&b->ws, proto_client_encode_simple(PROTO_T_START, "\"start\"")) < 0
                       ? -1
                       : 0;
        }
        return 0;
    }
    long long seq = proto_client_doc_seq(b->doc);
    /* The turn starts with our `legal` message (PROTOCOL.md), which follows
     * the delta or state that gave it. */
    if (!proto_client_my_turn(b->doc) || !proto_client_legal_ready(b->doc) || seq == b->acted_seq ||
        b->pending || b->resuming)
        return 0;
    char id[32];
    snprintf(id, sizeof id, "%d", ++b->play_id);
    char *msg = b->refused > 0 ? bot_random_play(b->doc, &b->rng, b->legal, MAX_LEGAL, id)
                               : search_play(b, id);
    if (msg == NULL)
        msg = bot_random_play(b->doc, &b->rng, b->legal, MAX_LEGAL, id);
    b->acted_seq = seq;
    b->pending = 1;
    return bot_send_take(&b->ws, msg) < 0 ? -1 : 0;
}

/* Connect through b->route, send msg and handle its answer: `joined` (the
 * first one is printed as `room ID`), or an error (printed). Returns 0 when
 * seated, -1 otherwise. */
static int enter(struct bot *b, const char *msg)
{
    struct proto_client_event ev;
    if (route_enter(&b->route, &b->ws, msg, &ev) < 0) {
        fprintf(stderr, "carc-bot: %s\n", b->ws.err);
        return -1;
    }
    if (ev.type != PROTO_S_JOINED) {
        fprintf(stderr, "carc-bot: error %s: %s (ref %s)\n", ev.code_name, ev.message, ev.ref);
        ws_close(&b->ws, 1000);
        return -1;
    }
    if (ev.token[0] != '\0')
        snprintf(b->token, sizeof b->token, "%s", ev.token);
    if (b->room[0] == '\0') {
        snprintf(b->room, sizeof b->room, "%s", ev.room);
        proto_client_seat_set(b->doc, ev.seat);
        printf("room %s\n", ev.room);
        if (!b->quiet)
            printf("seat %d\n", ev.seat);
        fflush(stdout);
    }
    return 0;
}

/* After the connection ended: when its close code says so (route_should_resume),
 * `resume` our seat through the base URL with the last seq we hold, which
 * brings the missing deltas (or a state) and our `legal` if it is our turn.
 * A play the old connection carried may be lost: act again once caught up,
 * which the `pong` of a ping sent after the resume says (it comes after them:
 * acting on the first of them could repeat a play that was made).
 * Returns 0 when seated again, -1 to give up. */
static int reconnect(struct bot *b)
{
    int code = b->ws.close_code;
    ws_close(&b->ws, 0);
    if (b->token[0] == '\0' || !route_should_resume(code) || ++b->resumes > MAX_RESUMES)
        return -1;
    char *msg =
        proto_client_encode_resume(b->room, b->token, proto_client_doc_seq(b->doc), "\"resume\"");
    if (msg == NULL)
        return -1;
    if (!b->quiet)
        fprintf(stderr, "carc-bot: resuming room %s (close code %d)\n", b->room, code);
    b->route.retry_base = 1;
    int rc = enter(b, msg);
    free(msg);
    b->acted_seq = -1;
    b->pending = 0;
    b->resuming = 1;
    if (rc == 0 &&
        bot_send_take(&b->ws, proto_client_encode_simple(PROTO_T_PING, "\"caught\"")) < 0)
        rc = -1;
    return rc;
}

int main(int argc, char **argv)
{
    const char *url = NULL, *room = NULL, *name = "Bot", *sets_arg = "base", *password = NULL;
    int create = 0, seats = 2;
    static struct bot b;
    b.rng = 0x9E3779B97F4A7C15ull;
    b.level = CARC_BOT_GREEDY;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int used = 1;
        if (strcmp(a, "--url") == 0 && v)
            url = v;
        else if (strcmp(a, "--room") == 0 && v)
            room = v;
        else if (strcmp(a, "--name") == 0 && v)
            name = v;
        else if (strcmp(a, "--seats") == 0 && v)
            seats = atoi(v);
        else if (strcmp(a, "--sets") == 0 && v)
            sets_arg = v;
        else if (strcmp(a, "--start-when") == 0 && v)
            b.start_when = atoi(v);
        else if (strcmp(a, "--password") == 0 && v)
            password = v;
        else if (strcmp(a, "--seed") == 0 && v)
            b.rng = strtoull(v, NULL, 0) | 1;
        else if (strcmp(a, "--level") == 0 && v && carc_bot_level_find(v) >= 0)
            b.level = carc_bot_level_find(v);
        else if (strcmp(a, "--budget") == 0 && v && atol(v) >= 0)
            b.budget = atol(v);
        else {
            used = 0;
            if (strcmp(a, "--create") == 0)
                create = 1;
            else if (strcmp(a, "--random") == 0)
                b.level = CARC_BOT_RANDOM;
            else if (strcmp(a, "--quiet") == 0)
                b.quiet = 1;
            else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
                usage(stdout);
                return 0;
            } else {
                fprintf(stderr, "carc-bot: unknown or incomplete option %s\n", a);
                usage(stderr);
                return 2;
            }
        }
        i += used;
    }
    if (url == NULL || (create == (room != NULL)) || seats < 2 || seats > 6) {
        usage(stderr);
        return 2;
    }
    unsigned sets = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", sets_arg);
    for (char *s = strtok(buf, ","); s != NULL; s = strtok(NULL, ",")) {
        int k = carc_set_find(s);
        if (k < 0) {
            fprintf(stderr, "carc-bot: unknown set %s\n", s);
            return 2;
        }
        sets |= 1u << k;
    }
    b.host = create;
    b.acted_seq = -1;
    b.doc = proto_client_doc_new();
    b.g = malloc(sizeof *b.g);
    b.search = malloc(sizeof *b.search);
    b.legal = malloc(MAX_LEGAL * sizeof *b.legal);
    if (!b.doc || !b.g || !b.search || !b.legal) {
        fprintf(stderr, "carc-bot: out of memory\n");
        return 1;
    }
    char *hello;
    if (create) {
        hello = proto_client_encode_create(name, seats, sets | 1u, "\"hello\"");
    } else if (password != NULL) {
        struct proto_msg m = {.type = PROTO_T_JOIN};
        snprintf(m.id, sizeof m.id, "\"hello\"");
        snprintf(m.u.join.room, sizeof m.u.join.room, "%s", room);
        snprintf(m.u.join.name, sizeof m.u.join.name, "%s", name);
        snprintf(m.u.join.password, sizeof m.u.join.password, "%s", password);
        hello = proto_client_encode(&m);
    } else {
        hello = proto_client_encode_join(room, name, "\"hello\"");
    }
    b.route = (struct route){.base = url, .log = b.quiet ? NULL : stderr, .who = "carc-bot"};
    int er = hello != NULL ? enter(&b, hello) : -1;
    free(hello);
    if (er < 0)
        return 1;
    int status = 1;
    for (;;) {
        const char *text;
        size_t len;
        int rc = ws_recv(&b.ws, &text, &len, 600000);
        if (rc == WS_AGAIN) {
            fprintf(stderr, "carc-bot: nothing heard for 10 minutes\n");
            break;
        }
        if (rc < 0) {
            fprintf(stderr, "carc-bot: connection ended (%s, close code %d)\n",
                    rc == WS_CLOSED ? "closed" : b.ws.err, b.ws.close_code);
            if (reconnect(&b) < 0)
                break;
            continue;
        }
        struct proto_client_event ev;
        int hr = proto_client_handle(b.doc, text, len, &ev);
        if (hr < 0 && ev.type != PROTO_S_DELTA) {
            fprintf(stderr, "carc-bot: unreadable message (%s): %.200s\n", carc_err_name(hr), text);
            continue;
        }
        if (ev.type == PROTO_S_ERROR) {
            fprintf(stderr, "carc-bot: error %s: %s (ref %s)\n", ev.code_name, ev.message, ev.ref);
            if (strcmp(ev.ref, "\"hello\"") == 0 || strcmp(ev.ref, "\"start\"") == 0 ||
                strcmp(ev.ref, "\"resume\"") == 0)
                break;
            if (ev.ref_num == b.play_id)
                b.pending = 0;
            if (ev.ref_num == b.play_id && ++b.refused < 20) {
                b.acted_seq = -1; /* try again, at random this time */
                if (act(&b) < 0)
                    break;
            }
            continue;
        }
        if (hr < 0 || ev.gap) { /* lost track: ask for what we missed, or a snapshot */
            long long seq = proto_client_doc_seq(b.doc);
            bot_send_take(&b.ws, proto_client_encode_sync(seq >= 0 ? seq : 0, NULL));
            continue;
        }
        int answer = 0; /* our play's ack, or the pong after a resume: act now */
        if (ev.type == PROTO_S_ACK && ev.ref_num == b.play_id) {
            b.refused = b.pending = 0;
            answer = 1;
        }
        if (ev.type == PROTO_S_PONG && strcmp(ev.ref, "\"caught\"") == 0) {
            b.resuming = 0;
            answer = 1;
        }
        if (!ev.applied && ev.type != PROTO_S_LEGAL && !answer)
            continue;
        int r = act(&b);
        if (r < 0) {
            fprintf(stderr, "carc-bot: %s\n", b.ws.err);
            break;
        }
        if (r == 1) {
            status = 0;
            break;
        }
    }
    ws_close(&b.ws, 1000);
    proto_client_doc_free(b.doc);
    free(b.g);
    free(b.search);
    free(b.legal);
    return status;
}
