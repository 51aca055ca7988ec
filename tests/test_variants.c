/* test_variants.c: the rule variants of RULES.md 2.8 (options.farms, options.small_city),
 * from the worked examples V01-V05 of RULES.md 7, plus random games under every variant.
 *
 * Boards are built with carc_game_setup_place (board_util.h) at x >= 9, as in test_score.c.
 * Players: RED = 0, BLUE = 1. */
#include <stdlib.h>
#include <string.h>

#include "board_util.h"
#include "record_json.h"
#include "room_util.h"
#include "tests.h"

enum { RED = 0, BLUE = 1 };
#define RB (1u << RED)
#define BB (1u << BLUE)
#define SIEGE_SETS (BU_BASE | BU_SET(CATHARS))

static struct carc_game *variant_game(unsigned sets, int farm_rule, int small_city)
{
    struct carc_config cfg = {0};
    cfg.nplayers = 2;
    cfg.sets = sets;
    cfg.start = -1;
    cfg.seed = 7;
    cfg.farm_rule = farm_rule;
    cfg.small_city = small_city;
    return bu_game_cfg(&cfg);
}

/* V01: one completed city of 3 tiles (a band and two caps) touching four farms: north and
 * south of the band, and the field of each cap. Red farms north of the band and beside the
 * west cap, Blue beside the east cap; nobody farms south. west_cap: the west cap's tile
 * (CA.01 makes the city besieged). */
static struct carc_game *v01(int farm_rule, const char *west_cap)
{
    struct carc_game *g = variant_game(SIEGE_SETS, farm_rule, 0);
    put(g, RED, "BA.F", 11, 0, 0, "f1", 0);
    put(g, RED, west_cap, 10, 0, 90, "f1", 0);
    put(g, BLUE, "BA.E", 12, 0, 270, "f1", 0);
    ck_assert_int_ne(bu_root(g, 11, 0, "f1"), bu_root(g, 10, 0, "f1"));
    ck_assert_int_ne(bu_root(g, 11, 0, "f1"), bu_root(g, 11, 0, "f2"));
    ck_assert_int_eq(g->players[RED].score, 0);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    carc_game_finish(g);
    return g;
}

START_TEST(v01_third_each_farm_scores_the_city)
{
    struct carc_game *g = v01(CARC_FARMS_THIRD, "BA.E");
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_SCORE, CARC_SEG_FIELD), 3);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 11, 0, "f1");
    ck_assert_int_eq(e->cities, 1);
    ck_assert_int_eq(e->points, 3);
    ck_assert_int_eq(e->scorers, RB);
    ck_assert_int_eq(g->players[RED].score, 6);
    ck_assert_int_eq(g->players[BLUE].score, 3);
    bu_game_free(g);
}
END_TEST

START_TEST(v01_second_a_player_scores_a_city_once)
{
    struct carc_game *g = v01(CARC_FARMS_SECOND, "BA.E");
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_SCORE, CARC_SEG_FIELD), 3);
    /* Both of Red's farms are worth 3; the one scored second gives Red nothing more. */
    const struct carc_event *n = ev_at(g, CARC_EV_SCORE, 11, 0, "f1");
    const struct carc_event *w = ev_at(g, CARC_EV_SCORE, 10, 0, "f1");
    ck_assert_int_eq(n->points, 3);
    ck_assert_int_eq(w->points, 3);
    ck_assert_int_eq(n->scorers, RB);
    ck_assert_int_eq(n->delta[RED] + w->delta[RED], 3);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 12, 0, "f1");
    ck_assert_int_eq(e->delta[BLUE], 3);
    ck_assert_int_eq(g->players[RED].score, 3);
    ck_assert_int_eq(g->players[BLUE].score, 3);
    bu_game_free(g);
}
END_TEST

