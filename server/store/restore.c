/* store/restore.c: start-up (store.h "start-up"), for every backend. Stale
 * rooms are closed first, and a closed game becomes a record ("abandoned")
 * so that nothing played is lost; then the rooms to serve are handed back as
 * plain data. Rebuilding a room from its seed and moves is the game layer's
 * business (game/roomdb.c): the hooks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"
#include "util/log.h"

struct restore_ctx {
    const struct store_restore_hooks *h;
    struct batch *b;
    int n;
};

static int on_abandoned(void *arg, struct store_room *e)
{
    struct restore_ctx *c = arg;
    if (c->h->abandoned(c->h->arg, e) != 0 || e->record == NULL)
        return 0; /* left as it is; the hook logged why */
    struct store_room *n = store__batch_add(c->b);
    snprintf(n->id, sizeof n->id, "%s", e->id);
    n->gone = STORE_CLOSE;
    n->updated = e->updated;
    n->record = e->record;
    n->players = e->players;
    n->scores = e->scores;
    n->status = e->status;
    e->record = e->players = e->scores = NULL;
    return 0;
}

static int on_room(void *arg, struct store_room *e)
{
    struct restore_ctx *c = arg;
    if (c->h->room(c->h->arg, e) == 0)
        c->n++;
    return 0;
}

int store_restore(struct store *st, int stale_s, uint64_t now_ms,
                  const struct store_restore_hooks *hooks, char *err, size_t errlen)
{
    if (stale_s > 0) {
        long long before = (long long)now_ms - (long long)stale_s * 1000;
        if (st->be->stale_close(st, before, err, errlen) != 0)
            return -1;
    }
    struct restore_ctx c = {hooks, store__batch_new(st, 0), 0};
    if (st->be->rows(st, ROWS_ABANDONED, on_abandoned, &c, err, errlen) != 0) {
        store__batch_free(c.b);
        return -1;
    }
    int rc = c.b->n > 0 ? st->be->batch_write(st, c.b) : 0;
    if (rc != 0)
        snprintf(err, errlen, "storage (%s): cannot keep closed games as records: %s", st->be->name,
                 c.b->why);
    else if (c.b->n > 0)
        log_info("storage: %d closed game(s) kept as abandoned records", c.b->n);
    store__batch_free(c.b);
    if (rc != 0)
        return -1;
    c.b = NULL;
    if (st->be->rows(st, ROWS_OPEN, on_room, &c, err, errlen) != 0)
        return -1;
    return c.n;
}
