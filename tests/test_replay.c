/* test_replay.c: the tools as a user runs them: carc-replay on the real games
 * of tests/data/games, carc-sim records replayed by carc-replay, and the
 * error lines and exit codes of bad records. Tools live in $CARC_BUILD
 * (default build/); run from the repository root. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Named by directory: a bare "record.h" is the engine's common/record.h. */
#include "event_json.h"
#include "record_json.h"
#include "tests.h"

#define MAX_LINES 512

struct run {
    char *out;              /* whole stdout, split in place into lines */
    char *lines[MAX_LINES]; /* non-empty lines */
    int nlines;
    int status; /* exit status, -1 when killed */
    int stderr_bytes;
};

static const char *build_dir(void)
{
    const char *b = getenv("CARC_BUILD");
    return b != NULL && b[0] != '\0' ? b : "build";
}

/* A new temporary file holding text; its path goes to path[32]. */
static void temp_file(char *path, const char *text)
{
    snprintf(path, 32, "/tmp/carc-test-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(fputs(text, f), 0);
    ck_assert_int_eq(fclose(f), 0);
}

/* Run `<build>/<tool> <args>` through the shell, stdout captured, stderr counted. */
static void run_tool(struct run *r, const char *tool, const char *args)
{
    char errpath[32], cmd[1024];
    size_t len;
    temp_file(errpath, "");
    snprintf(cmd, sizeof cmd, "%s/%s %s 2>%s", build_dir(), tool, args, errpath);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    r->out = test_stream_read(p, &len);
    ck_assert_ptr_nonnull(r->out);
    int st = pclose(p);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    char *err = test_file_read(errpath, &len);
    r->stderr_bytes = (int)len;
    free(err);
    unlink(errpath);
    r->nlines = 0;
    char *save = NULL;
    for (char *l = strtok_r(r->out, "\n", &save); l != NULL && r->nlines < MAX_LINES;
         l = strtok_r(NULL, "\n", &save))
        r->lines[r->nlines++] = l;
}

static const char *last_line(const struct run *r)
{
    ck_assert_int_gt(r->nlines, 0);
    return r->lines[r->nlines - 1];
}

static int line_is(const char *line, const char *path, const char *json)
{
    char *v = proto_json_path_dump(line, strlen(line), path);
    int same = v != NULL && strcmp(v, json) == 0;
    free(v);
    return same;
}

static void ints_eq(const long long *a, int na, const long long *b, int nb, const char *what)
{
    int same = na == nb;
    for (int i = 0; same && i < na; i++)
        same = a[i] == b[i];
    ck_assert_msg(same, "%s: scores differ", what);
}

/* Replay one real game and compare with its expectations. */
static void check_real_game(const char *path)
{
    size_t len;
    char tmp[32];
    char *text = test_file_read(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    char *inner = proto_json_path_dump(text, len, "record");
    ck_assert_msg(inner != NULL, "%s: no record", path);
    temp_file(tmp, inner);
    struct run r;
    run_tool(&r, "carc-replay", tmp);
    unlink(tmp);
    ck_assert_msg(r.status == 0, "%s: exit %d: %s", path, r.status, last_line(&r));

    int moves = 0;
    for (int i = 0; i < r.nlines; i++) {
        const char *l = r.lines[i];
        long long got[CARC_MAX_PLAYERS], want[CARC_MAX_PLAYERS], move;
        char key[64], what[600];
        if (proto_json_path_int(l, strlen(l), "move", &move) != 0)
            continue;
        ck_assert_int_eq(move, moves);
        snprintf(key, sizeof key, "expect.scores_after_move.%d", moves);
        snprintf(what, sizeof what, "%.200s move %d: %.300s", path, moves, l);
        int nw = proto_json_path_ints(text, len, key, want, CARC_MAX_PLAYERS);
        int ng = proto_json_path_ints(l, strlen(l), "scores", got, CARC_MAX_PLAYERS);
        ck_assert_msg(nw > 0, "%s: no %s", path, key);
        ints_eq(got, ng, want, nw, what);
        moves++;
    }
    char key[64];
    snprintf(key, sizeof key, "expect.scores_after_move.%d", moves);
    long long want[CARC_MAX_PLAYERS], got[CARC_MAX_PLAYERS];
    ck_assert_msg(proto_json_path_ints(text, len, key, want, CARC_MAX_PLAYERS) < 0,
                  "%s: replay stopped after %d moves", path, moves);

    const char *fin = last_line(&r);
    ck_assert_msg(line_is(fin, "final", "true"), "%s: last line %s", path, fin);
    if (!line_is(text, "expect.final_applies", "false")) {
        int nw = proto_json_path_ints(text, len, "expect.final", want, CARC_MAX_PLAYERS);
        int ng = proto_json_path_ints(fin, strlen(fin), "scores", got, CARC_MAX_PLAYERS);
        ints_eq(got, ng, want, nw, path);
    }
    free(r.out);
    free(inner);
    free(text);
}

START_TEST(replay_real_games)
{
    const char *dirpath = TEST_GAMES_DIR;
    DIR *dir = opendir(dirpath);
    ck_assert_msg(dir != NULL, "cannot open %s (run from the repository root)", dirpath);
    int games = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dirpath, e->d_name);
        check_real_game(path);
        games++;
    }
    closedir(dir);
    ck_assert_int_ge(games, 2);
}
END_TEST