START_TEST(v01_first_the_city_goes_to_the_most_farmers)
{
    struct carc_game *g = v01(CARC_FARMS_FIRST, "BA.E");
    /* Red 2 farmers over the city's four farms, Blue 1: 4 to Red only. */
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_SCORE, CARC_SEG_FIELD), 1);
    const struct carc_event *e = bu_ev_nth(g, CARC_EV_SCORE, CARC_SEG_FIELD, 0);
    ck_assert_int_eq(e->cities, 1);
    ck_assert_int_eq(e->besieged, 0);
    ck_assert_int_eq(e->points, 4);
    ck_assert_int_eq(e->scorers, RB);
    ck_assert_uint_ne(e->flags & CARC_EVF_FINAL, 0);
    /* It names the city. */
    ck_assert_int_eq(
        carc_game_feature(g, carc_game_node(g, carc_game_tile_at(g, e->x, e->y) - 1, e->seg)),
        bu_root(g, 11, 0, "c1"));
    ck_assert_int_eq(g->players[RED].score, 4);
    ck_assert_int_eq(g->players[BLUE].score, 0);
    bu_game_free(g);
}
END_TEST

/* V02: V01 with the west cap besieged (CA.01): every rule doubles the besieged city. */
START_TEST(v02_besieged_city_doubles_under_every_rule)
{
    static const int want[3][2] = {{12, 6}, {6, 6}, {8, 0}}; /* third, second, first */
    for (int rule = 0; rule < 3; rule++) {
        struct carc_game *g = v01(rule, "CA.01");
        ck_assert_int_eq(g->players[RED].score, want[rule][0]);
        ck_assert_int_eq(g->players[BLUE].score, want[rule][1]);
        const struct carc_event *e = bu_ev_nth(g, CARC_EV_SCORE, CARC_SEG_FIELD, 0);
        ck_assert_int_eq(e->besieged, 1);
        bu_game_free(g);
    }
}
END_TEST

/* V03: two cities of two caps each. City A runs north-south ((10,-1) and (10,0)), city B
 * west-east ((11,0) and (12,0)). Farm F1, the fields of (10,0) and (11,0), touches both:
 * Red farms there. F2, north of city A, touches A only: Red. F3, east of city B, touches B
 * only: Blue. */
static struct carc_game *v03(int farm_rule)
{
    struct carc_game *g = variant_game(BU_BASE, farm_rule, 0);
    put(g, RED, "BA.E", 10, 0, 0, "f1", 0);    /* city A's south cap */
    put(g, BLUE, "BA.E", 11, 0, 90, NULL, 0);  /* city B's west cap; its field joins F1 */
    put(g, BLUE, "BA.E", 12, 0, 270, "f1", 0); /* city B's east cap: closes B */
    put(g, RED, "BA.E", 10, -1, 180, "f1", 0); /* city A's north cap: closes A */
    ck_assert_int_eq(bu_root(g, 10, 0, "f1"), bu_root(g, 11, 0, "f1"));
    ck_assert_int_ne(bu_root(g, 10, 0, "f1"), bu_root(g, 10, -1, "f1"));
    ck_assert_int_ne(bu_root(g, 10, 0, "f1"), bu_root(g, 12, 0, "f1"));
    ck_assert_int_ne(bu_root(g, 10, 0, "c1"), bu_root(g, 11, 0, "c1"));
    carc_game_finish(g);
    return g;
}

START_TEST(v03_third)
{
    struct carc_game *g = v03(CARC_FARMS_THIRD);
    /* F1: A and B, 6 to Red; F2: A, 3 to Red; F3: B, 3 to Blue. */
    ck_assert_int_eq(g->players[RED].score, 9);
    ck_assert_int_eq(g->players[BLUE].score, 3);
    bu_game_free(g);
}
END_TEST

