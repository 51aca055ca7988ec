/* carc-replay: validate and play a game record, print what happened.
 *
 * Usage: carc-replay FILE     (FILE "-" reads standard input)
 *        carc-replay --legal FILE
 *
 * Output, JSON Lines on stdout (PROTOCOL.md "Game records"):
 *   {"move": i, "player": p, "tile": "BA.U", "scores": [..], "events": [..]}
 *       one per placed tile; scores after that turn's scoring step (end-game
 *       scoring, which the last move also triggers, is not in them); events of
 *       that turn without discards and end-game scoring.
 *   {"move": i, "player": p, "skip": "BA.U"}  a skipped turn (a clock's
 *       timeout): the tile went under the pile.
 *   {"discard": "BA.X"}  a drawn tile with no legal placement, after the line
 *       of the move that drew it (or first, for the very first draw).
 *   {"final": true, "scores": [..], "events": [..]}  after end-game scoring, or
 *   {"final": false, "scores": [..], "next": {"player": p, "tile": ".."}}  when
 *       the record stops before the game ends.
 *   {"error": {"move": i, "field": "moves[3].rot", "code": "..", "message": ".."}}
 *       last line when the record is malformed or a move is illegal: "move" is
 *       the move index, left out for errors of the record as a whole (format,
 *       players, sets, deck...); "field" names the offending JSON field when
 *       the record itself is wrong and is left out for illegal moves; "code" is
 *       the wire name of common/err.h. Moves after the game has ended are an
 *       error (game_over).
 * With --legal, instead of those lines, one per move before it is played:
 *   {"move": i, "player": p, "tile": "BA.U", "legal": [..]}  the mover's legal
 *       list as the `legal` message carries it (PROTOCOL.md "legal"), and one
 *       more for the next move when the record stops before the game ends.
 * Exit status: 0 played, 2 malformed record, illegal move or unreadable
 * input (message on stderr too), 64 usage, 74 output failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "record_json.h"
#include "state.h"
#include "tool_io.h"

#define EX_BAD 2
#define EX_USAGE 64
#define EX_IOERR 74

/* The game is large (board and union-find arrays): keep it off the stack. */
static struct carc_game game;
static struct carc_record rec;
static int legal_mode; /* --legal */

static void usage(void)
{
    fprintf(stderr, "usage: carc-replay [--legal] FILE\n"
                    "  Plays the game record in FILE (\"-\" for standard input) and prints\n"
                    "  one JSON line per placed tile, per discarded tile, and a last line\n"
                    "  with the final scores. Exit 2 on a malformed record or illegal move.\n"
                    "  --legal: one line per move instead, the mover's legal list before it.\n");
}

/* Print the line (taking it) and a newline; out of memory ends the run. */
static void emit(char *line)
{
    if (line == NULL) {
        fprintf(stderr, "carc-replay: out of memory\n");
        exit(EX_BAD);
    }
    puts(line);
    free(line);
}

static void fail(int move, const char *field, int code, const char *text)
{
    emit(proto_replay_error_line(move, field, code, text));
    fflush(stdout);
    if (move >= 0)
        fprintf(stderr, "carc-replay: move %d: %s: %s\n", move, carc_err_name(code), text);
    else
        fprintf(stderr, "carc-replay: %s: %s\n", carc_err_name(code), text);
    exit(EX_BAD);
}

/* --legal: the line of move i, before it is played. */
static void emit_legal(const struct carc_game *g, int i)
{
    if (g->phase != CARC_PHASE_PLACE)
        return;
    char *list = proto_legal_list(g);
    if (list == NULL)
        emit(NULL);
    printf("{\"move\": %d, \"player\": %d, \"tile\": \"%s\", \"legal\": %s}\n", i, g->current,
           carc_tiles[g->tile].id, list);
    free(list);
}

/* Discard lines for the DISCARD events of the last engine call. */
static void emit_discards(const struct carc_game *g)
{
    if (legal_mode)
        return;
    for (int i = 0; i < g->nevents; i++)
        if (g->events[i].type == CARC_EV_DISCARD)
            emit(proto_replay_discard_line(g->events[i].tile));
}

/* The record-level field an engine start error refers to. */
static const char *start_field(int code)
{
    switch (code) {
    case CARC_E_PLAYERS:
        return "players";
    case CARC_E_SETS:
        return "sets";
    case CARC_E_DECK:
        return "deck";
    default:
        return NULL;
    }
}

static void play(struct carc_game *g)
{
    struct carc_error cerr = {0, ""};
    int rc = carc_record_start(&rec, g, &cerr);
    if (rc != 0)
        fail(-1, start_field(rc), rc, cerr.text);
    emit_discards(g);
    for (int i = 0; i < rec.nmoves; i++) {
        struct proto_error perr;
        struct carc_move m;
        if (legal_mode)
            emit_legal(g, i);
        proto_error_init(&perr);
        rc = proto_record_move(&rec, i, g, &m, &perr);
        if (rc != 0)
            fail(i, NULL, rc, perr.text);
        rc = carc_game_play(g, &m, &cerr);
        if (rc != 0)
            fail(i, NULL, rc, cerr.text);
        if (legal_mode)
            continue;
        if (m.skip) {
            emit(proto_replay_skip_line(i, m.player, m.tile));
            emit_discards(g);
            continue;
        }
        int32_t scores[CARC_MAX_PLAYERS];
        proto_event_turn_scores(g, scores);
        emit(proto_replay_move_line(g, i, m.player, m.tile, scores));
        emit_discards(g);
    }
    if (legal_mode)
        emit_legal(g, rec.nmoves);
    else
        emit(proto_replay_end_line(g));
}

int main(int argc, char **argv)
{
    int a = 1;
    if (argc == 3 && strcmp(argv[1], "--legal") == 0) {
        legal_mode = 1;
        a = 2;
    }
    if (argc != a + 1 || argv[a][0] == '\0' || (argv[a][0] == '-' && argv[a][1] != '\0')) {
        usage();
        return EX_USAGE;
    }
    const char *path = argv[a];
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL)
        fail(-1, NULL, CARC_E_IO, "cannot open the record file");
    size_t len = 0;
    char *text = tool_input_read(f, PROTO_RECORD_MAX_BYTES, &len);
    if (f != stdin)
        fclose(f);
    if (text == NULL)
        fail(-1, NULL, CARC_E_IO, "cannot read the record");

    struct proto_error perr;
    proto_error_init(&perr);
    int rc = proto_record_load(text, len, PROTO_RECORD_MAX_BYTES, &rec, &perr);
    free(text);
    if (rc != 0)
        fail(perr.move, perr.field, rc, perr.text);
    play(&game);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "carc-replay: writing the output failed\n");
        return EX_IOERR;
    }
    return 0;
}