/* carc-sim's first game, recorded and replayed, ends with the sim's scores.
 * Returns how many escape events the replay printed. */
static int check_sim_round_trip(const char *args)
{
    char tmp[32], cmd[512];
    temp_file(tmp, "");
    snprintf(cmd, sizeof cmd, "%s --record %s", args, tmp);
    struct run sim, rep;
    run_tool(&sim, "carc-sim", cmd);
    ck_assert_msg(sim.status == 0, "carc-sim %s: exit %d", cmd, sim.status);
    ck_assert_int_eq(sim.nlines, 2);
    double gps, tps;
    char tail;
    ck_assert_msg(sscanf(sim.lines[1], "games/s: %lf tiles/s: %lf%c", &gps, &tps, &tail) == 2,
                  "last line: %s", sim.lines[1]);
    ck_assert(gps > 0 && tps > gps);
    const char *s = strstr(sim.lines[0], "first game final scores: ");
    ck_assert_msg(s != NULL, "summary: %s", sim.lines[0]);
    s = strchr(s, '[');
    long long want[CARC_MAX_PLAYERS], got[CARC_MAX_PLAYERS];
    int nw = proto_json_path_ints(s, strlen(s), "", want, CARC_MAX_PLAYERS);

    /* The record is seed-based and loads back. */
    size_t len;
    static struct carc_record rec;
    struct proto_error err;
    char *text = test_file_read(tmp, &len);
    ck_assert_ptr_nonnull(text);
    proto_error_init(&err);
    ck_assert_msg(proto_record_load(text, len, 0, &rec, &err) == 0, "%s: %s", err.field, err.text);
    ck_assert_int_eq(rec.has_seed, 1);
    ck_assert_int_eq(rec.has_deck, 0);
    ck_assert_int_eq(rec.nplayers, nw);
    ck_assert_str_eq(rec.names[0], "P1");
    ck_assert_int_eq(rec.farm_rule, strstr(args, "--farms first")    ? CARC_FARMS_FIRST
                                    : strstr(args, "--farms second") ? CARC_FARMS_SECOND
                                                                     : CARC_FARMS_THIRD);
    ck_assert_int_eq(rec.small_city, strstr(args, "--small-city 2") != NULL);
    free(text);

    run_tool(&rep, "carc-replay", tmp);
    unlink(tmp);
    ck_assert_msg(rep.status == 0, "replay of carc-sim %s: %s", args, last_line(&rep));
    const char *fin = last_line(&rep);
    ck_assert_msg(line_is(fin, "final", "true"), "%s", fin);
    int ng = proto_json_path_ints(fin, strlen(fin), "scores", got, CARC_MAX_PLAYERS);
    ints_eq(got, ng, want, nw, args);
    int moves = 0;
    for (int i = 0; i < rep.nlines; i++)
        moves += strncmp(rep.lines[i], "{\"move\":", 8) == 0;
    ck_assert_int_eq(moves, rec.nmoves);
    int escapes = 0;
    for (int i = 0; i < rep.nlines; i++)
        for (const char *p = rep.lines[i]; (p = strstr(p, "\"type\":\"escape\"")) != NULL; p++)
            escapes++;
    free(sim.out);
    free(rep.out);
    return escapes;
}

START_TEST(replay_sim_base)
{
    check_sim_round_trip("--games 1 --seed 7");
}
END_TEST

START_TEST(replay_sim_all_sets)
{
    check_sim_round_trip("--games 1 --seed 7 --sets all --players 6");
    check_sim_round_trip("--games 3 --seed 11 --sets all --no-farmers --escape any-tile --escapes "
                         "--players 3");
    check_sim_round_trip("--games 1 --seed 5 --sets inns-cathedrals,apothecaries-tithes "
                         "--players 4");
}
END_TEST

/* Random games under every rule variant replay to the sim's scores: the record carries the
 * options (a replay under the default rules would differ). */
START_TEST(replay_sim_variants)
{
    static const char *const args[] = {
        "--games 1 --seed 3 --farms second --players 3",
        "--games 1 --seed 3 --farms first --players 4",
        "--games 2 --seed 9 --farms first --small-city 2 --sets all --escapes --players 5",
        "--games 1 --seed 4 --small-city 2",
        "--games 1 --seed 21 --farms second --small-city 2 --sets all --players 6",
    };
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        check_sim_round_trip(args[i]);
}
END_TEST

