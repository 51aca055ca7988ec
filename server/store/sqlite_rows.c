/* store/sqlite_rows.c: the SQLite backend's reads (sqlite_int.h): records
 * for HTTP on the reader connection, and the rows of rooms, records and chat
 * that restore and copy hand back as plain data, on the writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "sqlite_int.h"
#include "util/log.h"
#include "util/mem.h"

/* ---- the queries (any thread; only db is touched) ---- */

char *sq__games_get(struct store *st, int page, const char *status, int *code)
{
    sqlite3 *db = SQ(st)->rdb;
    sqlite3_stmt *count = NULL, *q = NULL;
    struct store_text t = {0};
    *code = 503;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM games WHERE status = ?", -1, &count, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT room, finished, players, scores FROM games WHERE status = ?"
                           " ORDER BY finished DESC, room DESC LIMIT ? OFFSET ?",
                           -1, &q, NULL) != SQLITE_OK)
        goto out;
    /* One read transaction: the total and the page agree. */
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        goto out;
    sqlite3_bind_text(count, 1, status, -1, SQLITE_STATIC);
    if (sqlite3_step(count) != SQLITE_ROW)
        goto out;
    long long total = sqlite3_column_int64(count, 0);
    char buf[256];
    snprintf(buf, sizeof buf, "{\"page\":%d,\"per_page\":%d,\"total\":%lld,\"games\":[", page,
             STORE_PAGE, total);
    store__text_str(&t, buf);
    sqlite3_bind_text(q, 1, status, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 2, STORE_PAGE);
    sqlite3_bind_int64(q, 3, (sqlite3_int64)(page - 1) * STORE_PAGE);
    int rc, k = 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        size_t n = 0;
        n += (size_t)snprintf(buf, sizeof buf, "%s{\"id\":", k++ ? "," : "");
        proto_json_str_append(buf, sizeof buf, &n, (const char *)sqlite3_column_text(q, 0));
        n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"status\":\"%s\",\"finished\":%lld",
                              status, (long long)sqlite3_column_int64(q, 1));
        store__text_add(&t, buf, n);
        /* players and scores are stored as JSON arrays written by the store. */
        store__text_str(&t, ",\"players\":");
        store__text_str(&t, (const char *)sqlite3_column_text(q, 2));
        store__text_str(&t, ",\"scores\":");
        store__text_str(&t, (const char *)sqlite3_column_text(q, 3));
        store__text_str(&t, "}");
    }
    if (rc != SQLITE_DONE)
        goto out;
    store__text_str(&t, "]}");
    *code = 200;
out:
    if (*code != 200) {
        log_error("storage: cannot list games: %s", sqlite3_errmsg(db));
        free(t.s);
        t.s = NULL;
    }
    sqlite3_finalize(count);
    sqlite3_finalize(q);
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    return t.s;
}

/* The one text column of sql's row for id: 200, 404 or 503 (logged: what). */
static char *id_text(struct store *st, const char *sql, const char *id, const char *what, int *code)
{
    sqlite3 *db = SQ(st)->rdb;
    sqlite3_stmt *q = NULL;
    char *out = NULL;
    *code = 503;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
        int rc = sqlite3_step(q);
        if (rc == SQLITE_ROW) {
            out = mem_strdup((const char *)sqlite3_column_text(q, 0));
            *code = 200;
        } else if (rc == SQLITE_DONE) {
            *code = 404;
        }
    }
    if (*code == 503)
        log_event(LOG_ERROR, &(struct log_fields){.room = id, .code = "storage_error"},
                  "storage: cannot read the %s: %s", what, sqlite3_errmsg(db));
    sqlite3_finalize(q);
    return out;
}

char *sq__game_get(struct store *st, const char *id, int *code)
{
    return id_text(st, "SELECT record FROM games WHERE room = ?", id, "game", code);
}

char *sq__analysis_get(struct store *st, const char *id, int *code)
{
    return id_text(st, "SELECT doc FROM analyses WHERE game = ?", id, "analysis", code);
}

/* ---- start-up and copy (the writer, the caller's thread) ---- */

