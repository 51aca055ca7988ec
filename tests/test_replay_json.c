/* test_replay_json.c: proto_replay_encode (protocol/replay_json.h), the
 * document of GET /api/games/{id}/replay, checked against the engine: the
 * real games of tests/data/games and random games of every set. Per move:
 * its scores are the previous ones plus its events' deltas, its events are
 * the turn's history events, its meeples are the engine board's; the final
 * scores are carc-replay's. Run from the repository root. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "event_json.h"
#include "history.h"
#include "record_json.h"
#include "replay_json.h"
#include "rng.h"
#include "tests.h"

Suite *suite_replay_json(void);

/* The engine state of a check: large, so static. */
static struct carc_record rec;
static struct carc_game game;

static int ints_of(const char *text, const char *path, long long *out)
{
    return proto_json_path_ints(text, strlen(text), path, out, CARC_MAX_PLAYERS);
}

/* The value at path of text, compact (malloc'd), or NULL. */
static char *dump_at(const char *text, const char *path)
{
    return proto_json_path_dump(text, strlen(text), path);
}

/* The expected "meeples" of g: every meeple, in tile placement order. */
static void meeples_expect(const struct carc_game *g, char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "[");
    for (int i = 0; i < g->ntiles; i++) {
        const struct carc_tile *t = &carc_tiles[g->placed[i].type];
        for (int s = 0; s < t->nsegs; s++) {
            uint8_t mp = g->nodes[carc_game_node(g, i, s)].meeple;
            if (mp == 0)
                continue;
            n += (size_t)snprintf(out + n, size - n,
                                  "%s{\"x\":%d,\"y\":%d,\"player\":%d,\"feature\":\"%s\","
                                  "\"kind\":\"%s\"}",
                                  n > 1 ? "," : "", g->placed[i].x, g->placed[i].y,
                                  (mp & ~CARC_MEEPLE_LARGE) - 1, t->segs[s].name,
                                  (mp & CARC_MEEPLE_LARGE) ? "large" : "normal");
        }
    }
    snprintf(out + n, size - n, "]");
}

/* The text between the outer brackets of a JSON array's text. */
static const char *inner(char *arr)
{
    arr[strlen(arr) - 1] = '\0';
    return arr + 1;
}

/* Add the deltas of the events of list (a JSON array's text) to sum. */
static void deltas_add(const char *list, long long *sum, int n)
{
    char key[32];
    for (int k = 0;; k++) {
        snprintf(key, sizeof key, "%d", k);
        char *ev = dump_at(list, key);
        if (ev == NULL)
            break;
        long long d[CARC_MAX_PLAYERS];
        int nd = ints_of(ev, "delta", d);
        if (nd >= 0) {
            ck_assert_int_eq(nd, n);
            for (int p = 0; p < n; p++)
                sum[p] += d[p];
        }
        free(ev);
    }
}

/* Everything this file checks of one record: returns the replay document
 * (malloc'd) for callers that check more. */