START_TEST(v03_second)
{
    struct carc_game *g = v03(CARC_FARMS_SECOND);
    /* Red scores A and B once each through F1; F2 is worth 3 but brings Red nothing new. */
    ck_assert_int_eq(g->players[RED].score, 6);
    ck_assert_int_eq(g->players[BLUE].score, 3);
    const struct carc_event *f1 = ev_at(g, CARC_EV_SCORE, 10, 0, "f1");
    ck_assert_int_eq(f1->points, 6);
    ck_assert_int_eq(f1->delta[RED], 6);
    const struct carc_event *f2 = ev_at(g, CARC_EV_SCORE, 10, -1, "f1");
    ck_assert_int_eq(f2->points, 3);
    ck_assert_int_eq(f2->scorers, RB);
    ck_assert_int_eq(f2->delta[RED], 0);
    ck_assert_int_eq(ev_at(g, CARC_EV_SCORE, 12, 0, "f1")->delta[BLUE], 3);
    bu_game_free(g);
}
END_TEST

START_TEST(v03_first)
{
    struct carc_game *g = v03(CARC_FARMS_FIRST);
    /* City A: F1 and F2, Red 2: Red 4. City B: F1 and F3, Red 1 and Blue 1: 4 each. */
    ck_assert_int_eq(g->players[RED].score, 8);
    ck_assert_int_eq(g->players[BLUE].score, 4);
    ck_assert_int_eq(bu_ev_count(g, CARC_EV_SCORE, CARC_SEG_FIELD), 2);
    const struct carc_event *r = bu_ev_nth(g, CARC_EV_SCORE, CARC_SEG_FIELD, 0);
    const struct carc_event *b = bu_ev_nth(g, CARC_EV_SCORE, CARC_SEG_FIELD, 1);
    ck_assert_int_eq(r->scorers, RB);
    ck_assert_int_eq(r->cities, 2);
    ck_assert_int_eq(r->points, 8);
    ck_assert_int_eq(b->scorers, BB);
    ck_assert_int_eq(b->cities, 1);
    ck_assert_int_eq(b->points, 4);
    bu_game_free(g);
}
END_TEST

START_TEST(farms_rule_without_farmers_scores_nothing)
{
    for (int rule = 0; rule < 3; rule++) {
        struct carc_config cfg = {0};
        cfg.nplayers = 2;
        cfg.start = -1;
        cfg.seed = 7;
        cfg.no_farmers = 1;
        cfg.farm_rule = rule;
        struct carc_game *g = bu_game_cfg(&cfg);
        put(g, RED, "BA.E", 10, 0, 0, NULL, 0);
        put(g, BLUE, "BA.E", 10, -1, 180, NULL, 0);
        carc_game_finish(g);
        ck_assert_int_eq(bu_ev_count(g, CARC_EV_SCORE, CARC_SEG_FIELD), 0);
        bu_game_free(g);
    }
}
END_TEST

START_TEST(farms_rule_unknown_refused)
{
    struct carc_config cfg = {0};
    cfg.nplayers = 2;
    cfg.start = -1;
    cfg.farm_rule = 3;
    struct carc_game *g = calloc(1, sizeof *g);
    struct carc_error err = {0};
    ck_assert_int_eq(carc_game_init(g, &cfg, &err), CARC_E_INVAL);
    ck_assert_ptr_nonnull(strstr(err.text, "farm"));
    free(g);
}
END_TEST

/* --- V04, V05: the first edition's small city ------------------------------------------- */

/* A 2-tile city closed by Blue's knight: 4, or 2 with small_city. cap: the south cap. */
static void v04(const char *cap, unsigned sets, int small, int points)
{
    struct carc_game *g = variant_game(sets, CARC_FARMS_THIRD, small);
    put(g, RED, cap, 10, 0, 0, NULL, 0);
    put(g, BLUE, "BA.E", 10, -1, 180, "c1", 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c1");
    ck_assert_int_eq(e->tiles, 2);
    ck_assert_int_eq(e->points, points);
    ck_assert_int_eq(g->players[BLUE].meeples, CARC_MEEPLES);
    bu_game_free(g);
}

START_TEST(v04_small_city_scores_two)
{
    v04("BA.E", BU_BASE, 0, 4);
    v04("BA.E", BU_BASE, 1, 2);
    /* Besieged: 1 a tile already, the variant changes nothing. */
    v04("CA.01", SIEGE_SETS, 0, 2);
    v04("CA.01", SIEGE_SETS, 1, 2);
}
END_TEST

START_TEST(v04_small_city_keeps_the_apothecary_bonus)
{
    struct carc_game *g = variant_game(BU_BASE | BU_SET(APOTHECARIES_TITHES), 0, 1);
    put(g, RED, "AT.01", 10, 0, 0, NULL, 0);
    put(g, BLUE, "BA.E", 10, -1, 180, "c1", 0);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 10, 0, "c1");
    ck_assert_int_eq(e->points, 2);
    ck_assert_int_eq(e->delta[BLUE], 12);
    ck_assert_int_eq(g->players[BLUE].score, 12);
    bu_game_free(g);
}
END_TEST

