/* test_protocol.c: protocol v1 (protocol/msg.c, state.c, patch.c, client.c,
 * client_encode.c, tiles_json.c).
 *
 * Data-driven decoding: tests/data/protocol/valid/NAME.json must decode, encode
 * back (proto_client_encode) as the canonical text in NAME.expect, and decode
 * from that to the same struct;
 * tests/data/protocol/invalid/NAME.json must fail with the code and field in
 * the sidecar NAME.expect ("<code> [<field>]"). Whole games: test_state.c. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "event_json.h"
#include "history.h"
#include "msg.h"
#include "name.h"
#include "room_util.h"
#include "state.h"
#include "tests.h"

#define DATA_DIR "tests/data/protocol"

/* Test hooks of protocol/patch.c (patch.h itself exposes jansson). */
int proto__pointer_push(char *buf, size_t size, const char *key);
char *proto__diff_text(const char *from, const char *to);
char *proto__patch_text(const char *doc, const char *patch, char *why, size_t whylen);
int proto__dump_same(const char *text);

static int decode(const char *text, struct proto_msg *m, struct proto_error *err)
{
    proto_error_init(err);
    return proto_msg_decode(text, strlen(text), m, err);
}

/* ---- decoding ---- */

START_TEST(decode_valid_files)
{
    DIR *dir = opendir(DATA_DIR "/valid");
    ck_assert_msg(dir != NULL, "run from the repository root");
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (!test_has_suffix(e->d_name, ".json"))
            continue;
        char path[512];
        size_t len;
        snprintf(path, sizeof path, DATA_DIR "/valid/%s", e->d_name);
        char *text = test_file_read(path, &len);
        ck_assert_ptr_nonnull(text);
        struct proto_msg m, m2;
        struct proto_error err;
        proto_error_init(&err);
        int rc = proto_msg_decode(text, len, &m, &err);
        ck_assert_msg(rc == 0, "%s: %s %s: %s", e->d_name, carc_err_name(rc), err.field, err.text);
        /* The sidecar is the canonical encoding: every decoded value, defaults filled in. */
        char *enc = proto_client_encode(&m), *want;
        snprintf(path + strlen(path) - 5, 8, ".expect");
        ck_assert_msg((want = test_file_read(path, &len)) != NULL, "%s: no sidecar", e->d_name);
        want[strcspn(want, "\n")] = '\0';
        ck_assert_msg(enc != NULL && strcmp(enc, want) == 0, "%s: encodes as %s, want %s",
                      e->d_name, enc, want);
        free(want);
        rc = decode(enc, &m2, &err);
        ck_assert_msg(rc == 0, "%s: re-encoded %s fails: %s", e->d_name, enc, err.text);
        ck_assert_msg(memcmp(&m, &m2, sizeof m) == 0, "%s: round trip differs: %s", e->d_name, enc);
        free(enc);
        free(text);
        count++;
    }
    closedir(dir);
    ck_assert_int_ge(count, 20);
}
END_TEST

START_TEST(decode_invalid_files)
{
    DIR *dir = opendir(DATA_DIR "/invalid");
    ck_assert_ptr_nonnull(dir);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (!test_has_suffix(e->d_name, ".json"))
            continue;
        char path[512], code[64] = "", field[64] = "";
        size_t len, elen;
        snprintf(path, sizeof path, DATA_DIR "/invalid/%s", e->d_name);
        char *text = test_file_read(path, &len);
        snprintf(path + strlen(path) - 5, 8, ".expect");
        char *expect = test_file_read(path, &elen);
        ck_assert_msg(text != NULL && expect != NULL, "%s: missing sidecar", e->d_name);
        ck_assert_int_ge(sscanf(expect, "%63s %63s", code, field), 1);
        struct proto_msg m;
        struct proto_error err;
        proto_error_init(&err);
        int rc = proto_msg_decode(text, len, &m, &err);
        ck_assert_msg(rc != 0, "%s: decoded", e->d_name);
        ck_assert_msg(strcmp(carc_err_name(rc), code) == 0 && err.code == rc,
                      "%s: got %s, want %s (%s)", e->d_name, carc_err_name(rc), code, err.text);
        ck_assert_msg(strcmp(err.field, field) == 0, "%s: field \"%s\", want \"%s\"", e->d_name,
                      err.field, field);
        ck_assert_msg(err.text[0] != '\0', "%s: no text", e->d_name);
        free(text);
        free(expect);
        count++;
    }
    closedir(dir);
    ck_assert_int_ge(count, 50);
}
END_TEST