static char *check_replay(const char *what, const char *text)
{
    char *doc = NULL;
    struct proto_error err;
    proto_error_init(&err);
    int rc = proto_replay_encode("g1", text, strlen(text), &doc, &err);
    ck_assert_msg(rc == 0, "%s: %s %s %s", what, carc_err_name(rc), err.field, err.text);
    ck_assert_ptr_nonnull(doc);
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_load(text, strlen(text), 0, &rec, &err), 0);
    struct carc_config cfg;
    carc_record_config(&rec, &cfg);
    char *hist = proto_history_encode(&cfg, rec.moves, rec.nmoves, NULL, 0, NULL);
    ck_assert_ptr_nonnull(hist);

    char key[64], fmt[16];
    ck_assert_int_eq(proto_json_path_string(doc, strlen(doc), "format", fmt, sizeof fmt), 0);
    ck_assert_str_eq(fmt, PROTO_REPLAY_FORMAT);
    memset(&game, 0, sizeof game);
    struct carc_error cerr = {0, ""};
    ck_assert_int_eq(carc_record_start(&rec, &game, &cerr), 0);
    int n = game.nplayers;
    long long sum[CARC_MAX_PLAYERS] = {0}, got[CARC_MAX_PLAYERS];
    static char want[16384];
    for (int i = 0; i < rec.nmoves; i++) {
        int mover = game.current;
        ck_assert_int_eq(carc_record_step(&rec, i, &game, &cerr), 0);
        snprintf(key, sizeof key, "moves.%d", i);
        char *mv = dump_at(doc, key);
        ck_assert_msg(mv != NULL, "%s: no move %d", what, i);
        long long v;
        ck_assert_int_eq(proto_json_path_int(mv, strlen(mv), "move", &v), 0);
        ck_assert_int_eq(v, i);
        ck_assert_int_eq(proto_json_path_int(mv, strlen(mv), "player", &v), 0);
        ck_assert_int_eq(v, mover);

        /* Scores: the running sum of the events' deltas. */
        char *events = dump_at(mv, "events");
        ck_assert_ptr_nonnull(events);
        deltas_add(events, sum, n);
        ck_assert_int_eq(ints_of(mv, "scores", got), n);
        for (int p = 0; p < n; p++)
            ck_assert_msg(got[p] == sum[p], "%s move %d seat %d: scores %lld, deltas add to %lld",
                          what, i, p, got[p], sum[p]);

        /* Events: the history's (the delta's) of that turn, end-game ones apart. */
        snprintf(key, sizeof key, "turns.%d.events", i);
        char *turn = dump_at(hist, key);
        ck_assert_ptr_nonnull(turn);
        if (i < rec.nmoves - 1 || game.phase != CARC_PHASE_OVER) {
            ck_assert_str_eq(events, turn);
        } else {
            char *fin = dump_at(doc, "final.events");
            ck_assert_ptr_nonnull(fin);
            snprintf(want, sizeof want, "[%s%s%s]", inner(events), strlen(fin) > 2 ? "," : "",
                     inner(fin));
            ck_assert_str_eq(want, turn);
            free(fin);
        }
        free(turn);
        free(events);

        /* Meeples: the engine board's after the move. */
        char *meeples = dump_at(mv, "meeples");
        ck_assert_ptr_nonnull(meeples);
        meeples_expect(&game, want, sizeof want);
        ck_assert_str_eq(meeples, want);
        free(meeples);
        free(mv);
    }
    snprintf(key, sizeof key, "moves.%d", rec.nmoves);
    ck_assert_ptr_null(dump_at(doc, key));

    /* Final: carc-replay's last line, and the last move's scores plus final.events. */
    char *end = proto_replay_end_line(&game);
    long long want_final[CARC_MAX_PLAYERS];
    ck_assert_int_eq(ints_of(end, "scores", want_final), n);
    ck_assert_int_eq(ints_of(doc, "final.scores", got), n);
    for (int p = 0; p < n; p++)
        ck_assert_int_eq(got[p], want_final[p]);
    char *fin = dump_at(doc, "final.events");
    deltas_add(fin, sum, n);
    for (int p = 0; p < n; p++)
        ck_assert_int_eq(got[p], sum[p]);
    char *over = dump_at(doc, "final.over");
    ck_assert_str_eq(over, game.phase == CARC_PHASE_OVER ? "true" : "false");
    free(over);
    free(fin);
    free(end);
    free(hist);
    return doc;
}

START_TEST(test_replay_json_real_games)
{
    DIR *dir = opendir("tests/data/games");
    ck_assert_ptr_nonnull(dir);
    int games = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (!test_has_suffix(e->d_name, ".json"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "tests/data/games/%s", e->d_name);
        size_t len;
        char *text = test_file_read(path, &len);
        ck_assert_ptr_nonnull(text);
        char *record = proto_json_path_dump(text, len, "record");
        ck_assert_ptr_nonnull(record);
        char *doc = check_replay(path, record);
        /* The scores the site showed after each tile, and at the end. */
        long long want[CARC_MAX_PLAYERS], got[CARC_MAX_PLAYERS];
        char key[64];
        for (int i = 0; i < rec.nmoves; i++) {
            snprintf(key, sizeof key, "expect.scores_after_move.%d", i);
            int nw = proto_json_path_ints(text, len, key, want, CARC_MAX_PLAYERS);
            snprintf(key, sizeof key, "moves.%d.scores", i);
            ck_assert_int_eq(ints_of(doc, key, got), nw);
            for (int p = 0; p < nw; p++)
                ck_assert_int_eq(got[p], want[p]);
        }
        char *applies = proto_json_path_dump(text, len, "expect.final_applies");
        if (applies == NULL || strcmp(applies, "false") != 0) {
            int nw = proto_json_path_ints(text, len, "expect.final", want, CARC_MAX_PLAYERS);
            ck_assert_int_eq(ints_of(doc, "final.scores", got), nw);
            for (int p = 0; p < nw; p++)
                ck_assert_int_eq(got[p], want[p]);
        }
        char id[8];
        ck_assert_int_eq(proto_json_path_string(doc, strlen(doc), "id", id, sizeof id), 0);
        ck_assert_str_eq(id, "g1");
        free(applies);
        free(doc);
        free(record);
        free(text);
        games++;
    }
    closedir(dir);
    ck_assert_int_ge(games, 2);
}
END_TEST

