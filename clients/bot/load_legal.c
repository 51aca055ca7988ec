#include "load_legal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "botlib.h"
#include "client.h"

#define MAX_NAMES 16

int load_legal_take(struct load_legal *l, const char *text, size_t len)
{
    static const char head[] = "{\"v\":2,\"type\":\"legal\",\"seq\":";
    if (len < sizeof head || memcmp(text, head, sizeof head - 1) != 0 || text[len - 1] != '}')
        return 0;
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return -1;
    memcpy(copy, text, len);
    copy[len] = '\0';
    long long seq;
    int turn, player, off = 0;
    char tile[16];
    if (sscanf(copy,
               "{\"v\":2,\"type\":\"legal\",\"seq\":%lld,\"turn\":%d,\"player\":%d,"
               "\"tile\":\"%15[^\"]\",\"legal\":[%n",
               &seq, &turn, &player, tile, &off) != 4 ||
        off == 0 || carc_tile_find(tile) < 0) {
        free(copy);
        return 0;
    }
    free(l->text);
    *l = (struct load_legal){copy, len, seq, turn, player, carc_tile_find(tile), copy + off - 1};
    return 1;
}

/* The start of each entry of the list at depth 1 (at most max), and how many. */
static int entries(const char *p, const char **start, int max)
{
    int depth = 0, n = 0;
    for (; *p != '\0'; p++) {
        if (*p == '"') {
            p = strchr(p + 1, '"');
            if (p == NULL)
                return -1;
        } else if (*p == '[' || *p == '{') {
            if (++depth == 2 && *p == '{' && n < max)
                start[n++] = p;
        } else if ((*p == ']' || *p == '}') && --depth == 0) {
            return n;
        }
    }
    return -1;
}

/* The quoted names of a JSON array of strings at p ('[' first) into out;
 * returns how many, or -1; *end is past the ']'. */
static int names(const char *p, char out[][PROTO_FEATURE_MAX], int max, const char **end)
{
    int n = 0;
    if (*p++ != '[')
        return -1;
    while (*p == '"') {
        const char *q = strchr(p + 1, '"');
        if (q == NULL || q - p - 1 >= PROTO_FEATURE_MAX)
            return -1;
        if (n < max) {
            memcpy(out[n], p + 1, (size_t)(q - p - 1));
            out[n++][q - p - 1] = '\0';
        }
        p = q + 1;
        if (*p == ',')
            p++;
    }
    if (*p != ']')
        return -1;
    *end = p + 1;
    return n;
}

char *load_legal_play(const struct load_legal *l, uint64_t *rng, int meeples, int large)
{
    static const char *start[4 * 256];
    if (l->text == NULL)
        return NULL;
    int n = entries(l->list, start, (int)(sizeof start / sizeof start[0]));
    if (n <= 0)
        return NULL;
    const char *e = start[bot_rand(rng) % (unsigned)n];
    int x, y, rot, off = 0;
    if (sscanf(e, "{\"x\":%d,\"y\":%d,\"rot\":%d,\"meeples\":%n", &x, &y, &rot, &off) != 3 ||
        off == 0)
        return NULL;
    char spots[MAX_NAMES][PROTO_FEATURE_MAX];
    const char *p = e + off;
    int ns = names(p, spots, MAX_NAMES, &p);
    if (ns < 0 || strncmp(p, ",\"escapes\":[", 12) != 0)
        return NULL;
    p += 12;
    struct proto_client_spot esc[MAX_NAMES];
    int ne = 0;
    while (*p == '{' && ne < MAX_NAMES) {
        struct proto_client_spot *s = &esc[ne];
        int o = 0;
        memset(s, 0, sizeof *s);
        if (sscanf(p, "{\"x\":%d,\"y\":%d,\"feature\":\"%15[^\"]\"}%n", &s->x, &s->y, s->feature,
                   &o) != 3 ||
            o == 0)
            return NULL;
        ne++;
        p += o;
        if (*p == ',')
            p++;
    }
    int seg = -1, big = 0;
    const struct proto_client_spot *escape = NULL;
    if (ns > 0 && (meeples > 0 || large > 0) && bot_rand(rng) % 2) {
        seg = carc_tile_seg_find(l->tile, spots[bot_rand(rng) % (unsigned)ns]);
        big = large > 0 && (meeples == 0 || bot_rand(rng) % 4 == 0);
    } else if (ne > 0 && bot_rand(rng) % 2) {
        escape = &esc[bot_rand(rng) % (unsigned)ne];
    }
    return proto_client_encode_play(l->tile, x, y, rot / 90, seg, big, escape, NULL);
}

void load_legal_free(struct load_legal *l)
{
    free(l->text);
    memset(l, 0, sizeof *l);
}
