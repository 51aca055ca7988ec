/* store/copy.c: every row of one store written into another (store.h
 * "copying between backends"), through the backends' tables: the rows come
 * back as plain data from one and go into one batch of the other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"
#include "util/log.h"
#include "util/mem.h"

struct copy {
    struct batch *b;
    long rooms, games;
};

/* e's strings move into the batch's entry (e is cleared by its reader). */
static int on_row(void *arg, struct store_room *e)
{
    struct copy *c = arg;
    struct store_room *n = store__batch_add(c->b);
    *n = *e;
    e->moves = NULL;
    e->move_from = e->move_to = 0;
    e->record = e->players = e->scores = NULL;
    if (n->gone == STORE_RECORD)
        c->games++;
    else
        c->rooms++;
    return 0;
}

static int on_chat(void *arg, struct sb_chat *line)
{
    struct copy *c = arg;
    struct sb_chat *n = mem_zalloc(1, sizeof *n);
    *n = *line;
    n->next = NULL;
    n->text = mem_strdup(line->text);
    *c->b->chat_tail = n;
    c->b->chat_tail = &n->next;
    return 0;
}

int store_copy(struct store *from, struct store *to, long *rooms, long *games, char *err,
               size_t errlen)
{
    struct copy c = {store__batch_new(to, 0), 0, 0};
    /* One snapshot of from: SQLite's deferred BEGIN takes it at the first read. */
    const char *begin = strcmp(from->be->name, "postgres") == 0
                            ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
                            : "BEGIN";
    int rc = from->be->exec(from, begin);
    if (rc != 0)
        snprintf(err, errlen, "cannot start reading the %s database", from->be->name);
    if (rc == 0)
        rc = from->be->rows(from, ROWS_ALL, on_row, &c, err, errlen);
    if (rc == 0)
        rc = from->be->records(from, on_row, &c, err, errlen);
    if (rc == 0)
        rc = from->be->chats(from, on_chat, &c, err, errlen);
    from->be->exec(from, rc == 0 ? "COMMIT" : "ROLLBACK");
    if (rc == 0 && to->be->batch_write(to, c.b) != 0) {
        snprintf(err, errlen, "cannot write into the %s database: %s", to->be->name, c.b->why);
        rc = -1;
    }
    store__batch_free(c.b);
    if (rc != 0)
        return -1;
    *rooms = c.rooms;
    *games = c.games;
    return 0;
}