/* A random game of the given sets as record text (malloc'd): random legal
 * placements, a meeple (now and then the large one) on a random free spot. */
static char *random_record(unsigned sets, int nplayers, uint64_t seed)
{
    memset(&rec, 0, sizeof rec);
    rec.sets = sets;
    rec.nplayers = nplayers;
    for (int p = 0; p < nplayers; p++)
        snprintf(rec.names[p], sizeof rec.names[p], "P%d", p + 1);
    rec.start = carc_tile_find("BA.D");
    rec.has_seed = 1;
    rec.seed = seed;
    struct carc_config cfg;
    carc_record_config(&rec, &cfg);
    memset(&game, 0, sizeof game);
    struct carc_error cerr = {0, ""};
    ck_assert_int_eq(carc_game_init(&game, &cfg, &cerr), 0);
    struct carc_rng rng;
    carc_rng_seed(&rng, seed);
    while (game.phase != CARC_PHASE_OVER && rec.nmoves < CARC_MAX_MOVES) {
        int t = game.tile, count = carc_game_placements(&game, t, NULL, 0);
        ck_assert_int_gt(count, 0);
        struct carc_placement pl;
        ck_assert_int_eq(carc_game_placement_nth(&game, t, (int)carc_rng_below(&rng, count), &pl),
                         0);
        struct carc_move m = {game.current, t, pl.x, pl.y, pl.rot, -1, 0, 0, 0, 0, 0, 0};
        unsigned spots = carc_game_meeple_spots(&game, t, pl.x, pl.y, pl.rot);
        const struct carc_player *me = &game.players[game.current];
        if (spots != 0 && carc_rng_below(&rng, 2) == 0 && (me->meeples > 0 || me->large > 0)) {
            int k = (int)carc_rng_below(&rng, (uint32_t)__builtin_popcount(spots));
            for (int s = 0; s < 32; s++)
                if ((spots & (1u << s)) && k-- == 0)
                    m.seg = s;
            m.large = me->large > 0 && (me->meeples == 0 || carc_rng_below(&rng, 4) == 0);
        }
        ck_assert_msg(carc_game_play(&game, &m, &cerr) == 0, "%s", cerr.text);
        rec.moves[rec.nmoves++] = m;
    }
    char *text = NULL;
    struct proto_error err;
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_dump(&rec, 0, &text, &err), 0);
    return text;
}

START_TEST(test_replay_json_random_games)
{
    static const struct {
        unsigned sets;
        int players;
    } cases[] = {{1u << CARC_SET_BASE, 2}, {CARC_SETS_ALL, 4}, {CARC_SETS_ALL, 6}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            char *text = random_record(cases[c].sets, cases[c].players, seed);
            char what[64];
            snprintf(what, sizeof what, "random game %zu seed %llu", c, (unsigned long long)seed);
            free(check_replay(what, text));
            free(text);
        }
}
END_TEST

