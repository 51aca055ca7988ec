/* rxguard.c: see rxguard.h. */
#include "conn/rxguard.h"

#include "err.h"

void rxguard_http_start(struct rxguard *g)
{
    *g = (struct rxguard){.mode = RXGUARD_HTTP};
}

int rxguard_ws_start(struct rxguard *g)
{
    if (g->mode != RXGUARD_HTTP || g->total != g->head_end) {
        g->mode = RXGUARD_DONE;
        return CARC_E_INVAL;
    }
    g->mode = RXGUARD_WS;
    g->pos = g->need = 0;
    g->skip = 0;
    return 0;
}

static void http_scan(struct rxguard *g, const uint8_t *p, size_t n)
{
    static const uint8_t end[4] = {'\r', '\n', '\r', '\n'};
    for (size_t i = 0; i < n; i++) {
        if (p[i] == end[g->crlf])
            g->crlf++;
        else
            g->crlf = p[i] == '\r';
        if (g->crlf == 4) {
            g->crlf = 0;
            g->head_end = g->total + i + 1;
        }
    }
}

/* A frame header is 2 bytes, then 2 or 8 of extended length (a first length
 * of 126 or 127), then the 4-byte mask key: 6 to 14 bytes for a client. */
static int ws_scan(struct rxguard *g, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (g->skip > 0) {
            size_t take = g->skip < n - i ? (size_t)g->skip : n - i;
            g->skip -= take;
            i += take;
            continue;
        }
        uint8_t c = p[i++];
        if (g->pos == 1) {
            if (!(c & 0x80)) {
                g->mode = RXGUARD_DONE;
                return CARC_E_INVAL;
            }
            uint8_t len7 = c & 0x7f;
            g->need = (uint8_t)(2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + 4);
            g->len = len7 < 126 ? len7 : 0;
        } else if (g->pos > 1 && g->pos < g->need - 4) {
            g->len = g->len << 8 | c;
        }
        if (++g->pos == g->need) {
            g->skip = g->len;
            g->pos = g->need = 0;
        }
    }
    return 0;
}

int rxguard_bytes_scan(struct rxguard *g, const uint8_t *p, size_t n)
{
    int rc = 0;
    if (g->mode == RXGUARD_HTTP)
        http_scan(g, p, n);
    else if (g->mode == RXGUARD_WS)
        rc = ws_scan(g, p, n);
    g->total += n;
    return rc;
}