/* The id is read first, so an error reply can carry "ref" whatever else is wrong. */
START_TEST(decode_keeps_id_on_error)
{
    struct proto_msg m;
    struct proto_error err;
    ck_assert_int_eq(decode("{\"id\":5,\"v\":2,\"type\":\"play\",\"tile\":\"BA.U\",\"x\":1,"
                            "\"y\":0,\"rot\":45}",
                            &m, &err),
                     CARC_E_ROT);
    ck_assert_str_eq(m.id, "5");
    ck_assert_int_eq(decode("{\"v\":9,\"type\":\"nope\",\"id\":\"x\"}", &m, &err), CARC_E_VERSION);
    ck_assert_str_eq(m.id, "\"x\"");
    ck_assert_int_eq(decode("{\"v\":2,\"type\":\"nope\",\"id\":\"x\"}", &m, &err), CARC_E_TYPE);
    ck_assert_str_eq(m.id, "\"x\"");
    ck_assert_int_eq(decode("{\"v\":2,\"type\":\"ping\",\"id\":[1]}", &m, &err), CARC_E_INVAL);
    ck_assert_str_eq(m.id, "");
    char *e = proto_encode_error(CARC_E_ROT, err.text, "\"x\"");
    ck_assert_str_eq(jstr(e, "ref"), "x");
    ck_assert_str_eq(jstr(e, "code"), "bad_rotation");
    free(e);
}
END_TEST

/* PROTOCOL.md "Conventions": an integer id takes any spelling of an integer,
 * and the reply's ref is that integer. */
START_TEST(decode_id_spellings)
{
    static const struct {
        const char *id, *want;
        long long ref;
    } cases[] = {
        {"24.0", "24", 24},     {"1e1", "10", 10},
        {"-2.5E1", "-25", -25}, {"2.5", NULL, 0},
        {"1.5e0", NULL, 0},     {"7", "7", 7},
        {"-0.0", "0", 0},       {"9007199254740992.0", "9007199254740992", 9007199254740992LL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "{\"v\":2,\"type\":\"ping\",\"id\":%s}", cases[i].id);
        struct proto_msg m;
        struct proto_error err;
        int rc = decode(text, &m, &err);
        if (cases[i].want == NULL) { /* not an integer: refused, and no ref */
            ck_assert_msg(rc == CARC_E_INVAL && strcmp(err.field, "id") == 0, "%s", text);
            ck_assert_str_eq(m.id, "");
            continue;
        }
        ck_assert_msg(rc == 0, "%s: %s", text, err.text);
        ck_assert_str_eq(m.id, cases[i].want);
        char *pong = proto_encode_pong(m.id);
        ck_assert_msg(strstr(pong, "\"ref\":") != NULL, "%s", pong);
        ck_assert_int_eq(jint(pong, "ref"), cases[i].ref);
        free(pong);
    }
}
END_TEST

/* protocol/name.c: when two names are one to people, and what a name may not
 * hold (the decoder's message names the character). */
