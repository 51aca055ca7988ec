/* store/postgres_rows.c: the PostgreSQL backend's reads (postgres_int.h):
 * records for HTTP on the reader connection, and the rows of rooms, records
 * and chat that restore and copy hand back as plain data, on the writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "postgres_int.h"
#include "util/log.h"
#include "util/mem.h"

/* ---- reads for HTTP (the reader connection) ---- */

char *pg__games_get(struct store *st, int page, const char *status, int *code)
{
    struct pg *p = PG(st);
    char why[256];
    *code = 503;
    if (pg__ready(p, &p->r, why, sizeof why) != 0) {
        log_error("storage: cannot list games: %s", why);
        return NULL;
    }
    char lim[24], off[24];
    const char *v[] = {status, I(lim, STORE_PAGE), I(off, (long long)(page - 1) * STORE_PAGE)};
    /* One statement, one snapshot: the total and the page agree. */
    PGresult *q = pg__query(p->r.c,
                            "WITH total AS (SELECT COUNT(*) AS n FROM games WHERE status = $1)"
                            " SELECT total.n, g.room, g.finished, g.players, g.scores FROM total"
                            " LEFT JOIN LATERAL (SELECT room, finished, players, scores FROM games"
                            " WHERE status = $1 ORDER BY finished DESC, room DESC"
                            " LIMIT $2 OFFSET $3) g ON true",
                            3, v);
    if (q == NULL || PQntuples(q) < 1) {
        p->r.broken = 1;
        pg__msg(p->r.c, why, sizeof why);
        log_error("storage: cannot list games: %s", why);
        PQclear(q);
        return NULL;
    }
    struct store_text t = {0};
    char buf[256];
    snprintf(buf, sizeof buf, "{\"page\":%d,\"per_page\":%d,\"total\":%s,\"games\":[", page,
             STORE_PAGE, PQgetvalue(q, 0, 0));
    store__text_str(&t, buf);
    for (int i = 0; i < PQntuples(q) && !PQgetisnull(q, i, 1); i++) {
        size_t n = 0;
        n += (size_t)snprintf(buf, sizeof buf, "%s{\"id\":", i ? "," : "");
        proto_json_str_append(buf, sizeof buf, &n, PQgetvalue(q, i, 1));
        n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"status\":\"%s\",\"finished\":%s", status,
                              PQgetvalue(q, i, 2));
        store__text_add(&t, buf, n);
        store__text_str(&t, ",\"players\":");
        store__text_str(&t, PQgetvalue(q, i, 3));
        store__text_str(&t, ",\"scores\":");
        store__text_str(&t, PQgetvalue(q, i, 4));
        store__text_str(&t, "}");
    }
    store__text_str(&t, "]}");
    PQclear(q);
    *code = 200;
    return t.s;
}

/* The one text column of sql's row for id ($1): 200, 404 or 503 (logged: what). */
static char *id_text(struct store *st, const char *sql, const char *id, const char *what, int *code)
{
    struct pg *p = PG(st);
    char why[256];
    *code = 503;
    PGresult *q = NULL;
    if (pg__ready(p, &p->r, why, sizeof why) == 0) {
        const char *v[] = {id};
        q = pg__query(p->r.c, sql, 1, v);
        if (q == NULL) {
            p->r.broken = 1;
            pg__msg(p->r.c, why, sizeof why);
        }
    }
    if (q == NULL) {
        log_event(LOG_ERROR, &(struct log_fields){.room = id, .code = "storage_error"},
                  "storage: cannot read the %s: %s", what, why);
        return NULL;
    }
    char *out = NULL;
    if (PQntuples(q) == 1) {
        out = mem_strdup(PQgetvalue(q, 0, 0));
        *code = 200;
    } else {
        *code = 404;
    }
    PQclear(q);
    return out;
}

char *pg__game_get(struct store *st, const char *id, int *code)
{
    return id_text(st, "SELECT record FROM games WHERE room = $1", id, "game", code);
}

