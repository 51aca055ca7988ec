/* test_record.c: the record codec (protocol/record.c) and event JSON (protocol/event_json.c).
 *
 * Data-driven: tests/data/record/valid/NAME.json must load and round-trip;
 * tests/data/record/invalid/NAME.json must fail with the code and field written
 * in the sidecar NAME.expect ("<code> [<field>]"). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Named by directory: a bare "record.h" is the engine's common/record.h. */
#include "event_json.h"
#include "record_json.h"
#include "tests.h"

#define DATA_DIR "tests/data/record"

static struct carc_record rec_a, rec_b; /* large: keep them off the stack */
static struct carc_game game;

/* Move index a field path lies in ("moves[3].rot" -> 3), else -1. */
static int field_move(const char *field)
{
    int i;
    return sscanf(field, "moves[%d]", &i) == 1 ? i : -1;
}

static int load(const char *text, struct carc_record *rec, struct proto_error *err)
{
    proto_error_init(err);
    return proto_record_load(text, strlen(text), 0, rec, err);
}

/* load -> dump -> load gives the same struct, and dump is a fixed point. */
static void check_round_trip(const char *name, const char *text, size_t len)
{
    struct proto_error err;
    char *d1 = NULL, *d2 = NULL;
    proto_error_init(&err);
    int rc = proto_record_load(text, len, 0, &rec_a, &err);
    ck_assert_msg(rc == 0, "%s: load failed: %s %s: %s", name, carc_err_name(rc), err.field,
                  err.text);
    for (unsigned flags = 0; flags <= PROTO_DUMP_PRETTY; flags++) {
        ck_assert_int_eq(proto_record_dump(&rec_a, flags, &d1, &err), 0);
        ck_assert_msg(load(d1, &rec_b, &err) == 0, "%s: dump does not load: %s: %s", name,
                      err.field, err.text);
        ck_assert_msg(memcmp(&rec_a, &rec_b, sizeof rec_a) == 0, "%s: round trip differs", name);
        ck_assert_int_eq(proto_record_dump(&rec_b, flags, &d2, &err), 0);
        ck_assert_str_eq(d1, d2);
        free(d1);
        free(d2);
    }
}

START_TEST(record_valid_cases)
{
    DIR *dir = opendir(DATA_DIR "/valid");
    ck_assert_msg(dir != NULL, "run the tests from the repository root");
    int cases = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (!test_has_suffix(e->d_name, ".json"))
            continue;
        char path[512];
        size_t len;
        snprintf(path, sizeof path, DATA_DIR "/valid/%s", e->d_name);
        char *text = test_file_read(path, &len);
        ck_assert_ptr_nonnull(text);
        check_round_trip(e->d_name, text, len);
        free(text);
        cases++;
    }
    closedir(dir);
    ck_assert_int_ge(cases, 5);
}
END_TEST

START_TEST(record_invalid_cases)
{
    DIR *dir = opendir(DATA_DIR "/invalid");
    ck_assert_msg(dir != NULL, "run the tests from the repository root");
    int cases = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (!test_has_suffix(e->d_name, ".json"))
            continue;
        char path[512], code[64] = "", field[64] = "";
        size_t len, elen;
        snprintf(path, sizeof path, DATA_DIR "/invalid/%s", e->d_name);
        char *text = test_file_read(path, &len);
        ck_assert_ptr_nonnull(text);
        snprintf(path + strlen(path) - 5, 8, ".expect");
        char *expect = test_file_read(path, &elen);
        ck_assert_msg(expect != NULL, "%s has no .expect file", e->d_name);
        ck_assert_int_ge(sscanf(expect, "%63s %63s", code, field), 1);

        struct proto_error err;
        proto_error_init(&err);
        int rc = proto_record_load(text, len, 0, &rec_a, &err);
        ck_assert_msg(rc < 0, "%s: loaded", e->d_name);
        ck_assert_int_eq(rc, err.code);
        ck_assert_msg(strcmp(carc_err_name(rc), code) == 0 && strcmp(err.field, field) == 0,
                      "%s: got %s \"%s\" (%s), expected %s \"%s\"", e->d_name, carc_err_name(rc),
                      err.field, err.text, code, field);
        ck_assert_int_eq(err.move, field_move(field));
        ck_assert_int_gt((int)strlen(err.text), 0);
        free(text);
        free(expect);
        cases++;
    }
    closedir(dir);
    ck_assert_int_ge(cases, 40);
}
END_TEST