/* V05: only 2-tile cities: a 3-tile city and an open 2-tile city at the end score as usual. */
START_TEST(v05_small_city_only_two_tiles_completed)
{
    struct carc_game *g = variant_game(BU_BASE, 0, 1);
    put(g, RED, "BA.E", 10, 0, 90, "c1", 0);
    put(g, BLUE, "BA.G", 11, 0, 0, NULL, 0);
    put(g, BLUE, "BA.E", 12, 0, 270, NULL, 0);
    ck_assert_int_eq(g->players[RED].score, 6);
    put(g, BLUE, "BA.N", 20, 0, 0, "c1", 0); /* corner N+W, open */
    put(g, BLUE, "BA.E", 19, 0, 90, NULL, 0);
    carc_game_finish(g);
    const struct carc_event *e = ev_at(g, CARC_EV_SCORE, 20, 0, "c1");
    ck_assert_int_eq(e->tiles, 2);
    ck_assert_int_eq(e->points, 2); /* 1 a tile at the end, variant or not */
    ck_assert_int_eq(g->players[BLUE].score, 2);
    bu_game_free(g);
}
END_TEST

/* --- random games under every variant ---------------------------------------------------- */

START_TEST(random_games_every_variant)
{
    static const unsigned sets[] = {BU_BASE, CARC_SETS_ALL};
    for (int rule = 0; rule < 3; rule++)
        for (int small = 0; small < 2; small++)
            for (int k = 0; k < 2; k++)
                for (uint64_t seed = 1; seed <= 3; seed++) {
                    struct carc_config cfg = {0};
                    cfg.nplayers = 2 + (int)(seed % 4);
                    cfg.sets = sets[k];
                    cfg.start = -1;
                    cfg.seed = seed * 101 + (uint64_t)rule;
                    cfg.farm_rule = rule;
                    cfg.small_city = small;
                    struct carc_game *g = bu_game_cfg(&cfg);
                    int discards, escapes;
                    bu_random_game(g, seed, k == 1, &discards, &escapes);
                    struct carc_error err = {0};
                    ck_assert_msg(carc_game_check(g, &err) == 0, "%s", err.text);
                    ck_assert_int_eq(g->phase, CARC_PHASE_OVER);
                    bu_game_free(g);
                }
}
END_TEST

/* The same moves under another farm rule differ only in the farm events: the scores before
 * the end are equal. */
START_TEST(variants_change_only_their_scoring)
{
    struct carc_game *a = variant_game(BU_BASE, CARC_FARMS_THIRD, 0);
    struct carc_game *b = variant_game(BU_BASE, CARC_FARMS_FIRST, 0);
    int d, e;
    bu_random_game(a, 5, 0, &d, &e);
    bu_random_game(b, 5, 0, &d, &e);
    ck_assert_int_eq(a->turn, b->turn);
    for (int p = 0; p < 2; p++) {
        int fa = 0, fb = 0;
        for (int i = 0; i < a->nevents; i++)
            if (a->events[i].kind == CARC_SEG_FIELD)
                fa += a->events[i].delta[p];
        for (int i = 0; i < b->nevents; i++)
            if (b->events[i].kind == CARC_SEG_FIELD)
                fb += b->events[i].delta[p];
        ck_assert_int_eq(a->players[p].score - fa, b->players[p].score - fb);
    }
    bu_game_free(a);
    bu_game_free(b);
}
END_TEST