char *pg__analysis_get(struct store *st, const char *id, int *code)
{
    return id_text(st, "SELECT doc FROM analyses WHERE game = $1", id, "analysis", code);
}

/* ---- start-up and copy (the writer, the caller's thread) ---- */

int pg__stale_close(struct store *st, long long before, char *err, size_t errlen)
{
    struct pg *p = PG(st);
    char b[24], why[256];
    snprintf(b, sizeof b, "%lld", before);
    const char *v[] = {b};
    static const char *const sql[] = {
        "DELETE FROM seats WHERE room IN (SELECT id FROM rooms WHERE closed = 0"
        " AND phase = 0 AND updated < $1)",
        "DELETE FROM chat WHERE room IN (SELECT id FROM rooms WHERE closed = 0"
        " AND phase = 0 AND updated < $1)",
        "DELETE FROM rooms WHERE closed = 0 AND phase = 0 AND updated < $1",
        "UPDATE rooms SET closed = 1 WHERE closed = 0 AND updated < $1"
        " AND NOT (phase = 1 AND clock_per_move > 0)",
    };
    if (pg__run(p->w.c, "BEGIN", why, sizeof why) != 0)
        goto fail;
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
        PGresult *res = pg__query(p->w.c, sql[i], 1, v);
        if (res == NULL) {
            pg__msg(p->w.c, why, sizeof why);
            pg__run(p->w.c, "ROLLBACK", err, errlen);
            goto fail;
        }
        PQclear(res);
    }
    if (pg__run(p->w.c, "COMMIT", why, sizeof why) == 0)
        return 0;
fail:
    snprintf(err, errlen, "PostgreSQL: cannot close stale rooms: %s", why);
    return -1;
}

#define PG_ROOM_COLUMNS                                                                            \
    "id, sets, no_farmers, escape_rule, seats, private, password_hash, host, phase, seed, deck,"   \
    " seq, created, updated, clock_initial, clock_increment, clock_policy, closed, variants, "     \
    "fair,"                                                                                        \
    " fence, clock_per_move, clock_zone, turn_wall"