/* A record with a slot for an extra key in every object it has. */
static const char *const keyed_template =
    "{@ \"format\": \"carcassonne-game/1\", \"sets\": [\"base\", \"besiegers\"],"
    " \"options\": {@ \"farmers\": true}, \"players\": [{\"name\": \"A\"}, {@ \"name\": \"B\"}],"
    " \"seed\": 3, \"moves\": ["
    " {@ \"tile\": \"BA.U\", \"x\": 1, \"y\": 0, \"rot\": 0,"
    "   \"meeple\": {@ \"feature\": \"r1\", \"kind\": \"normal\"}},"
    " {\"tile\": \"BA.E\", \"x\": 0, \"y\": -1, \"rot\": 180, \"meeple\": null,"
    "   \"escape\": {@ \"x\": 1, \"y\": 0, \"feature\": \"r1\"}}]}";
static const char *const keyed_fields[] = {
    "zz", "options.zz", "players[1].zz", "moves[0].zz", "moves[0].meeple.zz", "moves[1].escape.zz"};

/* keyed_template with `"zz": 1,` at slot k (-1: none). */
static void keyed_record(int k, char *out, size_t size)
{
    size_t n = 0;
    int slot = 0;
    for (const char *p = keyed_template; *p && n + 16 < size; p++) {
        if (*p != '@') {
            out[n++] = *p;
            continue;
        }
        if (slot++ == k)
            n += (size_t)snprintf(out + n, size - n, "\"zz\": 1,");
    }
    out[n] = '\0';
}

START_TEST(record_unknown_keys_everywhere)
{
    char text[1024];
    struct proto_error err;
    keyed_record(-1, text, sizeof text);
    ck_assert_msg(load(text, &rec_a, &err) == 0, "template: %s %s", err.field, err.text);
    ck_assert_int_eq(rec_a.moves[1].escape, 1);
    for (int k = 0; k < 6; k++) {
        keyed_record(k, text, sizeof text);
        ck_assert_int_eq(load(text, &rec_a, &err), CARC_E_RECORD);
        ck_assert_str_eq(err.field, keyed_fields[k]);
        ck_assert_int_eq(err.move, field_move(keyed_fields[k]));
    }
}
END_TEST

START_TEST(record_defaults)
{
    struct proto_error err;
    ck_assert_int_eq(load("{\"format\":\"carcassonne-game/1\",\"players\":[{\"name\":\"A\"},"
                          "{\"name\":\"B\"}],\"moves\":[{\"tile\":\"BA.U\",\"x\":1,\"y\":0,"
                          "\"rot\":90,\"meeple\":{\"feature\":\"f1\"}},{\"tile\":\"BA.V\","
                          "\"x\":-1,\"y\":0,\"rot\":270}]}",
                          &rec_a, &err),
                     0);
    ck_assert_uint_eq(rec_a.sets, 1u << CARC_SET_BASE);
    ck_assert_int_eq(rec_a.start, carc_tile_find("BA.D"));
    ck_assert_int_eq(rec_a.no_farmers, 0);
    ck_assert_int_eq(rec_a.escape_rule, CARC_ESCAPE_SIEGE_TILE);
    ck_assert_int_eq(rec_a.has_seed, 0);
    ck_assert_int_eq(rec_a.has_deck, 0);
    ck_assert_uint_eq(rec_a.seed, 0);
    ck_assert_int_eq(rec_a.nplayers, 2);
    ck_assert_str_eq(rec_a.names[1], "B");
    ck_assert_int_eq(rec_a.nmoves, 2);
    ck_assert_int_eq(rec_a.moves[0].rot, 1);
    ck_assert_int_eq(rec_a.moves[0].seg, carc_tile_seg_find(carc_tile_find("BA.U"), "f1"));
    ck_assert_int_eq(rec_a.moves[0].large, 0);
    ck_assert_int_eq(rec_a.moves[1].tile, carc_tile_find("BA.V"));
    ck_assert_int_eq(rec_a.moves[1].rot, 3);
    ck_assert_int_eq(rec_a.moves[1].seg, -1);
    ck_assert_int_eq(rec_a.moves[1].escape, 0);
}
END_TEST