int sq__stale_close(struct store *st, long long before, char *err, size_t errlen)
{
    struct sq *q = SQ(st);
    /* A stale lobby room is nobody's game: its rows go. A game is closed
     * and becomes a record (restore.c), but a correspondence game in play,
     * whose moves may be days apart: its clocks settle it. */
    char sql[640];
    snprintf(sql, sizeof sql,
             "BEGIN IMMEDIATE;"
             "DELETE FROM seats WHERE room IN (SELECT id FROM rooms WHERE closed = 0"
             " AND phase = 0 AND updated < %lld);"
             "DELETE FROM chat WHERE room IN (SELECT id FROM rooms WHERE closed = 0"
             " AND phase = 0 AND updated < %lld);"
             "DELETE FROM rooms WHERE closed = 0 AND phase = 0 AND updated < %lld;"
             "UPDATE rooms SET closed = 1 WHERE closed = 0 AND updated < %lld"
             " AND NOT (phase = 1 AND clock_per_move > 0);"
             "COMMIT;",
             before, before, before, before);
    if (sq__exec(q->db, sql) != 0) {
        sq__db_error(err, errlen, q->path, "cannot close stale rooms", q->db);
        sqlite3_exec(q->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

#define ROOM_COLUMNS                                                                               \
    "id, sets, no_farmers, escape_rule, seats, private, password_hash, host, phase, seed, deck,"   \
    " seq, created, updated, clock_initial, clock_increment, clock_policy, closed, variants, "     \
    "fair,"                                                                                        \
    " fence, clock_per_move, clock_zone, turn_wall"

static const char *text_col(sqlite3_stmt *s, int i)
{
    const char *t = (const char *)sqlite3_column_text(s, i);
    return t != NULL ? t : "";
}

/* e from row q (ROOM_COLUMNS), its seats and its moves. */
static int row_load(sqlite3 *db, sqlite3_stmt *q, struct store_room *e)
{
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", text_col(q, 0));
    e->sets = sqlite3_column_int(q, 1);
    e->no_farmers = sqlite3_column_int(q, 2);
    e->escape_rule = sqlite3_column_int(q, 3);
    e->nseats = sqlite3_column_int(q, 4);
    e->priv = sqlite3_column_int(q, 5);
    snprintf(e->pw, sizeof e->pw, "%s", text_col(q, 6));
    e->host = sqlite3_column_int(q, 7);
    e->phase = sqlite3_column_int(q, 8);
    e->seed = (uint64_t)sqlite3_column_int64(q, 9);
    int dl = sqlite3_column_bytes(q, 10);
    const void *deck = sqlite3_column_blob(q, 10);
    if (deck != NULL && dl > 0 && dl <= CARC_MAX_TILES) {
        memcpy(e->deck, deck, (size_t)dl);
        e->deck_len = dl;
    }
    e->seq = sqlite3_column_int64(q, 11);
    e->created = (uint64_t)sqlite3_column_int64(q, 12);
    e->updated = (uint64_t)sqlite3_column_int64(q, 13);
    e->clock_initial = sqlite3_column_int(q, 14);
    e->clock_increment = sqlite3_column_int(q, 15);
    e->clock_policy = sqlite3_column_int(q, 16);
    e->gone = sqlite3_column_int(q, 17) ? STORE_CLOSED : STORE_WRITE;
    e->variants = sqlite3_column_int(q, 18);
    snprintf(e->fair, sizeof e->fair, "%s", text_col(q, 19));
    e->fence = (uint64_t)sqlite3_column_int64(q, 20);
    e->clock_per_move = sqlite3_column_int(q, 21);
    snprintf(e->clock_zone, sizeof e->clock_zone, "%s", text_col(q, 22));
    e->turn_wall = sqlite3_column_int64(q, 23);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
                           "SELECT idx, name, token_hash, bot, autoplay, forfeited, timeouts,"
                           " clock_ms, account, vac_from, vac_until FROM seats WHERE room = ?"
                           " ORDER BY idx",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, e->id, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW && e->nseat < CARC_MAX_PLAYERS) {
        struct store_seat *t = &e->seats[e->nseat++];
        t->idx = sqlite3_column_int(s, 0);
        snprintf(t->name, sizeof t->name, "%s", text_col(s, 1));
        snprintf(t->hash, sizeof t->hash, "%s", text_col(s, 2));
        t->bot = sqlite3_column_int(s, 3);
        t->autoplay = sqlite3_column_int(s, 4);
        t->forfeited = sqlite3_column_int(s, 5);
        t->timeouts = sqlite3_column_int(s, 6);
        t->clock_ms = sqlite3_column_int64(s, 7);
        t->account = sqlite3_column_int64(s, 8);
        t->vac_from = sqlite3_column_int64(s, 9);
        t->vac_until = sqlite3_column_int64(s, 10);
    }
    sqlite3_finalize(s);
    if (sqlite3_prepare_v2(db, "SELECT move FROM moves WHERE room = ? ORDER BY idx", -1, &s,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, e->id, -1, SQLITE_TRANSIENT);
    int cap = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (e->move_to == cap) {
            cap = cap ? cap * 2 : 64;
            char **m = mem_resize(e->moves, (size_t)cap * sizeof *m);
            e->moves = m;
        }
        e->moves[e->move_to++] = mem_strdup(text_col(s, 0));
    }
    sqlite3_finalize(s);
    return 0;
}

int sq__rows(struct store *st, int which, store_row_cb cb, void *arg, char *err, size_t errlen)
{
    struct sq *q = SQ(st);
    const char *where = which == ROWS_OPEN ? " WHERE closed = 0 AND phase < 2 ORDER BY created, id"
                        : which == ROWS_ABANDONED ? " WHERE closed = 1 AND phase = 1"
                                                    " AND id NOT IN (SELECT room FROM games)"
                                                  : " ORDER BY created, id";
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT " ROOM_COLUMNS " FROM rooms%s", where);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(q->db, sql, -1, &s, NULL) != SQLITE_OK) {
        sq__db_error(err, errlen, q->path, "cannot read the rooms", q->db);
        return -1;
    }
    int rc = 0;
    while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
        struct store_room e;
        if (row_load(q->db, s, &e) != 0) {
            sq__db_error(err, errlen, q->path, "cannot read a room's seats and moves", q->db);
            rc = -1;
        } else if (cb(arg, &e) != 0) {
            snprintf(err, errlen, "room %s: not taken", e.id);
            rc = -1;
        }
        store__row_clear(&e);
    }
    sqlite3_finalize(s);
    return rc;
}