START_TEST(names_fold_and_check)
{
    ck_assert(proto_name_same("Ann", "ann"));
    ck_assert(proto_name_same("Ann", " ANN\xe3\x80\x80"));        /* U+3000 around */
    ck_assert(proto_name_same("Zo\xc3\xab", "ZO\xc3\x8b"));       /* Zoë, ZOË */
    ck_assert(proto_name_same("\xc5\x81ukasz", "\xc5\x82UKASZ")); /* Ł, ł */
    ck_assert(proto_name_same("\xce\xa3\xce\x9f\xce\xa6\xce\x99\xce\x91",
                              "\xcf\x83\xce\xbf\xcf\x86\xce\xb9\xce\xb1")); /* ΣΟΦΙΑ, σοφια */
    ck_assert(proto_name_same("\xcf\x82", "\xce\xa3"));                     /* ς, Σ */
    ck_assert(proto_name_same("\xd0\x94\xd0\x98\xd0\x9c\xd0\x90",
                              "\xd0\xb4\xd0\xb8\xd0\xbc\xd0\xb0")); /* ДИМА, дима */
    ck_assert(proto_name_same("\xd0\x81", "\xd1\x91"));             /* Ё, ё */
    ck_assert(proto_name_same("Stra\u00dfe", "STRA\u1e9eE"));       /* ß, ẞ */
    ck_assert(proto_name_same("\u212aay", "Kay"));                  /* the Kelvin sign */
    ck_assert(proto_name_same("Ann\xef\xb8\x8f", "ann"));           /* a variation selector */
    ck_assert(!proto_name_same("Ann", "Anna"));
    ck_assert(!proto_name_same("Ann", "A nn"));
    ck_assert(!proto_name_same("Ann", "\xd0\x90nn")); /* Cyrillic A: another script */
    ck_assert(!proto_name_same("\xc4\xb0", "i"));     /* U+0130: only Turkic folding */

    char why[96];
    ck_assert_int_eq(proto_name_check("Ann\u202eexe", why, sizeof why), CARC_E_INVAL);
    ck_assert_str_eq(why, "must not contain U+202E (a bidirectional control)");
    ck_assert_int_eq(proto_name_check("A\xe2\x80\x8bnn", why, sizeof why), CARC_E_INVAL);
    ck_assert_str_eq(why, "must not contain U+200B (an invisible character)");
    ck_assert_int_eq(proto_name_check("Ann\xf3\xa0\x81\x81", why, sizeof why), CARC_E_INVAL);
    ck_assert_str_eq(why, "must not contain U+E0041 (a format character)");
    ck_assert_int_eq(proto_name_check("Zo\xc3\xab \xf0\x9f\x90\x89 Ann-Marie", why, sizeof why), 0);
    char s[] = " \xc2\xa0 Ann Marie \xe3\x80\x80";
    ck_assert_uint_eq(proto_name_trim(s), 9);
    ck_assert_str_eq(s, "Ann Marie");

    struct proto_msg m;
    struct proto_error err;
    ck_assert_int_eq(decode("{\"v\":2,\"type\":\"join\",\"id\":3,\"room\":\"abc\","
                            "\"name\":\"Ann\\u202egnp\"}",
                            &m, &err),
                     CARC_E_INVAL);
    ck_assert_str_eq(err.text, "name: must not contain U+202E (a bidirectional control)");
    ck_assert_str_eq(m.id, "3");
}
END_TEST

START_TEST(decode_too_big)
{
    size_t n = PROTO_MSG_MAX + 1;
    char *text = malloc(n + 1);
    memset(text, ' ', n);
    memcpy(text, "{\"v\":2,\"type\":\"ping\"}", 21);
    text[n] = '\0';
    struct proto_msg m;
    struct proto_error err;
    proto_error_init(&err);
    ck_assert_int_eq(proto_msg_decode(text, n, &m, &err), CARC_E_TOO_BIG);
    ck_assert_str_eq(carc_err_name(err.code), "message_too_big");
    proto_error_init(&err);
    ck_assert_int_eq(proto_msg_decode(text, n - 1, &m, &err), 0); /* at the limit: fine */
    free(text);
    /* Deep nesting within the size cap fails cleanly. */
    char deep[PROTO_MSG_MAX];
    size_t k = 0;
    k += (size_t)snprintf(deep, sizeof deep, "{\"v\":2,\"type\":\"ping\",\"id\":");
    while (k < sizeof deep - 4000)
        deep[k++] = '[';
    deep[k] = '\0';
    ck_assert_int_eq(decode(deep, &m, &err), CARC_E_JSON);
}
END_TEST

/* ---- encoders ---- */