START_TEST(record_dump_canonical)
{
    struct proto_error err;
    char *out;
    /* Keys in a shuffled order, escape on the start tile, large meeple. */
    ck_assert_int_eq(
        load("{\"moves\":[{\"meeple\":{\"kind\":\"large\",\"feature\":\"c1\"},\"rot\":0,\"y\":0,"
             "\"x\":1,\"tile\":\"BS.01\",\"escape\":{\"feature\":\"c1\",\"y\":0,\"x\":0}}],"
             "\"seed\":42,\"deck\":[\"BS.01\"],\"start\":\"BA.D\",\"players\":[{\"name\":\"A\"},"
             "{\"name\":\"B\"}],\"options\":{\"farmers\":false},\"sets\":[\"inns-cathedrals\","
             "\"besiegers\",\"base\"],\"format\":\"carcassonne-game/1\"}",
             &rec_a, &err),
        0);
    ck_assert_int_eq(proto_record_dump(&rec_a, 0, &out, &err), 0);
    ck_assert_str_eq(out, "{\"format\":\"carcassonne-game/1\",\"sets\":[\"base\","
                          "\"inns-cathedrals\",\"besiegers\"],\"options\":{\"siege_escape\":"
                          "\"siege-tile\",\"farmers\":false,\"farms\":\"third\",\"small_city\":4,"
                          "\"seat_order\":\"seated\"},\"players\":[{\"name\":\"A\"},"
                          "{\"name\":\"B\"}],\"start\":\"BA.D\",\"seed\":42,\"deck\":[\"BS.01\"],"
                          "\"moves\":[{\"tile\":\"BS.01\",\"x\":1,\"y\":0,\"rot\":0,\"meeple\":"
                          "{\"feature\":\"c1\",\"kind\":\"large\"},\"escape\":{\"x\":0,\"y\":0,"
                          "\"feature\":\"c1\"}}]}");
    free(out);
}
END_TEST

START_TEST(record_dump_rejects_bad_values)
{
    struct proto_error err;
    char *out = (char *)&err;
    ck_assert_int_eq(load("{\"format\":\"carcassonne-game/1\",\"players\":[{\"name\":\"A\"}],"
                          "\"moves\":[{\"tile\":\"BA.U\",\"x\":1,\"y\":0,\"rot\":0}]}",
                          &rec_a, &err),
                     0);
    rec_b = rec_a;
    rec_b.moves[0].rot = 4;
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_dump(&rec_b, 0, &out, &err), CARC_E_INVAL);
    ck_assert_ptr_null(out);
    ck_assert_str_eq(err.field, "moves[0]");
    ck_assert_int_eq(err.move, 0);
    rec_b = rec_a;
    rec_b.moves[0].seg = 9; /* BA.U has three segments */
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_dump(&rec_b, 0, &out, &err), CARC_E_INVAL);
    rec_b = rec_a;
    rec_b.nplayers = 0;
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_dump(&rec_b, 0, &out, &err), CARC_E_INVAL);
    ck_assert_str_eq(err.field, "players");
    rec_b = rec_a;
    rec_b.has_seed = 1;
    rec_b.seed = UINT64_MAX;
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_dump(&rec_b, 0, &out, &err), CARC_E_INVAL);
    ck_assert_str_eq(err.field, "seed");
    rec_b = rec_a;
    rec_b.moves[0].escape = 1; /* the record puts no tile at (7,0) */
    rec_b.moves[0].ex = 7;
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_dump(&rec_b, 0, &out, &err), CARC_E_INVAL);
}
END_TEST

