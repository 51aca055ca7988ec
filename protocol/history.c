/* history.c: see history.h. */
#include "history.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "state_int.h"

char *proto_history_encode(const struct carc_config *cfg, const struct carc_move *moves, int nmoves,
                           const struct proto_chat_line *chat, int nchat, const char *ref)
{
    struct proto__out b;
    if (proto__out_init(&b, 4096) != 0)
        return NULL;
    proto__put_frame(&b, PROTO_S_HISTORY, ref);
    PUT(&b, ",\"turns\":[");
    struct carc_game *g = NULL;
    if (cfg != NULL) {
        /* Zeroed: the engine reads its scratch marks before writing them. */
        g = calloc(1, sizeof *g);
        struct carc_error err = {0, ""};
        if (g == NULL || carc_game_init(g, cfg, &err) != 0)
            b.ok = 0;
    }
    for (int i = 0; b.ok && g != NULL && i < nmoves; i++) {
        struct carc_move m = moves[i];
        m.player = g->current;
        struct carc_error err = {0, ""};
        if (carc_game_play(g, &m, &err) != 0) {
            b.ok = 0;
            break;
        }
        if (i > 0)
            PUT(&b, ",");
        PUT(&b, "{\"move\":");
        put_int(&b, i);
        PUT(&b, ",\"player\":");
        put_int(&b, m.player);
        PUT(&b, ",\"events\":[");
        proto__put_move_events(&b, g, &m);
        PUT(&b, "]}");
    }
    free(g);
    PUT(&b, "],\"chat\":[");
    for (int i = 0; i < nchat; i++) {
        int ok = 1;
        json_t *c = json_object();
        proto__set(c, "seat", chat[i].seat >= 0 ? json_integer(chat[i].seat) : json_null(), &ok);
        proto__set(c, "name", proto__string_or(chat[i].name, "?"), &ok);
        proto__set(c, "text", proto__string_or(chat[i].text, ""), &ok);
        proto__set(c, "time", json_integer(chat[i].time), &ok);
        if (i > 0)
            PUT(&b, ",");
        if (ok)
            proto__out_value(&b, c);
        else
            b.ok = 0;
        json_decref(c);
    }
    PUT(&b, "]}");
    return proto__out_finish(&b);
}
