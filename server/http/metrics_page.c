/* metrics_page.c: the text of GET /metrics. metrics/ is a leaf that counts
 * what it is told and walks nothing; the figures that only the lobby knows
 * (rooms by phase, connections by kind) are counted here, on the loop, when
 * the page is scraped, and handed to it. */
#include <string.h>

#include "conn/session.h"
#include "game/lobby.h"
#include "game/room.h"
#include "http/api.h"
#include "metrics/metrics.h"

/* Connections that are closing are gone as far as a scrape is concerned. */
static void lobby_count(const struct lobby *lb, struct metrics_gauges *g)
{
    for (const struct room *r = lb->newest; r != NULL; r = r->older)
        if (r->phase >= 0 && r->phase < METRICS_PHASES)
            g->rooms[r->phase] += 1;
    for (const struct session *s = lb->idle_head; s != NULL; s = s->inext) {
        if (s->closing)
            continue;
        int kind = s->room == NULL ? METRICS_CONN_LOBBY
                   : s->seat >= 0  ? METRICS_CONN_PLAYER
                                   : METRICS_CONN_SPECTATOR;
        g->conns[kind] += 1;
    }
}

char *api_metrics_render(const struct lobby *lb, const struct loopstat *ls)
{
    struct metrics_gauges g;
    memset(&g, 0, sizeof g);
    if (lb != NULL)
        lobby_count(lb, &g);
    return metrics_exposition(&g, ls);
}