START_TEST(record_size_cap)
{
    const char *text = "{\"format\":\"carcassonne-game/1\",\"players\":[{\"name\":\"A\"}],"
                       "\"moves\":[]}";
    struct proto_error err;
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_load(text, strlen(text), strlen(text), &rec_a, &err), 0);
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_load(text, strlen(text), strlen(text) - 1, &rec_a, &err),
                     CARC_E_RECORD);
    ck_assert_str_eq(err.field, "");
    ck_assert_int_eq(err.move, -1);
    /* Deep nesting is refused by the parser's depth bound, not by the stack. */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    ck_assert_ptr_nonnull(deep);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_load(deep, 2 * depth, 4 * depth, &rec_a, &err), CARC_E_JSON);
    free(deep);
}
END_TEST

/* The record member of every real game (tests/data/games) round-trips too. */
START_TEST(record_real_games_round_trip)
{
    const char *names[] = {"bga-366166200.json", "bga-370417702.json"};
    for (int i = 0; i < 2; i++) {
        char path[512];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", TEST_GAMES_DIR, names[i]);
        char *text = test_file_read(path, &len);
        ck_assert_msg(text != NULL, "cannot read %s", path);
        char *inner = proto_json_path_dump(text, len, "record");
        ck_assert_ptr_nonnull(inner);
        check_round_trip(names[i], inner, strlen(inner));
        ck_assert_int_eq(rec_a.nmoves, 71);
        free(inner);
        free(text);
    }
}
END_TEST

static void start_base_game(void)
{
    struct proto_error err;
    struct carc_error cerr = {0, ""};
    ck_assert_int_eq(load("{\"format\":\"carcassonne-game/1\",\"players\":[{\"name\":\"A\"},"
                          "{\"name\":\"B\"}],\"deck\":[\"BA.U\",\"BA.E\",\"BA.B\"],\"moves\":["
                          "{\"tile\":\"BA.U\",\"x\":1,\"y\":0,\"rot\":0,\"meeple\":null},"
                          "{\"tile\":\"BA.E\",\"x\":1,\"y\":-1,\"rot\":0,\"meeple\":null,"
                          "\"escape\":{\"x\":1,\"y\":0,\"feature\":\"r1\"}},"
                          "{\"tile\":\"BA.B\",\"x\":2,\"y\":0,\"rot\":0,\"meeple\":null,"
                          "\"escape\":{\"x\":2,\"y\":0,\"feature\":\"cloister\"}}]}",
                          &rec_a, &err),
                     0);
    ck_assert_int_eq(carc_record_start(&rec_a, &game, &cerr), 0);
}

START_TEST(record_move_for_state)
{
    struct proto_error err;
    struct carc_error cerr = {0, ""};
    struct carc_move m;
    start_base_game();
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_move(&rec_a, 0, &game, &m, &err), 0);
    ck_assert_int_eq(m.player, game.current);
    ck_assert_int_eq(m.tile, carc_tile_find("BA.U"));
    ck_assert_int_eq(carc_game_play(&game, &m, &cerr), 0);
    ck_assert_int_eq(proto_record_move(&rec_a, 1, &game, &m, &err), 0);
    ck_assert_int_eq(m.player, 1);
    ck_assert_int_eq(m.eseg, carc_tile_seg_find(carc_tile_find("BA.U"), "r1"));
    /* The board disagrees with what the record put at (1,0): the name is void. */
    rec_a.moves[0].tile = carc_tile_find("BA.V");
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_move(&rec_a, 1, &game, &m, &err), CARC_E_ESCAPE);
    ck_assert_int_eq(err.move, 1);
    /* An escape may name the tile placed by the same move. */
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_move(&rec_a, 2, &game, &m, &err), 0);
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_move(&rec_a, 3, &game, &m, &err), CARC_E_INVAL);
    game.phase = CARC_PHASE_OVER;
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_move(&rec_a, 2, &game, &m, &err), CARC_E_OVER);
    ck_assert_str_eq(err.field, "moves[2]");
}
END_TEST