/* A record that stops early (an abandoned game) replays to "over": false. */
START_TEST(test_replay_json_stopped)
{
    char *text = random_record(1u << CARC_SET_BASE, 3, 9);
    rec.nmoves = 10;
    free(text);
    struct proto_error err;
    proto_error_init(&err);
    snprintf(rec.closed, sizeof rec.closed, "room-ttl");
    ck_assert_int_eq(proto_record_dump(&rec, 0, &text, &err), 0);
    char *doc = check_replay("stopped game", text);
    char *v = dump_at(doc, "final");
    ck_assert_ptr_nonnull(strstr(v, "\"over\":false"));
    ck_assert_ptr_nonnull(strstr(v, "\"events\":[]"));
    free(v);
    v = dump_at(doc, "closed");
    ck_assert_str_eq(v, "\"room-ttl\"");
    free(v);
    free(doc);
    free(text);
}
END_TEST

/* Replace the first `from` in text by `to` (malloc'd copy). */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    ck_assert_ptr_nonnull(at);
    size_t a = (size_t)(at - text), n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    ck_assert_ptr_nonnull(out);
    memcpy(out, text, a);
    strcpy(out + a, to);
    strcat(out, at + strlen(from));
    return out;
}

static void check_corrupt(const char *text, int code, int move)
{
    char *doc = (char *)"untouched";
    struct proto_error err;
    proto_error_init(&err);
    int rc = proto_replay_encode("g1", text, strlen(text), &doc, &err);
    ck_assert_msg(rc == code, "got %s (%s), want %s", carc_err_name(rc), err.text,
                  carc_err_name(code));
    ck_assert_ptr_null(doc);
    ck_assert_int_eq(err.code, code);
    ck_assert_int_eq(err.move, move);
    ck_assert(err.text[0] != '\0');
    /* err may be NULL too. */
    ck_assert_int_eq(proto_replay_encode("g1", text, strlen(text), &doc, NULL), code);
    ck_assert_ptr_null(doc);
}

START_TEST(test_replay_json_corrupt)
{
    char *text = random_record(1u << CARC_SET_BASE, 2, 5);
    check_corrupt("{", CARC_E_JSON, -1);
    check_corrupt("{\"format\":\"carcassonne-game/1\"}", CARC_E_RECORD, -1);
    /* The first move placed off the board: the engine refuses it. */
    char want[64];
    snprintf(want, sizeof want, "\"x\":%d,\"y\":%d,", rec.moves[0].x, rec.moves[0].y);
    char *bad = replace(text, want, "\"x\":9,\"y\":9,");
    check_corrupt(bad, CARC_E_ADJACENT, 0);
    free(bad);
    /* A move after the end. */
    size_t n = strlen(text);
    ck_assert(n > 3 && strcmp(text + n - 2, "]}") == 0);
    char *extra = malloc(n + 64);
    ck_assert_ptr_nonnull(extra);
    memcpy(extra, text, n - 2);
    strcpy(extra + n - 2, ",{\"tile\":\"BA.D\",\"x\":50,\"y\":50,\"rot\":0}]}");
    check_corrupt(extra, CARC_E_OVER, rec.nmoves);
    free(extra);
    free(text);
}
END_TEST

/* The route replays on the loop: one 72-tile game must stay well under a
 * millisecond or so (about 0.25 ms with -O2); printed for the record. */
START_TEST(test_replay_json_time)
{
    size_t len;
    char *text = test_file_read("tests/data/games/bga-366166200.json", &len);
    ck_assert_ptr_nonnull(text);
    char *record = proto_json_path_dump(text, len, "record");
    ck_assert_ptr_nonnull(record);
    enum { RUNS = 50 };
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < RUNS; i++) {
        char *doc = NULL;
        ck_assert_int_eq(proto_replay_encode("g1", record, strlen(record), &doc, NULL), 0);
        free(doc);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double us =
        ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / RUNS;
    fprintf(stderr, "replay_json: %.0f us per replay of a 72-tile game\n", us);
    ck_assert_msg(us < 20000, "%.0f us per replay", us); /* generous: sanitizers, slow CI */
    free(record);
    free(text);
}
END_TEST

Suite *suite_replay_json(void)
{
    Suite *s = suite_create("replay_json");
    TCase *tc = tcase_create("replay_json");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_replay_json_real_games);
    tcase_add_test(tc, test_replay_json_random_games);
    tcase_add_test(tc, test_replay_json_stopped);
    tcase_add_test(tc, test_replay_json_corrupt);
    tcase_add_test(tc, test_replay_json_time);
    suite_add_tcase(s, tc);
    return s;
}