#define REC_HEAD                                                                                   \
    "{\"format\":\"carcassonne-game/1\",\"players\":[{\"name\":\"A\"},{\"name\":\"B\"}],"
#define MOVE_U "{\"tile\":\"BA.U\",\"x\":1,\"y\":0,\"rot\":0,\"meeple\":null}"

/* Replay text; returns the run (caller frees r->out). */
static void replay_text(struct run *r, const char *text)
{
    char tmp[32];
    temp_file(tmp, text);
    run_tool(r, "carc-replay", tmp);
    unlink(tmp);
}

static void check_error(const struct run *r, int move, const char *code, const char *field)
{
    const char *l = last_line(r);
    long long m;
    ck_assert_int_eq(r->status, 2);
    ck_assert_int_gt(r->stderr_bytes, 0);
    char got[64];
    ck_assert_int_eq(proto_json_path_string(l, strlen(l), "error.code", got, sizeof got), 0);
    ck_assert_msg(strcmp(got, code) == 0, "%s", l);
    if (move < 0)
        ck_assert_int_ne(proto_json_path_int(l, strlen(l), "error.move", &m), 0);
    else
        ck_assert_msg(proto_json_path_int(l, strlen(l), "error.move", &m) == 0 && m == move, "%s",
                      l);
    if (field != NULL)
        ck_assert_msg(line_is(l, "error.field", field), "%s", l);
    char msg[160];
    ck_assert_int_eq(proto_json_path_string(l, strlen(l), "error.message", msg, sizeof msg), 0);
    ck_assert_int_gt((int)strlen(msg), 0);
}

START_TEST(replay_malformed_record)
{
    struct run r;
    replay_text(&r, REC_HEAD "\"deck\":[\"BA.U\",\"BA.E\"],\"moves\":[" MOVE_U ","
                             "{\"tile\":\"BA.E\",\"x\":0,\"y\":-1,\"rot\":45}]}");
    check_error(&r, 1, "bad_rotation", "\"moves[1].rot\"");
    ck_assert_int_eq(r.nlines, 1); /* nothing is played from a malformed record */
    free(r.out);

    replay_text(&r, REC_HEAD "\"moves\":[}");
    check_error(&r, -1, "malformed_json", NULL);
    free(r.out);

    replay_text(&r, REC_HEAD "\"moves\":[],\"sets\":[\"base\",\"rivers\"]}");
    check_error(&r, -1, "bad_sets", "\"sets[1]\"");
    free(r.out);

    /* The engine refuses the configuration: a record-level error. */
    replay_text(&r, "{\"format\":\"carcassonne-game/1\",\"players\":[{\"name\":\"A\"},"
                    "{\"name\":\"B\"},{\"name\":\"C\"},{\"name\":\"D\"},{\"name\":\"E\"},"
                    "{\"name\":\"F\"}],\"moves\":[]}");
    check_error(&r, -1, "bad_player_count", "\"players\"");
    free(r.out);
}
END_TEST

START_TEST(replay_illegal_moves)
{
    struct run r;
    /* Not adjacent: move 0 is played and printed, move 1 fails. */
    replay_text(&r, REC_HEAD "\"deck\":[\"BA.U\",\"BA.E\",\"BA.B\"],\"moves\":[" MOVE_U ","
                             "{\"tile\":\"BA.E\",\"x\":5,\"y\":5,\"rot\":0}]}");
    check_error(&r, 1, "not_adjacent", NULL);
    ck_assert_int_eq(r.nlines, 2);
    ck_assert(line_is(r.lines[0], "move", "0"));
    free(r.out);

    replay_text(&r, REC_HEAD "\"deck\":[\"BA.U\",\"BA.E\"],\"moves\":["
                             "{\"tile\":\"BA.E\",\"x\":0,\"y\":-1,\"rot\":180}]}");
    check_error(&r, 0, "wrong_tile", NULL);
    free(r.out);

    replay_text(&r, REC_HEAD "\"deck\":[\"BA.U\",\"BA.E\"],\"moves\":["
                             "{\"tile\":\"BA.U\",\"x\":1,\"y\":0,\"rot\":90}]}");
    check_error(&r, 0, "edge_mismatch", NULL);
    free(r.out);

    /* Moves after the end of the game. */
    replay_text(&r, REC_HEAD "\"deck\":[\"BA.U\"],\"moves\":[" MOVE_U "," MOVE_U "]}");
    check_error(&r, 1, "game_over", NULL);
    free(r.out);
}
END_TEST