START_TEST(event_json_names)
{
    start_base_game();
    struct carc_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = CARC_EV_SCORE;
    ev.kind = CARC_SEG_CITY;
    ev.flags = CARC_EVF_CATHEDRAL;
    ev.tiles = 2;
    ev.pennants = 1;
    ev.points = 9;
    ev.scorers = 0x2;
    ev.herbs_to = 0xFF;
    ev.delta[1] = 9;
    ev.returned[1] = 1;
    char *s = proto_event_dump(&game, &ev);
    ck_assert_str_eq(s, "{\"type\":\"score\",\"feature\":\"city\",\"tiles\":2,\"pennants\":1,"
                        "\"points\":9,\"scorers\":[1],\"x\":0,\"y\":0,\"segment\":\"c1\","
                        "\"delta\":[0,9],\"returned\":[0,1],\"final\":false,\"cathedral\":true}");
    free(s);

    /* A farm: counts instead of tiles, "besieged" is a number. */
    ev.kind = CARC_SEG_FIELD;
    ev.flags = CARC_EVF_FINAL | CARC_EVF_BESIEGED;
    ev.seg = 2;
    ev.cities = 2;
    ev.besieged = 1;
    ev.points = 9;
    ev.herbs_to = 1;
    ev.herbs = 2;
    ev.large_back = 0x1;
    s = proto_event_dump(&game, &ev);
    ck_assert_str_eq(s, "{\"type\":\"score\",\"feature\":\"farm\",\"cities\":2,\"besieged\":1,"
                        "\"points\":9,\"scorers\":[1],\"x\":0,\"y\":0,\"segment\":\"f1\","
                        "\"delta\":[0,9],\"returned\":[0,1],\"large_back\":[0],\"final\":true,"
                        "\"herbs_to\":1,\"herbs\":2}");
    ck_assert_int_eq(proto_event_is_final(&ev), 1);
    free(s);

    memset(&ev, 0, sizeof ev);
    ev.type = CARC_EV_BARN;
    ev.flags = CARC_EVF_TITHE;
    ev.tiles = 5;
    ev.farms = 2;
    ev.points = -14;
    ev.scorers = 0x3;
    ev.herbs_to = 0xFF;
    ev.seg = CARC_SEG_NONE;
    ev.delta[0] = ev.delta[1] = -14;
    s = proto_event_dump(&game, &ev);
    ck_assert_str_eq(s, "{\"type\":\"barn\",\"tiles\":5,\"farms\":2,\"tithe\":true,\"points\":-14,"
                        "\"scorers\":[0,1],\"x\":0,\"y\":0,\"delta\":[-14,-14],\"final\":false}");
    free(s);

    memset(&ev, 0, sizeof ev);
    ev.type = CARC_EV_DISCARD;
    ev.tile = (uint8_t)carc_tile_find("BA.X");
    s = proto_event_dump(&game, &ev);
    ck_assert_str_eq(s, "{\"type\":\"discard\",\"tile\":\"BA.X\"}");
    ck_assert_int_eq(proto_event_is_final(&ev), 0);
    free(s);

    memset(&ev, 0, sizeof ev);
    ev.type = CARC_EV_HERBS;
    ev.herbs_to = 0;
    ev.herbs = 3;
    ev.delta[0] = 15;
    s = proto_event_dump(&game, &ev);
    ck_assert_str_eq(s, "{\"type\":\"herbs\",\"delta\":[15,0],\"final\":false,\"herbs\":3}");
    ck_assert_int_eq(proto_event_is_final(&ev), 1);
    free(s);
}
END_TEST