static long long col_ll(const PGresult *q, int row, int col)
{
    return strtoll(PQgetvalue(q, row, col), NULL, 10);
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* e from row i of q (PG_ROOM_COLUMNS), its seats and moves. */
static int row_load(PGconn *c, const PGresult *q, int i, struct store_room *e)
{
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", PQgetvalue(q, i, 0));
    e->sets = (int)col_ll(q, i, 1);
    e->no_farmers = (int)col_ll(q, i, 2);
    e->escape_rule = (int)col_ll(q, i, 3);
    e->nseats = (int)col_ll(q, i, 4);
    e->priv = (int)col_ll(q, i, 5);
    snprintf(e->pw, sizeof e->pw, "%s", PQgetvalue(q, i, 6));
    e->host = (int)col_ll(q, i, 7);
    e->phase = (int)col_ll(q, i, 8);
    e->seed = (uint64_t)col_ll(q, i, 9);
    const char *deck = PQgetvalue(q, i, 10); /* bytea as text: \x0a1b.. */
    if (!PQgetisnull(q, i, 10) && deck[0] == '\\' && deck[1] == 'x') {
        size_t len = strlen(deck + 2) / 2;
        for (size_t k = 0; k < len && k < CARC_MAX_TILES; k++) {
            int hi = hexval(deck[2 + 2 * k]), lo = hexval(deck[3 + 2 * k]);
            if (hi < 0 || lo < 0)
                break;
            e->deck[e->deck_len++] = (uint8_t)(hi << 4 | lo);
        }
    }
    e->seq = col_ll(q, i, 11);
    e->created = (uint64_t)col_ll(q, i, 12);
    e->updated = (uint64_t)col_ll(q, i, 13);
    e->clock_initial = (int)col_ll(q, i, 14);
    e->clock_increment = (int)col_ll(q, i, 15);
    e->clock_policy = (int)col_ll(q, i, 16);
    e->gone = col_ll(q, i, 17) ? STORE_CLOSED : STORE_WRITE;
    e->variants = (int)col_ll(q, i, 18);
    snprintf(e->fair, sizeof e->fair, "%s", PQgetvalue(q, i, 19));
    e->fence = (uint64_t)col_ll(q, i, 20);
    e->clock_per_move = (int)col_ll(q, i, 21);
    snprintf(e->clock_zone, sizeof e->clock_zone, "%s", PQgetvalue(q, i, 22));
    e->turn_wall = col_ll(q, i, 23);
    const char *v[] = {e->id};
    PGresult *s = pg__query(c,
                            "SELECT idx, name, token_hash, bot, autoplay, forfeited, timeouts,"
                            " clock_ms, account, vac_from, vac_until FROM seats WHERE room = $1"
                            " ORDER BY idx",
                            1, v);
    if (s == NULL)
        return -1;
    for (int k = 0; k < PQntuples(s) && e->nseat < CARC_MAX_PLAYERS; k++) {
        struct store_seat *t = &e->seats[e->nseat++];
        t->idx = (int)col_ll(s, k, 0);
        snprintf(t->name, sizeof t->name, "%s", PQgetvalue(s, k, 1));
        snprintf(t->hash, sizeof t->hash, "%s", PQgetvalue(s, k, 2));
        t->bot = (int)col_ll(s, k, 3);
        t->autoplay = (int)col_ll(s, k, 4);
        t->forfeited = (int)col_ll(s, k, 5);
        t->timeouts = (int)col_ll(s, k, 6);
        t->clock_ms = col_ll(s, k, 7);
        t->account = col_ll(s, k, 8);
        t->vac_from = col_ll(s, k, 9);
        t->vac_until = col_ll(s, k, 10);
    }
    PQclear(s);
    PGresult *m = pg__query(c, "SELECT move FROM moves WHERE room = $1 ORDER BY idx", 1, v);
    if (m == NULL)
        return -1;
    int nm = PQntuples(m);
    if (nm > 0) {
        e->moves = mem_zalloc((size_t)nm, sizeof *e->moves);
    }
    for (int k = 0; k < nm; k++)
        e->moves[e->move_to++] = mem_strdup(PQgetvalue(m, k, 0));
    PQclear(m);
    return 0;
}

int pg__rows(struct store *st, int which, store_row_cb cb, void *arg, char *err, size_t errlen)
{
    struct pg *p = PG(st);
    const char *where =
        which == ROWS_OPEN ? " WHERE closed = 0 AND phase < 2 ORDER BY created, id"
        : which == ROWS_ABANDONED
            ? " WHERE closed = 1 AND phase = 1 AND id NOT IN (SELECT room FROM games)"
            : " ORDER BY created, id";
    char sql[512], why[256];
    snprintf(sql, sizeof sql, "SELECT " PG_ROOM_COLUMNS " FROM rooms%s", where);
    PGresult *q =
        pg__ready(p, &p->w, why, sizeof why) == 0 ? pg__query(p->w.c, sql, 0, NULL) : NULL;
    if (q == NULL) {
        if (p->w.c != NULL && PQstatus(p->w.c) == CONNECTION_OK)
            pg__msg(p->w.c, why, sizeof why);
        snprintf(err, errlen, "PostgreSQL: cannot read the rooms: %s", why);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < PQntuples(q) && rc == 0; i++) {
        struct store_room e;
        if (row_load(p->w.c, q, i, &e) != 0) {
            pg__msg(p->w.c, why, sizeof why);
            snprintf(err, errlen, "PostgreSQL: cannot read a room's seats and moves: %s", why);
            rc = -1;
        } else if (cb(arg, &e) != 0) {
            snprintf(err, errlen, "room %s: not taken", e.id);
            rc = -1;
        }
        store__row_clear(&e);
    }
    PQclear(q);
    return rc;
}

int pg__entry_get(struct store *st, const char *id, struct store_room *e)
{
    struct pg *p = PG(st);
    char why[256];
    memset(e, 0, sizeof *e);
    if (pg__ready(p, &p->r, why, sizeof why) != 0) {
        log_event(LOG_ERROR, &(struct log_fields){.room = id, .code = "storage_error"},
                  "storage: cannot read the room: %s", why);
        return 503;
    }
    /* One snapshot for the room, its seats and its moves. */
    const char *v[] = {id};
    PGresult *q = NULL;
    int code = 503;
    if (pg__run(p->r.c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", why, sizeof why) != 0)
        goto out;
    q = pg__query(
        p->r.c, "SELECT " PG_ROOM_COLUMNS " FROM rooms WHERE id = $1 AND closed = 0 AND phase < 2",
        1, v);
    if (q == NULL)
        pg__msg(p->r.c, why, sizeof why);
    else if (PQntuples(q) != 1)
        code = 404;
    else if (row_load(p->r.c, q, 0, e) == 0)
        code = 200;
    else
        pg__msg(p->r.c, why, sizeof why);
    if (pg__run(p->r.c, "COMMIT", why, sizeof why) != 0 && code == 200)
        code = 503;
out:
    PQclear(q);
    if (code == 503) {
        p->r.broken = 1;
        store__row_clear(e);
        log_event(LOG_ERROR, &(struct log_fields){.room = id, .code = "storage_error"},
                  "storage: cannot read the room: %s", why);
    }
    return code;
}

int pg__records(struct store *st, store_row_cb cb, void *arg, char *err, size_t errlen)
{
    struct pg *p = PG(st);
    PGresult *q = pg__query(p->w.c,
                            "SELECT room, record, players, scores, finished, status FROM games"
                            " ORDER BY finished, room",
                            0, NULL);
    if (q == NULL) {
        char why[256];
        pg__msg(p->w.c, why, sizeof why);
        snprintf(err, errlen, "PostgreSQL: cannot read the records: %s", why);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < PQntuples(q) && rc == 0; i++) {
        struct store_room e;
        memset(&e, 0, sizeof e);
        e.gone = STORE_RECORD;
        snprintf(e.id, sizeof e.id, "%s", PQgetvalue(q, i, 0));
        e.record = mem_strdup(PQgetvalue(q, i, 1));
        e.players = mem_strdup(PQgetvalue(q, i, 2));
        e.scores = mem_strdup(PQgetvalue(q, i, 3));
        e.updated = (uint64_t)col_ll(q, i, 4);
        e.status =
            strcmp(PQgetvalue(q, i, 5), STORE_ABANDONED) == 0 ? STORE_ABANDONED : STORE_FINISHED;
        rc = cb(arg, &e);
        store__row_clear(&e);
    }
    PQclear(q);
    return rc;
}

int pg__chats(struct store *st, store_chat_cb cb, void *arg, char *err, size_t errlen)
{
    struct pg *p = PG(st);
    PGresult *q =
        pg__query(p->w.c, "SELECT room, seat, name, text, time FROM chat ORDER BY id", 0, NULL);
    if (q == NULL) {
        char why[256];
        pg__msg(p->w.c, why, sizeof why);
        snprintf(err, errlen, "PostgreSQL: cannot read the chat: %s", why);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < PQntuples(q) && rc == 0; i++) {
        struct sb_chat c;
        memset(&c, 0, sizeof c);
        snprintf(c.room, sizeof c.room, "%s", PQgetvalue(q, i, 0));
        c.seat = (int)col_ll(q, i, 1);
        snprintf(c.name, sizeof c.name, "%s", PQgetvalue(q, i, 2));
        c.text = PQgetvalue(q, i, 3);
        c.time = (uint64_t)col_ll(q, i, 4);
        rc = cb(arg, &c);
    }
    PQclear(q);
    return rc;
}