/* --- records --------------------------------------------------------------------------- */

/* A record written before the variants existed means the current rules; the writer gives
 * every option. */
START_TEST(record_without_variants_means_defaults)
{
    static const char text[] = "{\"format\":\"carcassonne-game/1\",\"players\":[{\"name\":\"A\"},"
                               "{\"name\":\"B\"}],\"options\":{\"farmers\":true},\"seed\":3,"
                               "\"moves\":[]}";
    static struct carc_record R;
    struct proto_error err;
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_load(text, strlen(text), 0, &R, &err), 0);
    ck_assert_int_eq(R.farm_rule, CARC_FARMS_THIRD);
    ck_assert_int_eq(R.small_city, 0);
    ck_assert_int_eq(R.seat_random, 0);
    struct carc_game *g = calloc(1, sizeof *g);
    struct carc_error cerr = {0};
    ck_assert_int_eq(carc_record_start(&R, g, &cerr), 0);
    ck_assert_int_eq(g->farm_rule, CARC_FARMS_THIRD);
    ck_assert_int_eq(g->small_city, 0);
    free(g);
    R.farm_rule = CARC_FARMS_SECOND;
    R.small_city = 1;
    char *out = NULL;
    ck_assert_int_eq(proto_record_dump(&R, 0, &out, &err), 0);
    ck_assert_ptr_nonnull(
        strstr(out, "\"farms\":\"second\",\"small_city\":2,\"seat_order\":\"seated\""));
    static struct carc_record R2;
    ck_assert_int_eq(proto_record_load(out, strlen(out), 0, &R2, &err), 0);
    ck_assert_int_eq(R2.farm_rule, CARC_FARMS_SECOND);
    ck_assert_int_eq(R2.small_city, 1);
    free(out);
}
END_TEST

/* --- the server: a room created with the variants ---------------------------------------- */

/* Seat order "random": the seats are shuffled at the start by room_seat_order from the seed,
 * every player is told its new seat, the host stays the host, and the lobby listing, the
 * state and the record carry every option. */
START_TEST(room_random_seat_order_and_options)
{
    uint64_t seed = 1;
    int order[3];
    for (;; seed++) { /* a seed whose order is not the seated one */
        room_seat_order(seed, 3, order);
        if (order[0] != 0 || order[1] != 1)
            break;
    }
    ck_assert_int_eq(lobby_test_game(lb, seed, short_deck, SHORT_DECK), 0);
    struct fake *a = fake_new(), *b = fake_new(), *c = fake_new(), *d = fake_new();
    struct room *r = create(a, "3, \"options\": {\"seat_order\": \"random\", \"farms\": "
                               "\"first\", \"small_city\": 2}");
    join(b, a->room, "Bob");
    join(c, a->room, "Cy");
    drain(a);
    drain(b);
    int farm_rule = -1, small_city = -1;
    ck_assert_int_eq(proto_client_variants(a->doc, &farm_rule, &small_city), 0);
    ck_assert_int_eq(farm_rule, CARC_FARMS_FIRST);
    ck_assert_int_eq(small_city, 1);
    say(d, "\"type\":\"list\"");
    const char *l = expect(d, "rooms");
    ck_assert_str_eq(jstr(l, "rooms.0.options.farms"), "first");
    ck_assert_int_eq(jint(l, "rooms.0.options.small_city"), 2);
    ck_assert_str_eq(jstr(l, "rooms.0.options.seat_order"), "random");
    ck_assert_str_eq(jstr(l, "rooms.0.options.siege_escape"), "siege-tile");

    say(a, "\"type\":\"start\"");
    drain(a);
    drain(b);
    drain(c);
    ck_assert_ptr_nonnull(r->game);
    ck_assert_int_eq(r->game->farm_rule, CARC_FARMS_FIRST);
    ck_assert_int_eq(r->game->small_city, 1);
    /* A client rebuilding the game from its document (the bots' view) scores the same way. */
    struct carc_game *cg = calloc(1, sizeof *cg);
    struct carc_error cerr = {0};
    ck_assert_int_eq(proto_client_game(a->doc, cg, &cerr), 0);
    ck_assert_int_eq(cg->farm_rule, CARC_FARMS_FIRST);
    ck_assert_int_eq(cg->small_city, 1);
    free(cg);
    const char *names[3] = {"Ann", "Bob", "Cy"};
    struct fake *who[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        ck_assert_str_eq(r->seats[k].name, names[order[k]]);
        ck_assert_int_eq(who[order[k]]->seat, k); /* told by `joined` */
        ck_assert_int_eq(r->seats[k].s->seat, k);
        if (order[k] == 0)
            ck_assert_int_eq(r->host, k);
    }
    /* The documents agree: the seat each client now holds has its name. */
    for (int i = 0; i < 3; i++) {
        struct proto_client_seat seat;
        ck_assert_int_eq(proto_client_seat_get(who[i]->doc, who[i]->seat, &seat), 0);
        ck_assert_str_eq(seat.name, names[i]);
    }
    char *rec = room_record_json(r, NULL);
    ck_assert_ptr_nonnull(rec);
    static struct carc_record R;
    struct proto_error err;
    proto_error_init(&err);
    ck_assert_int_eq(proto_record_load(rec, strlen(rec), 0, &R, &err), 0);
    ck_assert_int_eq(R.farm_rule, CARC_FARMS_FIRST);
    ck_assert_int_eq(R.small_city, 1);
    ck_assert_int_eq(R.seat_random, 1);
    for (int k = 0; k < 3; k++)
        ck_assert_str_eq(R.names[k], names[order[k]]);
    free(rec);
}
END_TEST