/* Every server encoder, byte for byte (tests/data/protocol/golden/server.jsonl, one per line). */
START_TEST(encode_server_messages)
{
    struct proto_room_summary rooms[2] = {
        {"abc", 4, 2, PROTO_PHASE_LOBBY, 1u << CARC_SET_CATHARS, 1, "Ann", 0, 0, 2, 1, 1, 0, NULL},
        {"def", 2, 2, PROTO_PHASE_PLAYING, 0, 0, NULL, 1, 1, 0, 0, 0, 1, NULL},
    };
    char *got[] = {
        proto_encode_welcome("carcd 0.1", 16384, 20, 1764583200000LL),
        proto_encode_error(CARC_E_EDGE, "x: does not fit", "7"),
        proto_encode_error(CARC_E_TURN, NULL, ""),
        proto_encode_error(CARC_E_INVAL, "bad \xff byte", NULL), /* not UTF-8: the table's text */
        proto_encode_joined("k3J9", 2, "00112233445566778899aabbccddeeff", "\"j\""),
        proto_encode_joined("k3J9", 0, NULL, ""),
        proto_encode_watching("r1", "3"),
        proto_encode_left("4"),
        proto_encode_pong(NULL),
        proto_encode_ack(41, "\"p\""),
        proto_encode_chat(-1, "Eve", "hi\nthere"),
        proto_encode_chat(0, "A\"\\/\x7f\xc3\xa9", "\x01\x1f\b\f\n\r\t\xe2\x80\xa8"),
        proto_encode_rooms(rooms, 2, "1", 1),
        proto_encode_rooms(rooms, 0, NULL, 0),
        proto_encode_rooms(rooms, 1, NULL, 0),
        proto_encode_notice("server restarting in 5 minutes", NULL),
        proto_encode_notice("closed \"now\"\n", "k3J9"),
    };
    size_t len, n = sizeof got / sizeof got[0];
    char *want = test_file_read(DATA_DIR "/golden/server.jsonl", &len), *line = want;
    ck_assert_ptr_nonnull(want);
    for (size_t i = 0; i < n; i++) {
        char *end = strchr(line, '\n');
        ck_assert_msg(end != NULL, "golden file: %zu lines, want %zu", i, n);
        *end = '\0';
        ck_assert_msg(got[i] != NULL && strcmp(got[i], line) == 0, "%zu: %s, want %s", i, got[i],
                      line);
        ck_assert_msg(proto__dump_same(got[i]), "%zu: not jansson's text", i);
        line = end + 1;
    }
    struct proto_client_room cr[2];
    ck_assert_int_eq(proto_client_rooms(got[12], strlen(got[12]), cr, 2), 2);
    ck_assert_str_eq(cr[0].room, "abc");
    ck_assert(cr[0].seats == 4 && cr[0].taken == 2 && cr[0].password == 1);
    ck_assert_uint_eq(cr[0].sets, (1u << CARC_SET_BASE) | (1u << CARC_SET_CATHARS));
    ck_assert_str_eq(cr[0].host, "Ann");
    ck_assert_int_eq(cr[1].phase, PROTO_PHASE_PLAYING);
    ck_assert_int_eq(proto_client_rooms(got[14], strlen(got[14]), NULL, 0), 1);
    for (size_t i = 0; i < n; i++)
        free(got[i]);
    free(want);
}
END_TEST

/* One table per direction (msg_types.h): names and enums agree both ways, and
 * the head every server encoder writes gives its type back (the server counts
 * what it sends by it), and an error's code whatever its ref holds. */