START_TEST(replay_partial_and_discards)
{
    struct run r;
    /* Stops before the end: next player and tile. */
    replay_text(&r, REC_HEAD "\"deck\":[\"BA.U\",\"BA.E\",\"BA.B\"],\"moves\":[" MOVE_U "]}");
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(r.nlines, 2);
    ck_assert_str_eq(r.lines[0], "{\"move\":0,\"player\":0,\"tile\":\"BA.U\",\"scores\":[0,0],"
                                 "\"events\":[]}");
    ck_assert_str_eq(r.lines[1], "{\"final\":false,\"scores\":[0,0],\"next\":{\"player\":1,"
                                 "\"tile\":\"BA.E\"}}");
    free(r.out);

    /* An all-city board: the field tile BA.B cannot be placed, after the first
     * draw and after move 0. */
    replay_text(&r, REC_HEAD "\"start\":\"BA.C\",\"deck\":[\"BA.B\",\"BA.C\",\"BA.B\",\"BA.E\"],"
                             "\"moves\":[{\"tile\":\"BA.C\",\"x\":0,\"y\":-1,\"rot\":0}]}");
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(r.nlines, 4);
    ck_assert_str_eq(r.lines[0], "{\"discard\":\"BA.B\"}");
    ck_assert(line_is(r.lines[1], "move", "0"));
    ck_assert_str_eq(r.lines[2], "{\"discard\":\"BA.B\"}");
    ck_assert(line_is(r.lines[3], "next.tile", "\"BA.E\""));
    free(r.out);

    /* A finished game: the last move line holds scores before final scoring. */
    replay_text(&r, REC_HEAD "\"deck\":[\"BA.U\"],\"moves\":[{\"tile\":\"BA.U\",\"x\":1,\"y\":0,"
                             "\"rot\":0,\"meeple\":{\"feature\":\"r1\",\"kind\":\"normal\"}}]}");
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(r.nlines, 2);
    ck_assert(line_is(r.lines[0], "scores", "[0,0]"));
    ck_assert(line_is(r.lines[1], "final", "true"));
    ck_assert(line_is(r.lines[1], "scores", "[2,0]"));
    ck_assert(line_is(r.lines[1], "events.0.feature", "\"road\""));
    ck_assert(line_is(r.lines[1], "events.0.final", "true"));
    free(r.out);
}
END_TEST

START_TEST(replay_stdin_and_usage)
{
    char tmp[32], args[64];
    struct run r;
    temp_file(tmp, REC_HEAD "\"deck\":[\"BA.U\",\"BA.E\"],\"moves\":[" MOVE_U "]}");
    snprintf(args, sizeof args, "- < %s", tmp);
    run_tool(&r, "carc-replay", args);
    unlink(tmp);
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(r.nlines, 2);
    free(r.out);

    const char *bad[] = {"", "a b", "--help", "-x"};
    for (int i = 0; i < 4; i++) {
        run_tool(&r, "carc-replay", bad[i]);
        ck_assert_int_eq(r.status, 64);
        ck_assert_int_eq(r.nlines, 0);
        ck_assert_int_gt(r.stderr_bytes, 0);
        free(r.out);
    }
    run_tool(&r, "carc-replay", "/nonexistent/record.json");
    check_error(&r, -1, "io_error", NULL);
    free(r.out);

    run_tool(&r, "carc-sim", "--games 0");
    ck_assert_int_eq(r.status, 64);
    free(r.out);
    run_tool(&r, "carc-sim", "--sets base,rivers");
    ck_assert_int_eq(r.status, 64);
    free(r.out);
    run_tool(&r, "carc-sim", "--players 6");
    ck_assert_int_eq(r.status, 2); /* 6 players need inns-cathedrals */
    free(r.out);
}
END_TEST

/* The sim tries escapes in siege games: records with escapes replay too. */
START_TEST(replay_sim_escapes)
{
    int escapes = 0;
    for (int seed = 1; seed <= 20 && escapes < 3; seed++) {
        char args[128];
        snprintf(args, sizeof args, "--games 1 --seed %d --sets besiegers,cathars,siege --escapes",
                 seed);
        escapes += check_sim_round_trip(args);
    }
    ck_assert_int_ge(escapes, 3);
}
END_TEST

Suite *suite_replay(void)
{
    Suite *s = suite_create("replay");
    TCase *tc = tcase_create("tools");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, replay_real_games);
    tcase_add_test(tc, replay_sim_base);
    tcase_add_test(tc, replay_sim_all_sets);
    tcase_add_test(tc, replay_sim_variants);
    tcase_add_test(tc, replay_sim_escapes);
    tcase_add_test(tc, replay_malformed_record);
    tcase_add_test(tc, replay_illegal_moves);
    tcase_add_test(tc, replay_partial_and_discards);
    tcase_add_test(tc, replay_stdin_and_usage);
    suite_add_tcase(s, tc);
    return s;
}