START_TEST(room_bad_variant_refused)
{
    struct fake *a = fake_new();
    say(a, "\"type\":\"create\",\"name\":\"Ann\",\"seats\":2,\"options\":{\"farms\":\"4th\"}");
    const char *e = expect_error(a, "bad_request");
    ck_assert_ptr_nonnull(strstr(jstr(e, "message"), "options.farms"));
    say(a, "\"type\":\"create\",\"name\":\"Ann\",\"seats\":2,\"options\":{\"small_city\":3}");
    e = expect_error(a, "bad_request");
    ck_assert_ptr_nonnull(strstr(jstr(e, "message"), "options.small_city"));
    ck_assert_int_eq(lb->nrooms, 0);
}
END_TEST

Suite *suite_variants(void)
{
    Suite *s = suite_create("variants");
    TCase *f = tcase_create("farms");
    tcase_add_test(f, v01_third_each_farm_scores_the_city);
    tcase_add_test(f, v01_second_a_player_scores_a_city_once);
    tcase_add_test(f, v01_first_the_city_goes_to_the_most_farmers);
    tcase_add_test(f, v02_besieged_city_doubles_under_every_rule);
    tcase_add_test(f, v03_third);
    tcase_add_test(f, v03_second);
    tcase_add_test(f, v03_first);
    tcase_add_test(f, farms_rule_without_farmers_scores_nothing);
    tcase_add_test(f, farms_rule_unknown_refused);
    suite_add_tcase(s, f);
    TCase *c = tcase_create("small_city");
    tcase_add_test(c, v04_small_city_scores_two);
    tcase_add_test(c, v04_small_city_keeps_the_apothecary_bonus);
    tcase_add_test(c, v05_small_city_only_two_tiles_completed);
    suite_add_tcase(s, c);
    TCase *r = tcase_create("random");
    tcase_set_timeout(r, 60);
    tcase_add_test(r, random_games_every_variant);
    tcase_add_test(r, variants_change_only_their_scoring);
    suite_add_tcase(s, r);
    TCase *rec = tcase_create("record");
    tcase_add_test(rec, record_without_variants_means_defaults);
    suite_add_tcase(s, rec);
    TCase *room = tcase_with("room", setup_default);
    tcase_add_test(room, room_random_seat_order_and_options);
    tcase_add_test(room, room_bad_variant_refused);
    suite_add_tcase(s, room);
    return s;
}
