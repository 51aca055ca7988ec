/* test_tiles.c: the tile catalogue (tiles_data.c) against RULES.md (docs/rules.md).
 *
 * RULES.md is read with a small parser of our own (not common/gen/tiles.py):
 * every record in the ``` blocks of sections 3.1-3.5 and 6.2 is compared field by
 * field with carc_tiles[], and the composition totals of the rules are checked. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "tiles.h"

#define MAX_RTILES 96

struct rseg {
    char name[12];
    int kind;
    unsigned mask, flags, touches;
    int pennants, end;
    int stated; /* the {0x..} mask written in the record, -1 if none */
    char touch_names[40];
};

struct rtile {
    char id[8];
    char what[200];
    char edges[5]; /* "CRFR" */
    int count, set, start, cloister, barn, nsegs;
    char barn_in[40];
    struct rseg segs[CARC_MAX_SEGS];
};

static struct rtile rt[MAX_RTILES];
static int nrt;
static char problems[6000];
static int nproblems;

static void problem(const char *fmt, ...)
{
    char line[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tiles: %s\n", line);
    size_t n = strlen(problems);
    if (n + strlen(line) + 3 < sizeof problems)
        snprintf(problems + n, sizeof problems - n, "%s; ", line);
    nproblems++;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static void copy_trim(char *dst, size_t cap, const char *src)
{
    src = skip_ws(src);
    size_t n = strcspn(src, "\r\n");
    while (n > 0 && isspace((unsigned char)src[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int dir_bit(char c)
{
    switch (c) {
    case 'N':
        return 1;
    case 'E':
        return 2;
    case 'S':
        return 4;
    case 'W':
        return 8;
    }
    return 0;
}

static int half_bit(const char *tok)
{
    static const char *const names[8] = {"Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn"};
    for (int i = 0; i < 8; i++)
        if (strncmp(tok, names[i], 2) == 0 && !isalnum((unsigned char)tok[2]))
            return 1 << i;
    return 0;
}

static int set_of(const char *id)
{
    static const char *const pre[CARC_SET_COUNT] = {"BA", "IC", "BS", "CA", "SG", "AT"};
    for (int s = 0; s < CARC_SET_COUNT; s++)
        if (strncmp(id, pre[s], 2) == 0)
            return s;
    return -1;
}

/* Flags in brackets: "[pennant]", "[SIEGE]", "[INN]" ... */
static void parse_brackets(const char *p, struct rseg *s)
{
    const char *b = strchr(p, '[');
    while (b != NULL) {
        const char *e = strchr(b, ']');
        if (e == NULL)
            break;
        char word[40];
        size_t n = (size_t)(e - b - 1) < sizeof word - 1 ? (size_t)(e - b - 1) : sizeof word - 1;
        memcpy(word, b + 1, n);
        word[n] = '\0';
        if (strcmp(word, "pennant") == 0)
            s->pennants++;
        else if (strcmp(word, "CATHEDRAL") == 0)
            s->flags |= CARC_SF_CATHEDRAL;
        else if (strcmp(word, "SIEGE") == 0)
            s->flags |= CARC_SF_SIEGE;
        else if (strcmp(word, "INN") == 0)
            s->flags |= CARC_SF_INN;
        else if (strcmp(word, "APOTHECARY") == 0)
            s->flags |= CARC_SF_APOTHECARY;
        else
            problem("RULES.md: unknown flag [%s]", word);
        b = strchr(e, '[');
    }
}

static void parse_seg(struct rtile *t, const char *line)
{
    if (t->nsegs >= CARC_MAX_SEGS) {
        problem("%s: too many segments", t->id);
        return;
    }
    struct rseg *s = &t->segs[t->nsegs++];
    memset(s, 0, sizeof *s);
    s->stated = -1;
    const char *eq = strchr(line, '=');
    size_t nl = (size_t)(eq - line);
    while (nl > 0 && line[nl - 1] == ' ')
        nl--;
    memcpy(s->name, line, nl < sizeof s->name ? nl : sizeof s->name - 1);
    const char *p = skip_ws(eq + 1);
    if (line[0] == 'c') {
        s->kind = CARC_SEG_CITY;
        for (; *p && *p != '[' && *p != ';'; p++)
            s->mask |= (unsigned)dir_bit(*p);
        parse_brackets(p, s);
    } else if (line[0] == 'r') {
        s->kind = CARC_SEG_ROAD;
        for (; *p && *p != ' '; p++)
            s->mask |= (unsigned)dir_bit(*p);
        p = skip_ws(p);
        if (strncmp(p, "through", 7) == 0)
            s->end = CARC_END_NONE;
        else if (strncmp(p, "ends at city", 12) == 0)
            s->end = CARC_END_CITY;
        else if (strncmp(p, "ends at cloister", 16) == 0)
            s->end = CARC_END_CLOISTER;
        else if (strncmp(p, "ends at junction", 16) == 0)
            s->end = CARC_END_JUNCTION;
        else if (strncmp(p, "ends at village", 15) == 0)
            s->end = CARC_END_VILLAGE;
        else if (strncmp(p, "ends at barn", 12) == 0)
            s->end = CARC_END_BARN;
        else
            problem("%s %s: unknown road end '%s'", t->id, s->name, p);
        parse_brackets(p, s);
    } else {
        s->kind = CARC_SEG_FIELD;
        while (*p && *p != '{') {
            if (*p == '(') { /* "(enclosed, no edge)" */
                p = strchr(p, ')');
                if (p == NULL)
                    return;
                p++;
                continue;
            }
            int b = half_bit(p);
            if (b == 0 && *p != ' ')
                problem("%s %s: unknown half-edge at '%s'", t->id, s->name, p);
            s->mask |= (unsigned)b;
            while (*p && *p != ' ' && *p != '{')
                p++;
            p = skip_ws(p);
        }
        if (*p == '{')
            s->stated = (int)strtol(p + 1, NULL, 16);
        const char *tc = strstr(p, "touches");
        if (tc != NULL) {
            tc = skip_ws(tc + 7);
            size_t n = strcspn(tc, " \t\r\n(");
            if (n >= sizeof s->touch_names)
                n = sizeof s->touch_names - 1;
            memcpy(s->touch_names, tc, n);
        }
    }
}

static int rseg_find(const struct rtile *t, const char *name, size_t len)
{
    for (int i = 0; i < t->nsegs; i++)
        if (strlen(t->segs[i].name) == len && strncmp(t->segs[i].name, name, len) == 0)
            return i;
    return -1;
}

/* Apply what needs the whole record: touches, the barn, the cloister segment. */
static void finish_tile(struct rtile *t)
{
    for (int i = 0; i < t->nsegs; i++) {
        const char *p = t->segs[i].touch_names;
        while (*p) {
            size_t n = strcspn(p, ",");
            int k = rseg_find(t, p, n);
            if (k < 0 || t->segs[k].kind != CARC_SEG_CITY)
                problem("%s %s touches unknown city '%.*s'", t->id, t->segs[i].name, (int)n, p);
            else
                t->segs[i].touches |= 1u << k;
            p += n + (p[n] == ',');
        }
    }
    if (t->barn) {
        const char *p = t->barn_in;
        while (*p) {
            while (*p == ' ' || *p == ',')
                p++;
            size_t n = strcspn(p, ", )");
            if (n == 0)
                break;
            int k = rseg_find(t, p, n);
            if (k < 0 || t->segs[k].kind != CARC_SEG_FIELD)
                problem("%s: barn in unknown field '%.*s'", t->id, (int)n, p);
            else
                t->segs[k].flags |= CARC_SF_BARN;
            p += n;
        }
    }
    if (t->cloister && t->nsegs < CARC_MAX_SEGS) {
        struct rseg *s = &t->segs[t->nsegs++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "cloister");
        s->kind = CARC_SEG_CLOISTER;
        s->stated = -1;
    }
}

static int in_scope_heading(const char *line)
{
    static const char *const heads[] = {"### 3.1", "### 3.2", "### 3.3",
                                        "### 3.4", "### 3.5", "### 6.2"};
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
        if (strncmp(line, heads[i], 7) == 0)
            return 1;
    return 0;
}

static int is_header(const char *p)
{
    return isupper((unsigned char)p[0]) && isupper((unsigned char)p[1]) && p[2] == '.' &&
           isalnum((unsigned char)p[3]);
}

static void load_rules(void)
{
    if (nrt > 0)
        return;
    const char *path = TEST_RULES_PATH;
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char line[1024];
    int scope = 0, code = 0;
    struct rtile *cur = NULL;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "## ", 3) == 0 || strncmp(line, "### ", 4) == 0) {
            scope = in_scope_heading(line);
            continue;
        }
        if (strncmp(line, "```", 3) == 0) {
            if (code && cur != NULL)
                finish_tile(cur);
            cur = NULL;
            code = !code;
            continue;
        }
        if (!scope || !code)
            continue;
        const char *p = skip_ws(line);
        if (is_header(p)) {
            if (cur != NULL)
                finish_tile(cur);
            ck_assert_int_lt(nrt, MAX_RTILES);
            cur = &rt[nrt++];
            memset(cur, 0, sizeof *cur);
            int n = 0;
            ck_assert_msg(
                sscanf(p, "%7s x%d edges %4[CRF]%n", cur->id, &cur->count, cur->edges, &n) == 3,
                "bad header: %s", p);
            cur->set = set_of(cur->id);
            const char *rest = skip_ws(p + n);
            cur->start = strstr(rest, "start tile") != NULL;
            if (*rest != '(' && *rest != ';')
                copy_trim(cur->what, sizeof cur->what, rest); /* 6.2 style header */
            if (*rest == '(') { /* "(N=F E=F S=R W=F)" must agree with the edge string */
                char chk[5] = {0};
                if (sscanf(rest, "(N=%c E=%c S=%c W=%c)", &chk[0], &chk[1], &chk[2], &chk[3]) !=
                        4 ||
                    strcmp(chk, cur->edges) != 0)
                    problem("RULES.md %s: (N=..) note disagrees with %s", cur->id, cur->edges);
            }
            continue;
        }
        if (cur == NULL)
            continue;
        if (strncmp(p, "what:", 5) == 0)
            copy_trim(cur->what, sizeof cur->what, p + 5);
        else if (strncmp(p, "CLOISTER", 8) == 0)
            cur->cloister = 1;
        else if (strncmp(p, "BARN", 4) == 0) {
            cur->barn = 1;
            const char *in = strstr(p, "(in ");
            if (in != NULL)
                copy_trim(cur->barn_in, sizeof cur->barn_in, in + 4);
        } else if ((p[0] == 'c' || p[0] == 'r' || p[0] == 'f') && isdigit((unsigned char)p[1]) &&
                   strchr(p, '=') != NULL)
            parse_seg(cur, p);
        else if (*p != '\n' && *p != '\r' && *p != '\0')
            problem("RULES.md: unparsed line in %s: %s", cur->id, p);
    }
    fclose(f);
}

static int kind_of(char c)
{
    return c == 'C' ? CARC_EDGE_CITY : c == 'R' ? CARC_EDGE_ROAD : c == 'F' ? CARC_EDGE_FIELD : 0;
}

static unsigned pack_edges(const char *e)
{
    unsigned v = 0;
    for (int d = 0; d < 4; d++)
        v |= (unsigned)kind_of(e[d]) << (2 * d);
    return v;
}

/* ---- RULES.md self-consistency (so that the parser itself is exercised) ---- */

START_TEST(rules_parsed)
{
    load_rules();
    ck_assert_int_eq(nrt, 24 + 17 + 6 + 4 + 4 + 12);
    for (int i = 0; i < nrt; i++) {
        const struct rtile *t = &rt[i];
        ck_assert_msg(t->set >= 0, "%s: unknown set", t->id);
        ck_assert_msg(t->nsegs > 0, "%s: no segments", t->id);
        ck_assert_msg(t->what[0] != '\0', "%s: no description", t->id);
        int rank = 0, num = 0;
        for (int k = 0; k < t->nsegs; k++) {
            const struct rseg *s = &t->segs[k];
            if (s->kind == CARC_SEG_CLOISTER) {
                ck_assert_msg(k == t->nsegs - 1, "%s: cloister not last", t->id);
                continue;
            }
            int r = s->name[0] == 'c' ? 0 : s->name[0] == 'r' ? 1 : 2;
            ck_assert_msg(r >= rank, "%s: %s after a later kind", t->id, s->name);
            if (r != rank)
                num = 0, rank = r;
            ck_assert_msg(atoi(s->name + 1) == ++num, "%s: %s out of order", t->id, s->name);
            if (s->kind == CARC_SEG_FIELD)
                ck_assert_msg(s->stated == (int)s->mask, "%s %s: stated {0x%02X} != halves 0x%02X",
                              t->id, s->name, (unsigned)s->stated, s->mask);
        }
    }
    ck_assert_msg(nproblems == 0, "%s", problems);
}
END_TEST

/* ---- the catalogue against RULES.md ---- */

START_TEST(catalogue_matches_rules)
{
    load_rules();
    ck_assert_int_eq(carc_tiles_count, nrt);
    for (int i = 0; i < nrt && i < carc_tiles_count; i++) {
        const struct rtile *r = &rt[i];
        const struct carc_tile *c = &carc_tiles[i];
        if (strcmp(c->id, r->id) != 0) {
            problem("tile %d: id %s, RULES.md %s", i, c->id, r->id);
            continue;
        }
        if (c->what == NULL || strcmp(c->what, r->what) != 0)
            problem("%s: what '%s' != '%s'", r->id, c->what ? c->what : "(null)", r->what);
        if (c->set != r->set)
            problem("%s: set %d != %d", r->id, c->set, r->set);
        if (c->count != r->count)
            problem("%s: count %d != %d", r->id, c->count, r->count);
        if (c->edges != pack_edges(r->edges))
            problem("%s: edges 0x%02X != %s", r->id, c->edges, r->edges);
        unsigned tf = (r->cloister ? CARC_TF_CLOISTER : 0) | (r->barn ? CARC_TF_BARN : 0) |
                      (r->start ? CARC_TF_START : 0);
        if (c->flags != tf)
            problem("%s: tile flags 0x%02X != 0x%02X", r->id, c->flags, tf);
        if (c->nsegs != r->nsegs) {
            problem("%s: nsegs %d != %d", r->id, c->nsegs, r->nsegs);
            continue;
        }
        uint8_t es[4], hs[8];
        memset(es, CARC_SEG_NONE, sizeof es);
        memset(hs, CARC_SEG_NONE, sizeof hs);
        for (int k = 0; k < r->nsegs; k++) {
            const struct rseg *w = &r->segs[k];
            const struct carc_seg *s = &c->segs[k];
            if (s->name == NULL || strcmp(s->name, w->name) != 0) {
                problem("%s seg %d: name %s != %s", r->id, k, s->name ? s->name : "(null)",
                        w->name);
                continue;
            }
            if (s->kind != w->kind)
                problem("%s %s: kind %d != %d", r->id, w->name, s->kind, w->kind);
            if (s->mask != w->mask)
                problem("%s %s: mask 0x%02X != 0x%02X", r->id, w->name, s->mask, w->mask);
            if (s->flags != w->flags)
                problem("%s %s: flags 0x%02X != 0x%02X", r->id, w->name, s->flags, w->flags);
            if (s->pennants != w->pennants)
                problem("%s %s: pennants %d != %d", r->id, w->name, s->pennants, w->pennants);
            if (s->touches != w->touches)
                problem("%s %s: touches 0x%02X != 0x%02X", r->id, w->name, s->touches, w->touches);
            if (s->end != w->end)
                problem("%s %s: road end %d != %d", r->id, w->name, s->end, w->end);
            for (int b = 0; b < 8; b++) {
                if (w->kind == CARC_SEG_FIELD && (w->mask >> b & 1))
                    hs[b] = (uint8_t)k;
                if ((w->kind == CARC_SEG_CITY || w->kind == CARC_SEG_ROAD) && b < 4 &&
                    (w->mask >> b & 1))
                    es[b] = (uint8_t)k;
            }
        }
        if (memcmp(es, c->edge_seg, 4) != 0)
            problem("%s: edge_seg %d %d %d %d", r->id, c->edge_seg[0], c->edge_seg[1],
                    c->edge_seg[2], c->edge_seg[3]);
        if (memcmp(hs, c->half_seg, 8) != 0)
            problem("%s: half_seg differs", r->id);
        for (int k = r->nsegs; k < CARC_MAX_SEGS; k++)
            if (c->segs[k].name != NULL || c->segs[k].kind != 0)
                problem("%s: segment %d beyond nsegs is not empty", r->id, k);
    }
    ck_assert_msg(nproblems == 0, "%d problems: %s", nproblems, problems);
}
END_TEST

/* Edges and segments agree on every tile: a C edge is in one city segment, an R edge in
 * one road segment, an F edge in none; both halves of F and R edges belong to exactly one
 * field segment; no field half sits on a city edge. */
START_TEST(catalogue_geometry)
{
    for (int t = 0; t < carc_tiles_count; t++) {
        const struct carc_tile *c = &carc_tiles[t];
        for (int d = 0; d < 4; d++) {
            int kind = carc_tile_edge(t, 0, d);
            int cities = 0, roads = 0, halves[2] = {0, 0};
            for (int k = 0; k < c->nsegs; k++) {
                const struct carc_seg *s = &c->segs[k];
                if (s->kind == CARC_SEG_CITY && (s->mask >> d & 1))
                    cities++;
                if (s->kind == CARC_SEG_ROAD && (s->mask >> d & 1))
                    roads++;
                if (s->kind == CARC_SEG_FIELD) {
                    halves[0] += s->mask >> (2 * d) & 1;
                    halves[1] += s->mask >> (2 * d + 1) & 1;
                }
            }
            ck_assert_msg(kind >= CARC_EDGE_FIELD && kind <= CARC_EDGE_CITY, "%s", c->id);
            ck_assert_msg(cities == (kind == CARC_EDGE_CITY), "%s side %d: %d cities", c->id, d,
                          cities);
            ck_assert_msg(roads == (kind == CARC_EDGE_ROAD), "%s side %d: %d roads", c->id, d,
                          roads);
            int want = kind == CARC_EDGE_CITY ? 0 : 1;
            ck_assert_msg(halves[0] == want && halves[1] == want, "%s side %d: halves %d %d", c->id,
                          d, halves[0], halves[1]);
            if (kind == CARC_EDGE_FIELD) /* both halves of a field edge: same segment */
                ck_assert_msg(c->half_seg[2 * d] == c->half_seg[2 * d + 1], "%s side %d", c->id, d);
        }
        int cloisters = 0;
        for (int k = 0; k < c->nsegs; k++) {
            if (c->segs[k].kind == CARC_SEG_CLOISTER) {
                cloisters++;
                ck_assert_msg(k == c->nsegs - 1, "%s: cloister not last", c->id);
                ck_assert_str_eq(c->segs[k].name, "cloister");
            }
            ck_assert_msg(!(c->segs[k].flags & CARC_SF_BARN) || c->segs[k].kind == CARC_SEG_FIELD,
                          "%s: barn flag on a non-field", c->id);
        }
        ck_assert_int_eq(cloisters, (c->flags & CARC_TF_CLOISTER) ? 1 : 0);
    }
}
END_TEST

START_TEST(base_composition)
{
    int types = 0, tiles = 0, pennants = 0, cloisters = 0, kinds[4] = {0};
    for (int t = 0; t < carc_tiles_count; t++) {
        const struct carc_tile *c = &carc_tiles[t];
        if (c->set != CARC_SET_BASE)
            continue;
        types++;
        tiles += c->count;
        for (int k = 0; k < c->nsegs; k++) {
            pennants += c->count * c->segs[k].pennants;
            cloisters += c->count * (c->segs[k].kind == CARC_SEG_CLOISTER);
        }
        for (int d = 0; d < 4; d++)
            kinds[carc_tile_edge(t, 0, d)] += c->count;
    }
    ck_assert_int_eq(types, 24);
    ck_assert_int_eq(tiles, 72);
    ck_assert_int_eq(pennants, 10);
    ck_assert_int_eq(cloisters, 6);
    ck_assert_int_eq(kinds[CARC_EDGE_FIELD], 115);
    ck_assert_int_eq(kinds[CARC_EDGE_ROAD], 94);
    ck_assert_int_eq(kinds[CARC_EDGE_CITY], 79);
}
END_TEST

START_TEST(set_totals)
{
    static const int want_types[CARC_SET_COUNT] = {24, 17, 6, 4, 4, 12};
    static const int want_tiles[CARC_SET_COUNT] = {72, 18, 6, 4, 4, 12};
    int types[CARC_SET_COUNT] = {0}, tiles[CARC_SET_COUNT] = {0};
    int inns = 0, cathedrals = 0, ic_pennants = 0, sieges = 0, apothecaries = 0, barns = 0;
    int prev = 0;
    for (int t = 0; t < carc_tiles_count; t++) {
        const struct carc_tile *c = &carc_tiles[t];
        ck_assert_int_lt(c->set, CARC_SET_COUNT);
        ck_assert_int_ge(c->set, prev); /* catalogue in set order */
        prev = c->set;
        types[c->set]++;
        tiles[c->set] += c->count;
        barns += (c->flags & CARC_TF_BARN) ? 1 : 0;
        for (int k = 0; k < c->nsegs; k++) {
            unsigned f = c->segs[k].flags;
            inns += c->count * !!(f & CARC_SF_INN);
            cathedrals += c->count * !!(f & CARC_SF_CATHEDRAL);
            apothecaries += c->count * !!(f & CARC_SF_APOTHECARY);
            if (c->set == CARC_SET_INNS_CATHEDRALS)
                ic_pennants += c->count * c->segs[k].pennants;
            if (f & CARC_SF_SIEGE) {
                sieges++;
                ck_assert(c->set == CARC_SET_BESIEGERS || c->set == CARC_SET_CATHARS ||
                          c->set == CARC_SET_SIEGE);
            }
        }
    }
    for (int s = 0; s < CARC_SET_COUNT; s++) {
        ck_assert_int_eq(types[s], want_types[s]);
        ck_assert_int_eq(tiles[s], want_tiles[s]);
    }
    ck_assert_int_eq(carc_tiles_count, 67);
    ck_assert_int_eq(inns, 6);
    ck_assert_int_eq(cathedrals, 2);
    ck_assert_int_eq(ic_pennants, 3);
    ck_assert_int_eq(sieges, 14); /* every city of BS, CA, SG: one each */
    ck_assert_int_eq(apothecaries, 5);
    ck_assert_int_eq(barns, 7);
    /* exactly one start type, BA.D */
    for (int t = 0; t < carc_tiles_count; t++)
        ck_assert_int_eq(!!(carc_tiles[t].flags & CARC_TF_START),
                         strcmp(carc_tiles[t].id, "BA.D") == 0);
}
END_TEST

START_TEST(find_functions)
{
    for (int t = 0; t < carc_tiles_count; t++) {
        ck_assert_int_eq(carc_tile_find(carc_tiles[t].id), t);
        for (int k = 0; k < carc_tiles[t].nsegs; k++)
            ck_assert_int_eq(carc_tile_seg_find(t, carc_tiles[t].segs[k].name), k);
        ck_assert_int_eq(carc_tile_seg_find(t, "c9"), -1);
        ck_assert_int_eq(carc_tile_seg_find(t, ""), -1);
    }
    ck_assert_int_eq(carc_tile_find("BA.Y"), -1);
    ck_assert_int_eq(carc_tile_find("BA."), -1);
    ck_assert_int_eq(carc_tile_find("BA.DD"), -1);
    ck_assert_int_eq(carc_tile_find(""), -1);
    ck_assert_int_eq(carc_tile_find("IC.18"), -1);
    int a = carc_tile_find("BA.A"), c = carc_tile_find("BA.C"), d = carc_tile_find("BA.D");
    ck_assert_int_eq(a, 0);
    ck_assert_int_eq(d, 3);
    ck_assert_str_eq(carc_tiles[carc_tile_find("AT.12")].id, "AT.12");
    ck_assert_int_eq(carc_tile_seg_find(a, "cloister"), 2);
    ck_assert_int_eq(carc_tile_seg_find(a, "r1"), 0);
    ck_assert_int_eq(carc_tile_seg_find(a, "f1"), 1);
    ck_assert_int_eq(carc_tile_seg_find(c, "f1"), -1);
    ck_assert_int_eq(carc_tile_seg_find(c, "cloister"), -1);
    ck_assert_int_eq(carc_tile_seg_find(d, "f2"), 3);
    ck_assert_int_eq(carc_tile_seg_find(d, "f"), -1);
    ck_assert_int_eq(carc_tile_seg_find(d, "f22"), -1);
    int at06 = carc_tile_find("AT.06");
    ck_assert_int_eq(carc_tiles[at06].nsegs, 1); /* a barn is not a segment */
    ck_assert_int_eq(carc_tile_seg_find(at06, "barn"), -1);

    static const char *const names[CARC_SET_COUNT] = {
        "base", "inns-cathedrals", "besiegers", "cathars", "siege", "apothecaries-tithes"};
    for (int s = 0; s < CARC_SET_COUNT; s++) {
        ck_assert_int_eq(carc_set_find(names[s]), s);
        ck_assert_str_eq(carc_set_name(s), names[s]);
    }
    ck_assert_int_eq(carc_set_find("Base"), -1);
    ck_assert_int_eq(carc_set_find(""), -1);
    ck_assert_int_eq(carc_set_find("river"), -1);
}
END_TEST

/* ---- rotation (RULES.md 1.1, 1.2) ---- */

/* Edge string of a tile turned rot quarter turns clockwise: what was on N goes to E. */
static void rotate_str(const char *e, int rot, char out[5])
{
    for (int d = 0; d < 4; d++)
        out[(d + rot) % 4] = e[d];
    out[4] = '\0';
}

static void tile_str(int t, int rot, char out[5])
{
    static const char kinds[4] = {'?', 'F', 'R', 'C'};
    for (int d = 0; d < 4; d++)
        out[d] = kinds[carc_tile_edge(t, rot, d)];
    out[4] = '\0';
}

START_TEST(rotation_edges)
{
    static const struct {
        const char *id;
        const char *r[4];
    } cases[] = {
        {"BA.D", {"CRFR", "RCRF", "FRCR", "RFRC"}}, {"BA.A", {"FFRF", "FFFR", "RFFF", "FRFF"}},
        {"BA.J", {"CRRF", "FCRR", "RFCR", "RRFC"}}, {"BA.V", {"FFRR", "RFFR", "RRFF", "FRRF"}},
        {"BA.C", {"CCCC", "CCCC", "CCCC", "CCCC"}}, {"IC.10", {"RCRC", "CRCR", "RCRC", "CRCR"}},
    };
    char got[5];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int t = carc_tile_find(cases[i].id);
        ck_assert_int_ge(t, 0);
        for (int rot = 0; rot < 4; rot++) {
            tile_str(t, rot, got);
            ck_assert_msg(strcmp(got, cases[i].r[rot]) == 0, "%s rot %d: %s, want %s", cases[i].id,
                          rot, got, cases[i].r[rot]);
        }
    }
    load_rules();
    for (int t = 0; t < nrt && t < carc_tiles_count; t++)
        for (int rot = 0; rot < 4; rot++) {
            char want[5];
            rotate_str(rt[t].edges, rot, want);
            tile_str(t, rot, got);
            ck_assert_msg(strcmp(got, want) == 0, "%s rot %d: %s, want %s", rt[t].id, rot, got,
                          want);
        }
}
END_TEST

START_TEST(rotation_masks)
{
    /* 1.2: Nw->En, Ne->Es, En->Se, Es->Sw, Se->Ws, Sw->Wn, Ws->Nw, Wn->Ne */
    static const int to[8] = {2, 3, 4, 5, 6, 7, 0, 1};
    for (int i = 0; i < 8; i++) {
        ck_assert_uint_eq(carc_rot8((uint8_t)(1u << i), 1), 1u << to[i]);
        ck_assert_uint_eq(carc_rot8((uint8_t)(1u << i), 2), 1u << to[to[i]]);
        ck_assert_uint_eq(carc_rot8((uint8_t)(1u << i), 3), 1u << to[to[to[i]]]);
        ck_assert_uint_eq(carc_rot8((uint8_t)(1u << i), 0), 1u << i);
    }
    /* N->E->S->W->N */
    static const int dto[4] = {1, 2, 3, 0};
    for (int d = 0; d < 4; d++)
        for (int rot = 0; rot < 4; rot++) {
            int e = d;
            for (int k = 0; k < rot; k++)
                e = dto[e];
            ck_assert_uint_eq(carc_rot4((uint8_t)(1u << d), rot), 1u << e);
        }
    ck_assert_uint_eq(carc_rot8(0x84, 1), 0x12); /* BA.D f1 (En Wn) -> Se Ne */
    ck_assert_uint_eq(carc_rot8(0xFF, 3), 0xFF);
    ck_assert_uint_eq(carc_rot8(0x00, 2), 0x00);
    ck_assert_uint_eq(carc_rot4(0x0A, 1), 0x05); /* E-W road -> N-S */
    ck_assert_uint_eq(carc_rot4(0x0F, 3), 0x0F);
    ck_assert_uint_eq(carc_rot4(0x09, 1), 0x03); /* N+W corner -> N+E */

    /* On every tile and rotation, the rotated segment masks sit on the rotated edges. */
    for (int t = 0; t < carc_tiles_count; t++) {
        const struct carc_tile *c = &carc_tiles[t];
        for (int rot = 0; rot < 4; rot++)
            for (int d = 0; d < 4; d++) {
                int kind = carc_tile_edge(t, rot, d);
                unsigned on_edge = 0, halves = 0;
                for (int k = 0; k < c->nsegs; k++) {
                    const struct carc_seg *s = &c->segs[k];
                    if (s->kind == CARC_SEG_CITY || s->kind == CARC_SEG_ROAD) {
                        if (carc_rot4(s->mask, rot) >> d & 1)
                            on_edge |= s->kind == CARC_SEG_CITY ? CARC_EDGE_CITY : CARC_EDGE_ROAD;
                    } else if (s->kind == CARC_SEG_FIELD) {
                        halves |= (carc_rot8(s->mask, rot) >> (2 * d)) & 3;
                    }
                }
                if (kind == CARC_EDGE_FIELD)
                    ck_assert_msg(on_edge == 0 && halves == 3, "%s rot %d side %d", c->id, rot, d);
                else if (kind == CARC_EDGE_ROAD)
                    ck_assert_msg(on_edge == CARC_EDGE_ROAD && halves == 3, "%s rot %d side %d",
                                  c->id, rot, d);
                else
                    ck_assert_msg(on_edge == CARC_EDGE_CITY && halves == 0, "%s rot %d side %d",
                                  c->id, rot, d);
            }
    }
}
END_TEST

/* carc_tile_fits[sig][need]: the rotations of the tile that meet every constrained side,
 * recomputed from the RULES.md edge strings for all 256 constraints. */
START_TEST(fits_table)
{
    load_rules();
    ck_assert_int_eq(carc_tiles_count, nrt);
    for (int t = 0; t < nrt; t++) {
        char r[4][5];
        for (int rot = 0; rot < 4; rot++)
            rotate_str(rt[t].edges, rot, r[rot]);
        for (int need = 0; need < 256; need++) {
            unsigned want = 0;
            for (int rot = 0; rot < 4; rot++) {
                int ok = 1;
                for (int d = 0; d < 4; d++) {
                    int k = need >> (2 * d) & 3;
                    ok &= k == 0 || k == kind_of(r[rot][d]);
                }
                want |= (unsigned)ok << rot;
            }
            ck_assert_msg(carc_tile_fits[carc_tiles[t].sig][need] == want,
                          "%s need 0x%02X: fits 0x%X, want 0x%X", rt[t].id, need,
                          carc_tile_fits[carc_tiles[t].sig][need], want);
        }
    }
}
END_TEST

Suite *suite_tiles(void)
{
    Suite *s = suite_create("tiles");
    TCase *c = tcase_create("catalogue");
    tcase_add_test(c, rules_parsed);
    tcase_add_test(c, catalogue_matches_rules);
    tcase_add_test(c, catalogue_geometry);
    tcase_add_test(c, base_composition);
    tcase_add_test(c, set_totals);
    tcase_add_test(c, find_functions);
    suite_add_tcase(s, c);
    TCase *r = tcase_create("rotation");
    tcase_add_test(r, rotation_edges);
    tcase_add_test(r, rotation_masks);
    tcase_add_test(r, fits_table);
    suite_add_tcase(s, r);
    return s;
}