int sq__entry_get(struct store *st, const char *id, struct store_room *e)
{
    sqlite3 *db = SQ(st)->rdb;
    sqlite3_stmt *s = NULL;
    int code = 503;
    memset(e, 0, sizeof *e);
    /* One read transaction: the room, its seats and its moves agree. */
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        goto out;
    if (sqlite3_prepare_v2(
            db, "SELECT " ROOM_COLUMNS " FROM rooms WHERE id = ? AND closed = 0 AND phase < 2", -1,
            &s, NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, id, -1, SQLITE_TRANSIENT);
        int rc = sqlite3_step(s);
        if (rc == SQLITE_DONE)
            code = 404;
        else if (rc == SQLITE_ROW && row_load(db, s, e) == 0)
            code = 200;
    }
    sqlite3_finalize(s);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
out:
    if (code == 503) {
        store__row_clear(e);
        log_event(LOG_ERROR, &(struct log_fields){.room = id, .code = "storage_error"},
                  "storage: cannot read the room: %s", sqlite3_errmsg(db));
    }
    return code;
}

int sq__records(struct store *st, store_row_cb cb, void *arg, char *err, size_t errlen)
{
    struct sq *q = SQ(st);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(q->db,
                           "SELECT room, record, players, scores, finished, status FROM games"
                           " ORDER BY finished, room",
                           -1, &s, NULL) != SQLITE_OK) {
        sq__db_error(err, errlen, q->path, "cannot read the records", q->db);
        return -1;
    }
    int rc = 0;
    while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
        struct store_room e;
        memset(&e, 0, sizeof e);
        e.gone = STORE_RECORD;
        snprintf(e.id, sizeof e.id, "%s", text_col(s, 0));
        e.record = mem_strdup(text_col(s, 1));
        e.players = mem_strdup(text_col(s, 2));
        e.scores = mem_strdup(text_col(s, 3));
        e.updated = (uint64_t)sqlite3_column_int64(s, 4);
        e.status = strcmp(text_col(s, 5), STORE_ABANDONED) == 0 ? STORE_ABANDONED : STORE_FINISHED;
        rc = cb(arg, &e);
        store__row_clear(&e);
    }
    sqlite3_finalize(s);
    return rc;
}

int sq__chats(struct store *st, store_chat_cb cb, void *arg, char *err, size_t errlen)
{
    struct sq *q = SQ(st);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(q->db, "SELECT room, seat, name, text, time FROM chat ORDER BY id", -1,
                           &s, NULL) != SQLITE_OK) {
        sq__db_error(err, errlen, q->path, "cannot read the chat", q->db);
        return -1;
    }
    int rc = 0;
    while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
        struct sb_chat c;
        memset(&c, 0, sizeof c);
        snprintf(c.room, sizeof c.room, "%s", text_col(s, 0));
        c.seat = sqlite3_column_int(s, 1);
        snprintf(c.name, sizeof c.name, "%s", text_col(s, 2));
        c.text = (char *)text_col(s, 3);
        c.time = (uint64_t)sqlite3_column_int64(s, 4);
        rc = cb(arg, &c);
    }
    sqlite3_finalize(s);
    return rc;
}