START_TEST(server_type_of)
{
    for (int t = PROTO_S_UNKNOWN + 1; t < PROTO_S_COUNT; t++)
        ck_assert_int_eq(proto_server_type_find(proto_server_type_name(t)), t);
    ck_assert_int_eq(proto_server_type_find("zap"), PROTO_S_UNKNOWN);
    ck_assert_ptr_null(proto_server_type_name(PROTO_S_COUNT));
    for (int t = 0; t < PROTO_T_COUNT; t++)
        ck_assert_ptr_nonnull(proto_type_name(t));
    ck_assert_ptr_null(proto_type_name(PROTO_T_COUNT));
    const struct {
        char *text;
        int type, code;
    } cases[] = {
        {proto_encode_error(CARC_E_EDGE, "x", "7"), PROTO_S_ERROR, CARC_E_EDGE},
        {proto_encode_error(CARC_E_TURN, "\"code\":\"room_full\"", "\"a\\\"b,\\\"code\\\":\\\"x\""),
         PROTO_S_ERROR, CARC_E_TURN},
        {proto_encode_error(CARC_E_RATE, NULL, "\"\\\\\""), PROTO_S_ERROR, CARC_E_RATE},
        {proto_encode_error(CARC_E_ROOM_FULL, NULL, "-12"), PROTO_S_ERROR, CARC_E_ROOM_FULL},
        {proto_encode_welcome("x", 1, 1, 0), PROTO_S_WELCOME, 0},
        {proto_encode_synced(3, "1"), PROTO_S_SYNCED, 0},
        {proto_encode_redirect("r", "n", "/p", 1, NULL), PROTO_S_REDIRECT, 0},
        {proto_history_encode(NULL, NULL, 0, NULL, 0, "2"), PROTO_S_HISTORY, 0},
        {proto_encode_notice("hi", NULL), PROTO_S_NOTICE, 0},
        {proto_encode_rooms(NULL, 0, NULL, 1), PROTO_S_ROOMS, 0},
        {proto_encode_rooms(NULL, 0, NULL, 0), PROTO_S_UNKNOWN, 0}, /* the bare list (HTTP) */
        {strdup("{\"v\":2,\"type\":\"error\",\"code\":\"k3J9xQ2a\",\"message\":\"x\"}"),
         PROTO_S_ERROR, 0},
        {strdup("{\"v\":2,\"type\":\"zap\"}"), PROTO_S_UNKNOWN, 0},
        {strdup("{\"v\":1,\"type\":\"delta\"}"), PROTO_S_UNKNOWN, 0},
        {strdup("{\"type\":\"delta\",\"v\":2}"), PROTO_S_UNKNOWN, 0},
        {strdup("{\"v\":2,\"type\":\"delt"), PROTO_S_UNKNOWN, 0},
        {strdup("not json"), PROTO_S_UNKNOWN, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int code = 99;
        ck_assert_ptr_nonnull(cases[i].text);
        ck_assert_msg(proto_server_type_of(cases[i].text, strlen(cases[i].text), &code) ==
                              cases[i].type &&
                          code == cases[i].code,
                      "%zu: %s: code %d", i, cases[i].text, code);
        free(cases[i].text);
    }
}
END_TEST

START_TEST(encode_tiles)
{
    char *s = proto_encode_tiles();
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(jdump(s, "sets.0"), "\"base\"");
    /* The path reader splits on dots, so read tiles through their position. */
    char *tiles = proto_json_path_dump(s, strlen(s), "tiles");
    int count = 0;
    for (const char *p = tiles; (p = strstr(p, "\"segments\":")) != NULL; p++)
        count++;
    ck_assert_int_eq(count, carc_tiles_count);
    /* BA.D, the start tile: city N, road E-W, fields. */
    const char *d = strstr(tiles, "\"BA.D\":");
    ck_assert_ptr_nonnull(d);
    const char *head = "\"BA.D\":{\"set\":\"base\",\"count\":4,\"edges\":\"CRFR\","
                       "\"cloister\":false,\"barn\":false,\"start\":true,\"what\":";
    ck_assert_msg(strncmp(d, head, strlen(head)) == 0, "%.200s", d);
    ck_assert_ptr_nonnull(strstr(d, "{\"name\":\"c1\",\"kind\":\"city\",\"edges\":[\"N\"],"
                                    "\"pennants\":0,\"flags\":[]}"));
    ck_assert_ptr_nonnull(strstr(d, "{\"name\":\"r1\",\"kind\":\"road\",\"edges\":[\"E\",\"W\"],"
                                    "\"end\":null,\"flags\":[]}"));
    ck_assert_ptr_nonnull(strstr(tiles, "\"touches\":[\"c1\"]"));
    ck_assert_ptr_nonnull(strstr(tiles, "\"flags\":[\"siege\"]"));
    ck_assert_ptr_nonnull(strstr(tiles, "\"flags\":[\"inn\"]"));
    ck_assert_ptr_nonnull(strstr(tiles, "\"end\":\"cloister\""));
    free(tiles);
    free(s);
}
END_TEST

START_TEST(encode_client_messages)
{
    struct proto_msg m;
    struct proto_error err;
    char *s = proto_client_encode_simple(PROTO_T_PING, "3");
    ck_assert_str_eq(s, "{\"v\":2,\"type\":\"ping\",\"id\":3}");
    free(s);
    ck_assert_ptr_null(proto_client_encode_simple(PROTO_T_PLAY, NULL));
    ck_assert_ptr_null(proto_client_encode_simple(PROTO_T_LIST, "[1]"));
    s = proto_client_encode_create("Ann", 3, 1u << CARC_SET_SIEGE, "\"c\"");
    ck_assert_int_eq(decode(s, &m, &err), 0);
    ck_assert_int_eq(m.u.create.seats, 3);
    ck_assert_uint_eq(m.u.create.sets, (1u << CARC_SET_BASE) | (1u << CARC_SET_SIEGE));
    ck_assert_str_eq(m.id, "\"c\"");
    free(s);
    s = proto_client_encode_join("abc", "Bob", NULL);
    ck_assert_str_eq(s, "{\"v\":2,\"type\":\"join\",\"room\":\"abc\",\"name\":\"Bob\"}");
    free(s);
    s = proto_client_encode_resume("abc", "00112233445566778899aabbccddeeff", 9, NULL);
    ck_assert_int_eq(decode(s, &m, &err), 0);
    ck_assert_int_eq(m.u.resume.seq, 9);
    free(s);
    s = proto_client_encode_watch("abc", -1, NULL);
    ck_assert_str_eq(s, "{\"v\":2,\"type\":\"watch\",\"room\":\"abc\"}");
    free(s);
    s = proto_client_encode_sync(12, NULL);
    ck_assert_str_eq(s, "{\"v\":2,\"type\":\"sync\",\"seq\":12}");
    free(s);
    s = proto_client_encode_chat("hé", NULL);
    ck_assert_int_eq(decode(s, &m, &err), 0);
    ck_assert_str_eq(m.u.chat.text, "hé");
    free(s);
    int u = carc_tile_find("BA.U");
    struct proto_client_spot esc = {0, -1, 0, "c1"};
    s = proto_client_encode_play(u, 1, 0, 1, carc_tile_seg_find(u, "r1"), 0, &esc, "8");
    ck_assert_str_eq(s, "{\"v\":2,\"type\":\"play\",\"id\":8,\"tile\":\"BA.U\",\"x\":1,\"y\":0,"
                        "\"rot\":90,\"meeple\":{\"feature\":\"r1\",\"kind\":\"normal\"},"
                        "\"escape\":{\"x\":0,\"y\":-1,\"feature\":\"c1\"}}");
    free(s);
    s = proto_client_encode_play(u, 1, 0, 0, -1, 0, NULL, NULL);
    ck_assert_str_eq(jdump(s, "meeple"), "null");
    ck_assert_int_eq(decode(s, &m, &err), 0);
    free(s);
    ck_assert_ptr_null(proto_client_encode_play(u, 1, 0, 4, -1, 0, NULL, NULL));
    ck_assert_ptr_null(proto_client_encode_play(-1, 1, 0, 0, -1, 0, NULL, NULL));
    ck_assert_ptr_null(proto_client_encode_join("abc", NULL, NULL));
}
END_TEST

/* ---- patches ---- */

/* tests/data/protocol/patch.json: exact diffs, round trips, RFC 6902 applications. */
static char *patch_cases;

static char *patch_case(const char *fmt, int i)
{
    char path[64];
    snprintf(path, sizeof path, fmt, i);
    return proto_json_path_dump(patch_cases, strlen(patch_cases), path);
}

/* text of a document with sorted keys, as proto__patch_text writes it */
static char *canon(const char *doc)
{
    char why[160];
    return proto__patch_text(doc, "[]", why, sizeof why);
}

START_TEST(patch_files)
{
    size_t len;
    patch_cases = test_file_read(DATA_DIR "/patch.json", &len);
    ck_assert_ptr_nonnull(patch_cases);
    char why[160], *a, *b, *p;
    int n = 0;
    for (int i = 0; (a = patch_case("diff.%d.from", i)) != NULL; i++, n++) {
        b = patch_case("diff.%d.to", i);
        p = patch_case("diff.%d.patch", i);
        char *got = proto__diff_text(a, b);
        ck_assert_msg(got != NULL && strcmp(got, p) == 0, "diff %d: %s, want %s", i, got, p);
        free(got), free(a), free(b), free(p);
    }
    for (int i = 0; (a = patch_case("round_trip.%d.0", i)) != NULL; i++, n++) {
        b = patch_case("round_trip.%d.1", i);
        for (int k = 0; k < 2; k++) {
            char *from = k ? b : a, *to = k ? a : b;
            p = proto__diff_text(from, to);
            char *got = p != NULL ? proto__patch_text(from, p, why, sizeof why) : NULL;
            char *want = canon(to);
            ck_assert_msg(got != NULL && strcmp(got, want) == 0, "round trip %d: %s + %s = %s (%s)",
                          i, from, p, got, why);
            free(p), free(got), free(want);
        }
        free(a), free(b);
    }
    for (int i = 0; (a = patch_case("apply.%d.doc", i)) != NULL; i++, n++) {
        p = patch_case("apply.%d.patch", i);
        b = patch_case("apply.%d.expect", i);
        char *got = proto__patch_text(a, p, why, sizeof why), *want = canon(b);
        if (strcmp(b, "null") == 0)
            ck_assert_msg(got == NULL, "apply %d: %s + %s gave %s", i, a, p, got);
        else
            ck_assert_msg(got != NULL && strcmp(got, want) == 0, "apply %d: %s, want %s (%s)", i,
                          got, want, why);
        free(got), free(want), free(a), free(b), free(p);
    }
    ck_assert_int_ge(n, 40);
    free(patch_cases);
}
END_TEST

START_TEST(patch_pointer_escape)
{
    char buf[16] = "";
    ck_assert_int_eq(proto__pointer_push(buf, sizeof buf, "a~b/c"), 0);
    ck_assert_str_eq(buf, "/a~0b~1c");
    ck_assert_int_eq(proto__pointer_push(buf, sizeof buf, "1,0"), 0);
    ck_assert_str_eq(buf, "/a~0b~1c/1,0");
    ck_assert_int_eq(proto__pointer_push(buf, sizeof buf, "xyz"), -1);
    ck_assert_str_eq(buf, "/a~0b~1c/1,0");
    ck_assert_int_eq(proto__pointer_push(buf, sizeof buf, ""), 0);
    ck_assert_str_eq(buf, "/a~0b~1c/1,0/");
}
END_TEST

Suite *suite_protocol(void)
{
    Suite *s = suite_create("protocol");
    TCase *tc = tcase_create("msg");
    tcase_add_test(tc, decode_valid_files);
    tcase_add_test(tc, decode_invalid_files);
    tcase_add_test(tc, decode_keeps_id_on_error);
    tcase_add_test(tc, decode_id_spellings);
    tcase_add_test(tc, names_fold_and_check);
    tcase_add_test(tc, decode_too_big);
    tcase_add_test(tc, encode_server_messages);
    tcase_add_test(tc, server_type_of);
    tcase_add_test(tc, encode_tiles);
    tcase_add_test(tc, encode_client_messages);
    suite_add_tcase(s, tc);
    tc = tcase_create("patch");
    tcase_add_test(tc, patch_files);
    tcase_add_test(tc, patch_pointer_escape);
    suite_add_tcase(s, tc);
    return s;
}