START_TEST(replay_lines)
{
    start_base_game();
    int32_t scores[2] = {3, -4};
    char *s = proto_replay_move_line(&game, 0, 0, carc_tile_find("BA.U"), scores);
    ck_assert_str_eq(s, "{\"move\":0,\"player\":0,\"tile\":\"BA.U\",\"scores\":[3,-4],"
                        "\"events\":[]}");
    free(s);
    s = proto_replay_discard_line(carc_tile_find("BA.X"));
    ck_assert_str_eq(s, "{\"discard\":\"BA.X\"}");
    free(s);
    s = proto_replay_end_line(&game);
    ck_assert_str_eq(s, "{\"final\":false,\"scores\":[0,0],\"next\":{\"player\":0,"
                        "\"tile\":\"BA.U\"}}");
    free(s);
    s = proto_replay_error_line(3, "moves[3].rot", CARC_E_ROT, "bad");
    ck_assert_str_eq(s, "{\"error\":{\"move\":3,\"field\":\"moves[3].rot\",\"code\":"
                        "\"bad_rotation\",\"message\":\"bad\"}}");
    free(s);
    s = proto_replay_error_line(-1, NULL, CARC_E_JSON, "\xff\xfe");
    ck_assert_str_eq(s, "{\"error\":{\"code\":\"malformed_json\",\"message\":"
                        "\"the text is not valid JSON\"}}");
    free(s);
}
END_TEST

START_TEST(json_readers)
{
    const char *t = "{\"a\":{\"b\":[[1,2],[3,4,5]],\"s\":\"hi\",\"n\":-7},\"f\":1.5}";
    size_t len = strlen(t);
    long long v[4];
    char buf[8];
    ck_assert_int_eq(proto_json_path_ints(t, len, "a.b.1", v, 4), 3);
    ck_assert_int_eq((int)v[2], 5);
    ck_assert_int_eq(proto_json_path_ints(t, len, "a.b.1", v, 1), 3);
    ck_assert_int_eq(proto_json_path_ints(t, len, "a.b", v, 4), CARC_E_RECORD);
    ck_assert_int_eq(proto_json_path_ints(t, len, "a.x", v, 4), CARC_E_RECORD);
    ck_assert_int_eq(proto_json_path_ints("{", 1, "a", v, 4), CARC_E_JSON);
    ck_assert_int_eq(proto_json_path_int(t, len, "a.n", v), 0);
    ck_assert_int_eq((int)v[0], -7);
    ck_assert_int_eq(proto_json_path_int(t, len, "f", v), CARC_E_RECORD);
    ck_assert_int_eq(proto_json_path_string(t, len, "a.s", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "hi");
    ck_assert_int_eq(proto_json_path_string(t, len, "a.n", buf, sizeof buf), CARC_E_RECORD);
    char *d = proto_json_path_dump(t, len, "a.b.0");
    ck_assert_str_eq(d, "[1,2]");
    free(d);
    d = proto_json_path_dump(t, len, "");
    ck_assert_ptr_nonnull(d);
    free(d);
    ck_assert_ptr_null(proto_json_path_dump(t, len, "a.b.9"));
    d = proto_json_path_dump("[1] junk", 8, "");
    ck_assert_ptr_null(d);
}
END_TEST

Suite *suite_record(void)
{
    Suite *s = suite_create("record");
    TCase *tc = tcase_create("codec");
    tcase_add_test(tc, record_valid_cases);
    tcase_add_test(tc, record_invalid_cases);
    tcase_add_test(tc, record_unknown_keys_everywhere);
    tcase_add_test(tc, record_defaults);
    tcase_add_test(tc, record_dump_canonical);
    tcase_add_test(tc, record_dump_rejects_bad_values);
    tcase_add_test(tc, record_size_cap);
    tcase_add_test(tc, record_real_games_round_trip);
    tcase_add_test(tc, record_move_for_state);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("events");
    tcase_add_test(te, event_json_names);
    tcase_add_test(te, replay_lines);
    tcase_add_test(te, json_readers);
    suite_add_tcase(s, te);
    return s;
}
