/* store/sqlite.c: the SQLite backend (store.h, store_int.h, sqlite_int.h):
 * open, check, migrate and close the database, write one batch in one
 * transaction, checkpoints beside the commits.
 *
 *   rooms  (id, sets, no_farmers, escape_rule, seats, private, password_hash, host, phase,
 *           seed, deck, seq, created, updated, closed,
 *           clock_initial, clock_increment, clock_policy,   the time control, 0: none
 *           fence,                                          0 (the place of a lease's number)
 *           variants,                     options.farms (enum carc_farm_rule) | small_city 2
 *                                         << 2 | seat_order random << 3 | rated << 4 |
 *                                         clock.weekend_pause << 5; 0: the defaults
 *           fair,                         the fair draw's secret and entropies
 *                                         (fair/fair_room.h), "" for none: secret
 *                                         until the game's record reveals them
 *           clock_per_move, clock_zone,   clock.per_move (s, 0: none), clock.time_zone
 *           turn_wall)                    a per-move clock's turn start (wall ms), 0: none
 *   seats  (room, idx, name, token_hash,          token_hash = SHA-256 hex of the token
 *           bot, autoplay, forfeited, timeouts, clock_ms,   turn.h; clock_ms: time left
 *           when the seat's current or next turn starts
 *           account,                      the account the seat belongs to, 0: none
 *           vac_from, vac_until)          that account's vacation the room knows (wall ms), 0
 *   moves  (room, idx, move)                      move = one record move as JSON
 *                                                 (PROTOCOL.md "Game records")
 *   chat   (id, room, seat, name, text, time)
 *   games  (room, record, players, scores, finished, status)
 *          the record (seed included) of a game that ended (status "finished") or whose room
 *          was closed before its end (status "abandoned"); scores: at that moment
 *   analyses (game, doc, created)                 a game's analysis document (PROTOCOL.md
 *          "Game analysis"), written once (server/analysis/)
 *
 * Times are wall-clock milliseconds. phase: 0 lobby, 1 playing, 2 over. closed: 1 when the room
 * was dropped from memory after room-ttl or stale-room (its rows stay).
 *
 *   schema_version (version)                      one row: STORE_SCHEMA
 *
 * Schema history (PRAGMA user_version, and the table schema_version from 4 on): 1 the tables
 * above without games.status; 2 adds it; 3 adds the clock and bot columns of rooms and seats;
 * 4 adds schema_version, rooms.fence, rooms.variants and rooms.fair; 5 adds seats.account;
 * 6 adds rooms.clock_per_move, rooms.clock_zone, rooms.turn_wall, seats.vac_from and
 * seats.vac_until; 7 adds analyses. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "sqlite_int.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"

/* ---- SQL ---- */

static const char *schema_sql =
    "CREATE TABLE rooms(id TEXT PRIMARY KEY, sets INTEGER NOT NULL, no_farmers INTEGER NOT NULL,"
    " escape_rule INTEGER NOT NULL, seats INTEGER NOT NULL, private INTEGER NOT NULL,"
    " password_hash TEXT NOT NULL, host INTEGER NOT NULL, phase INTEGER NOT NULL,"
    " seed INTEGER NOT NULL, deck BLOB, seq INTEGER NOT NULL, created INTEGER NOT NULL,"
    " updated INTEGER NOT NULL, closed INTEGER NOT NULL DEFAULT 0,"
    " clock_initial INTEGER NOT NULL DEFAULT 0, clock_increment INTEGER NOT NULL DEFAULT 0,"
    " clock_policy INTEGER NOT NULL DEFAULT 0, fence INTEGER NOT NULL DEFAULT 0,"
    " variants INTEGER NOT NULL DEFAULT 0, fair TEXT NOT NULL DEFAULT '',"
    " clock_per_move INTEGER NOT NULL DEFAULT 0, clock_zone TEXT NOT NULL DEFAULT '',"
    " turn_wall INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE seats(room TEXT NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL,"
    " token_hash TEXT NOT NULL, bot INTEGER NOT NULL DEFAULT 0,"
    " autoplay INTEGER NOT NULL DEFAULT 0, forfeited INTEGER NOT NULL DEFAULT 0,"
    " timeouts INTEGER NOT NULL DEFAULT 0, clock_ms INTEGER NOT NULL DEFAULT 0,"
    " account INTEGER NOT NULL DEFAULT 0, vac_from INTEGER NOT NULL DEFAULT 0,"
    " vac_until INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(room, idx));"
    "CREATE TABLE moves(room TEXT NOT NULL, idx INTEGER NOT NULL, move TEXT NOT NULL,"
    " PRIMARY KEY(room, idx));"
    "CREATE TABLE chat(id INTEGER PRIMARY KEY, room TEXT NOT NULL, seat INTEGER NOT NULL,"
    " name TEXT NOT NULL, text TEXT NOT NULL, time INTEGER NOT NULL);"
    "CREATE INDEX chat_room ON chat(room, id);"
    "CREATE TABLE games(room TEXT PRIMARY KEY, record TEXT NOT NULL, players TEXT NOT NULL,"
    " scores TEXT NOT NULL, finished INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'finished');"
    "CREATE INDEX games_status ON games(status, finished, room);"
    "CREATE TABLE analyses(game TEXT PRIMARY KEY, doc TEXT NOT NULL, created INTEGER NOT NULL);"
    "CREATE TABLE schema_version(version INTEGER NOT NULL);"
    "INSERT INTO schema_version VALUES(7);"
    "PRAGMA user_version = 7;";

/* From each older schema to the next, applied in order in one transaction. */
static const char *migrations[STORE_SCHEMA] = {
    NULL, /* 0: a new file gets schema_sql */
    /* 1 -> 2: records of abandoned games beside finished ones. */
    "ALTER TABLE games ADD COLUMN status TEXT NOT NULL DEFAULT 'finished';"
    "DROP INDEX games_finished;"
    "CREATE INDEX games_status ON games(status, finished, room);"
    "PRAGMA user_version = 2;",
    /* 2 -> 3: clocks, bot seats and takeover. */
    "ALTER TABLE rooms ADD COLUMN clock_initial INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE rooms ADD COLUMN clock_increment INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE rooms ADD COLUMN clock_policy INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE seats ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE seats ADD COLUMN autoplay INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE seats ADD COLUMN forfeited INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE seats ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE seats ADD COLUMN clock_ms INTEGER NOT NULL DEFAULT 0;"
    "PRAGMA user_version = 3;",
    /* 3 -> 4: the version in a table (as PostgreSQL has it), the fencing column, the rule
     * variants of a room (0: the rules rooms had before), the fair draw's secret and
     * entropies ('': none). */
    "ALTER TABLE rooms ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE rooms ADD COLUMN variants INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE rooms ADD COLUMN fair TEXT NOT NULL DEFAULT '';"
    "CREATE TABLE schema_version(version INTEGER NOT NULL);"
    "INSERT INTO schema_version VALUES(4);"
    "PRAGMA user_version = 4;",
    /* 4 -> 5: the account a seat belongs to (0: a guest's or a bot's seat). */
    "ALTER TABLE seats ADD COLUMN account INTEGER NOT NULL DEFAULT 0;"
    "UPDATE schema_version SET version = 5;"
    "PRAGMA user_version = 5;",
    /* 5 -> 6: correspondence clocks: time per move, the room's time zone (weekend_pause is
     * variants' bit 5) and the turn's start, which such a clock keeps across a restart; the
     * vacation of each seat's account that the room knows. */
    "ALTER TABLE rooms ADD COLUMN clock_per_move INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE rooms ADD COLUMN clock_zone TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE rooms ADD COLUMN turn_wall INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE seats ADD COLUMN vac_from INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE seats ADD COLUMN vac_until INTEGER NOT NULL DEFAULT 0;"
    "UPDATE schema_version SET version = 6;"
    "PRAGMA user_version = 6;",
    /* 6 -> 7: games' analyses. */
    "CREATE TABLE analyses(game TEXT PRIMARY KEY, doc TEXT NOT NULL, created INTEGER NOT NULL);"
    "UPDATE schema_version SET version = 7;"
    "PRAGMA user_version = 7;",
};

int sq__exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        log_error("storage: %s", msg != NULL ? msg : sqlite3_errstr(rc));
    sqlite3_free(msg);
    return rc == SQLITE_OK ? 0 : -1;
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        if ((x) != SQLITE_OK && (x) != SQLITE_DONE && (x) != SQLITE_ROW)                           \
            goto fail;                                                                             \
    } while (0)

static int step_done(sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **out)
{
    return sqlite3_prepare_v2(db, sql, -1, out, NULL) == SQLITE_OK ? 0 : -1;
}

/* The record of e's game, when it has one (it ended, or was closed). */
static int write_game(sqlite3_stmt *game, const struct store_room *e)
{
    if (e->record == NULL)
        return 0;
    sqlite3_bind_text(game, 1, e->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(game, 2, e->record, -1, SQLITE_STATIC);
    sqlite3_bind_text(game, 3, e->players, -1, SQLITE_STATIC);
    sqlite3_bind_text(game, 4, e->scores, -1, SQLITE_STATIC);
    sqlite3_bind_int64(game, 5, (sqlite3_int64)e->updated);
    sqlite3_bind_text(game, 6, e->status, -1, SQLITE_STATIC);
    return step_done(game);
}

/* One batch's statements, prepared after BEGIN and finalised together. */
struct batch_stmts {
    sqlite3_stmt *room, *seat_del, *seat, *move, *chat, *game, *del[4], *closer, *an;
};

/* 0, or -1 with some of s prepared: stmts_finalize frees those. */
static int stmts_prepare(sqlite3 *db, struct batch_stmts *s)
{
    if (prep(db,
             "INSERT OR REPLACE INTO rooms(id, sets, no_farmers, escape_rule, seats, private,"
             " password_hash, host, phase, seed, deck, seq, created, updated, closed,"
             " clock_initial, clock_increment, clock_policy, fence, variants, fair,"
             " clock_per_move, clock_zone, turn_wall)"
             " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
             &s->room) ||
        prep(db, "DELETE FROM seats WHERE room = ?", &s->seat_del) ||
        prep(db,
             "INSERT INTO seats(room, idx, name, token_hash, bot, autoplay, forfeited, timeouts,"
             " clock_ms, account, vac_from, vac_until) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
             &s->seat) ||
        prep(db, "INSERT OR REPLACE INTO moves(room, idx, move) VALUES(?,?,?)", &s->move) ||
        prep(db, "INSERT INTO chat(room, seat, name, text, time) VALUES(?,?,?,?,?)", &s->chat) ||
        prep(db,
             "INSERT OR REPLACE INTO games(room, record, players, scores, finished, status)"
             " VALUES(?,?,?,?,?,?)",
             &s->game) ||
        prep(db, "DELETE FROM rooms WHERE id = ?", &s->del[0]) ||
        prep(db, "DELETE FROM seats WHERE room = ?", &s->del[1]) ||
        prep(db, "DELETE FROM moves WHERE room = ?", &s->del[2]) ||
        prep(db, "DELETE FROM chat WHERE room = ?", &s->del[3]) ||
        prep(db, "UPDATE rooms SET closed = 1, updated = ? WHERE id = ?", &s->closer) ||
        prep(db, "INSERT OR IGNORE INTO analyses(game, doc, created) VALUES(?,?,?)", &s->an))
        return -1;
    return 0;
}

static void stmts_finalize(struct batch_stmts *s)
{
    sqlite3_stmt *all[] = {s->room,   s->seat_del, s->seat,   s->move,   s->chat,   s->game,
                           s->del[0], s->del[1],   s->del[2], s->del[3], s->closer, s->an};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sqlite3_finalize(all[i]);
}

/* e's row of rooms; its fence, or the batch's (fence) when e has none. */
static int write_room(sqlite3_stmt *room, const struct store_room *e, uint64_t fence)
{
    sqlite3_bind_text(room, 1, e->id, -1, SQLITE_STATIC);
    sqlite3_bind_int(room, 2, e->sets);
    sqlite3_bind_int(room, 3, e->no_farmers);
    sqlite3_bind_int(room, 4, e->escape_rule);
    sqlite3_bind_int(room, 5, e->nseats);
    sqlite3_bind_int(room, 6, e->priv);
    sqlite3_bind_text(room, 7, e->pw, -1, SQLITE_STATIC);
    sqlite3_bind_int(room, 8, e->host);
    sqlite3_bind_int(room, 9, e->phase);
    sqlite3_bind_int64(room, 10, (sqlite3_int64)e->seed);
    if (e->deck_len > 0)
        sqlite3_bind_blob(room, 11, e->deck, e->deck_len, SQLITE_STATIC);
    else
        sqlite3_bind_null(room, 11);
    sqlite3_bind_int64(room, 12, e->seq);
    sqlite3_bind_int64(room, 13, (sqlite3_int64)e->created);
    sqlite3_bind_int64(room, 14, (sqlite3_int64)e->updated);
    sqlite3_bind_int(room, 15, e->gone == STORE_CLOSED);
    sqlite3_bind_int(room, 16, e->clock_initial);
    sqlite3_bind_int(room, 17, e->clock_increment);
    sqlite3_bind_int(room, 18, e->clock_policy);
    sqlite3_bind_int64(room, 19, (sqlite3_int64)(e->fence ? e->fence : fence));
    sqlite3_bind_int(room, 20, e->variants);
    sqlite3_bind_text(room, 21, e->fair, -1, SQLITE_STATIC);
    sqlite3_bind_int(room, 22, e->clock_per_move);
    sqlite3_bind_text(room, 23, e->clock_zone, -1, SQLITE_STATIC);
    sqlite3_bind_int64(room, 24, (sqlite3_int64)e->turn_wall);
    return step_done(room);
}

/* e's seats replace the room's seat rows. */
static int write_seats(const struct batch_stmts *s, const struct store_room *e)
{
    sqlite3_bind_text(s->seat_del, 1, e->id, -1, SQLITE_STATIC);
    if (step_done(s->seat_del))
        return -1;
    for (int k = 0; k < e->nseat; k++) {
        sqlite3_bind_text(s->seat, 1, e->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(s->seat, 2, e->seats[k].idx);
        sqlite3_bind_text(s->seat, 3, e->seats[k].name, -1, SQLITE_STATIC);
        sqlite3_bind_text(s->seat, 4, e->seats[k].hash, -1, SQLITE_STATIC);
        sqlite3_bind_int(s->seat, 5, e->seats[k].bot);
        sqlite3_bind_int(s->seat, 6, e->seats[k].autoplay);
        sqlite3_bind_int(s->seat, 7, e->seats[k].forfeited);
        sqlite3_bind_int(s->seat, 8, e->seats[k].timeouts);
        sqlite3_bind_int64(s->seat, 9, e->seats[k].clock_ms);
        sqlite3_bind_int64(s->seat, 10, e->seats[k].account);
        sqlite3_bind_int64(s->seat, 11, e->seats[k].vac_from);
        sqlite3_bind_int64(s->seat, 12, e->seats[k].vac_until);
        if (step_done(s->seat))
            return -1;
    }
    return 0;
}

/* The moves e brings, move_from to move_to (the earlier ones are written). */
static int write_moves(sqlite3_stmt *move, const struct store_room *e)
{
    for (int k = e->move_from; k < e->move_to; k++) {
        sqlite3_bind_text(move, 1, e->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(move, 2, k);
        sqlite3_bind_text(move, 3, e->moves[k - e->move_from], -1, SQLITE_STATIC);
        if (step_done(move))
            return -1;
    }
    return 0;
}

/* One entry of a batch, by what happened to its room (e->gone). 0, or -1:
 * the transaction is to be rolled back. */
static int write_entry(const struct batch_stmts *s, const struct store_room *e, uint64_t fence)
{
    if (e->gone == STORE_RECORD)
        return write_game(s->game, e);
    if (e->gone == STORE_DELETE) {
        for (int k = 0; k < 4; k++) {
            sqlite3_bind_text(s->del[k], 1, e->id, -1, SQLITE_STATIC);
            if (step_done(s->del[k]))
                return -1;
        }
        return 0;
    }
    if (e->gone == STORE_CLOSE) {
        sqlite3_bind_int64(s->closer, 1, (sqlite3_int64)e->updated);
        sqlite3_bind_text(s->closer, 2, e->id, -1, SQLITE_STATIC);
        return step_done(s->closer) || write_game(s->game, e) ? -1 : 0;
    }
    if (write_room(s->room, e, fence) || write_seats(s, e) || write_moves(s->move, e) ||
        write_game(s->game, e))
        return -1;
    return 0;
}

/* The batch's chat lines, oldest first. */
static int write_chat(sqlite3_stmt *chat, const struct sb_chat *c)
{
    for (; c != NULL; c = c->next) {
        sqlite3_bind_text(chat, 1, c->room, -1, SQLITE_STATIC);
        sqlite3_bind_int(chat, 2, c->seat);
        sqlite3_bind_text(chat, 3, c->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(chat, 4, c->text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(chat, 5, (sqlite3_int64)c->time);
        if (step_done(chat))
            return -1;
    }
    return 0;
}

/* The kind of a failed write, for GET /healthz (store_health): short and
 * fixed, never the database's own message (which the log has). */
static const char *failure_reason(sqlite3 *db)
{
    switch (sqlite3_errcode(db) & 0xff) {
    case SQLITE_FULL:
        return "disk full";
    case SQLITE_IOERR:
        return "I/O error";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "database locked";
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
        return "database not writable";
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return "database damaged";
    default:
        return "the commit failed";
    }
}

/* Write batch b in one transaction. Runs on the thread pool (or the caller's
 * thread in store_flush); touches only b and the connection. */
static int sq_batch_write(struct store *st, struct batch *b)
{
    sqlite3 *db = SQ(st)->db;
    struct batch_stmts s = {0};
    int ok = 0;
    /* Not logged here: the loop logs once when commits start failing and
     * once when they work again, not at every retry. */
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(b->why, sizeof b->why, "%s", sqlite3_errmsg(db));
        b->reason = failure_reason(db);
        return -1;
    }
    if (stmts_prepare(db, &s) != 0)
        goto fail;
    for (int i = 0; i < b->n; i++)
        if (write_entry(&s, &b->rooms[i], b->fence) != 0)
            goto fail;
    if (write_chat(s.chat, b->chat) != 0)
        goto fail;
    for (const struct sb_analysis *a = b->an; a != NULL; a = a->next) {
        sqlite3_bind_text(s.an, 1, a->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(s.an, 2, a->doc, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s.an, 3, (sqlite3_int64)a->time);
        if (step_done(s.an))
            goto fail;
    }
    ok = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
fail:
    if (!ok) {
        snprintf(b->why, sizeof b->why, "%s", sqlite3_errmsg(db));
        b->reason = failure_reason(db);
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    stmts_finalize(&s);
    return ok ? 0 : -1;
}

/* ---- open, check, migrate ---- */

static int user_version(sqlite3 *db, int *out)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(s);
    *out = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : -1;
}

static int quick_check(sqlite3 *db, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &s, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    rc = sqlite3_step(s);
    int ok = rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(s, 0), "ok") == 0;
    if (!ok)
        snprintf(err, errlen, "%s",
                 rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return ok ? 0 : -1;
}

/* One carcd per data directory: two would restore the same rooms and
 * write over each other's moves. The lock lasts as long as the process (the
 * kernel drops it on exit or crash), so a stale lock file is harmless. */
static int dir_lock(const char *dir, char *err, size_t errlen)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, STORE_LOCK);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        if (pid[0] != '\0')
            snprintf(err, errlen,
                     "another carcd (pid %s) uses the data directory %s; stop it first", pid, dir);
        else
            snprintf(err, errlen, "another carcd uses the data directory %s; stop it first", dir);
        close(fd);
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n)
        log_warn("storage: cannot write %s: %s", path, strerror(errno));
    return fd;
}

/* A sentence for an SQLite failure at start; "locked" gets advice. */
void sq__db_error(char *err, size_t errlen, const char *path, const char *what, sqlite3 *db)
{
    int code = db != NULL ? sqlite3_errcode(db) : SQLITE_ERROR;
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
        snprintf(err, errlen, "%s is locked by another program; stop it and start carcd again",
                 path);
    else
        snprintf(err, errlen, "%s: %s: %s", path, what,
                 db != NULL ? sqlite3_errmsg(db) : "out of memory");
}

static int migrate(sqlite3 *db, int version, const char *path, char *err, size_t errlen)
{
    if (version == STORE_SCHEMA)
        return 0;
    if (sq__exec(db, "BEGIN IMMEDIATE") != 0) {
        sq__db_error(err, errlen, path, "cannot start the schema update", db);
        return -1;
    }
    if (version == 0) {
        if (sq__exec(db, schema_sql) != 0)
            goto fail;
    } else {
        for (int v = version; v < STORE_SCHEMA; v++)
            if (sq__exec(db, migrations[v]) != 0)
                goto fail;
    }
    if (sq__exec(db, "COMMIT") != 0)
        goto fail;
    if (version == 0)
        log_info("storage: created %s (schema %d)", path, STORE_SCHEMA);
    else
        log_info("storage: %s updated from schema %d to %d", path, version, STORE_SCHEMA);
    return 0;
fail:
    sq__db_error(err, errlen, path, "cannot update the schema", db);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static sqlite3 *db_open(const char *path, int flags, int busy_ms, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        sq__db_error(err, errlen, path, "cannot open it", db);
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, busy_ms);
    /* 512 KiB of page cache per connection (SQLite's default is 2 MiB): the pages an append
     * workload touches fit, and the pages it churns through are spread over the thread
     * pool's malloc arenas, where what outlives them keeps them resident (200 rooms played,
     * then 75 s idle: 1.26x the warm RSS with 2 MiB, 1.16x with this; durable moves/s, medians
     * of 3 alternating carc-load runs of 100 rooms: 11,433 with 2 MiB, 11,558 with this). */
    (void)sqlite3_exec(db, "PRAGMA cache_size = -512", NULL, NULL, NULL);
    return db;
}

/* Called by SQLite on the writer's thread after each commit. Setting it also
 * turns off SQLite's own checkpoints, which would run inside a commit and hold
 * up every move waiting for it: sq_after_batch runs them beside the commits. */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
    (void)db;
    (void)name;
    ((struct sq *)arg)->wal_pages = pages;
    return SQLITE_OK;
}

/* A passive checkpoint copies the WAL into the database while commits go on
 * (it waits for nobody); the WAL starts over once it is all copied. */
static void on_ckpt(uv_work_t *w)
{
    struct sq *q = w->data;
    int rc = sqlite3_wal_checkpoint_v2(q->cdb, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY)
        log_warn("storage: checkpoint: %s", sqlite3_errmsg(q->cdb));
}

static void on_after_ckpt(uv_work_t *w, int status)
{
    (void)status;
    ((struct sq *)w->data)->ckpt_busy = 0;
}

static void sq_after_batch(struct store *st)
{
    struct sq *q = SQ(st);
    if (q->ckpt_busy || q->wal_pages < STORE_CKPT_PAGES)
        return;
    q->ckpt.data = q;
    if (uv_queue_work(st->loop, &q->ckpt, on_ckpt, on_after_ckpt) == 0)
        q->ckpt_busy = 1;
}

/* The writer opens with FULLMUTEX, so this may run beside a commit. */
static void sq_release(struct store *st)
{
    sqlite3_db_release_memory(SQ(st)->db);
}

static int sq_exec(struct store *st, const char *sql)
{
    return sq__exec(SQ(st)->db, sql);
}

static int sq_fsync_set(struct store *st, int on, char *err, size_t errlen)
{
    struct sq *q = SQ(st);
    if (sq__exec(q->db, on ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL") != 0) {
        sq__db_error(err, errlen, q->path, "cannot set synchronous", q->db);
        return -1;
    }
    return 0;
}

static const char *sq_file(const struct store *st)
{
    return ((const struct sq *)st->impl)->path;
}

/* dir's carcd.state (damage.c): this run in use (clean 0) or stopped
 * cleanly (1), with the database's counts now. A failure is logged: the
 * store works without it, but the next start's check knows less. */
static void state_mark(struct sq *q, int clean)
{
    struct store_state s = {.clean = clean, .rooms = -1, .records = -1, .moves = -1};
    sqlite3_stmt *c;
    if (sqlite3_prepare_v2(q->db,
                           "SELECT (SELECT count(*) FROM rooms), (SELECT count(*) FROM games),"
                           " (SELECT count(*) FROM moves)",
                           -1, &c, NULL) == SQLITE_OK) {
        if (sqlite3_step(c) == SQLITE_ROW) {
            s.rooms = sqlite3_column_int64(c, 0);
            s.records = sqlite3_column_int64(c, 1);
            s.moves = sqlite3_column_int64(c, 2);
        }
        sqlite3_finalize(c);
    }
    s.time_ms = clock_wall_ms();
    char err[700];
    if (store__state_write(q->dir, &s, err, sizeof err) != 0)
        log_warn("storage: %s (%s)", err,
                 clean ? "the next start will take this stop for a crash"
                       : "a crash of this run would look like a clean stop to the next start");
}

/* A checkpoint in flight holds cdb: the loop has stopped running it by now
 * (store_close is called after uv_run returned). The clean stop is recorded
 * before the last connection closes: should the process die in that close's
 * checkpoint, the log is still there (SQLite deletes it only once it is all
 * in the database), so the next start loses nothing it does not check. */
static void sq_close(struct store *st)
{
    struct sq *q = SQ(st);
    if (q->dir[0] != '\0')
        state_mark(q, 1);
    sqlite3_close(q->cdb);
    sqlite3_close(q->rdb);
    sqlite3_close(q->db);
    if (q->lock_fd >= 0)
        close(q->lock_fd);
    free(q);
}

int store_wal_pages(const struct store *st)
{
    return st->be == &sq_backend ? ((const struct sq *)st->impl)->wal_pages : 0;
}

const struct store_backend sq_backend = {
    .name = "sqlite",
    .batch_write = sq_batch_write,
    .games_get = sq__games_get,
    .entry_get = sq__entry_get,
    .game_get = sq__game_get,
    .analysis_get = sq__analysis_get,
    .stale_close = sq__stale_close,
    .rows = sq__rows,
    .records = sq__records,
    .chats = sq__chats,
    .after_batch = sq_after_batch,
    .release = sq_release,
    .fsync_set = sq_fsync_set,
    .exec = sq_exec,
    .file = sq_file,
    .close = sq_close,
};

static struct store *sq_open(const char *path, int lock, int busy_ms, char *err, size_t errlen);

struct store *store_open(const char *dir, int busy_ms, char *err, size_t errlen)
{
    return store_open_flags(dir, busy_ms, 0, err, errlen);
}

/* The lock first (a second carcd must not look at, nor copy, files the first
 * one is writing), then the files checked before SQLite reads them, then
 * SQLite, then carcd.state says this run is in use. */
struct store *store_open_flags(const char *dir, int busy_ms, int flags, char *err, size_t errlen)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, STORE_FILE);
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "the data directory %s is not writable: %s", dir, strerror(errno));
        return NULL;
    }
    if (access(path, F_OK) == 0 && access(path, R_OK | W_OK) != 0) {
        snprintf(err, errlen, "%s is not writable: %s", path, strerror(errno));
        return NULL;
    }
    int lock = dir_lock(dir, err, errlen);
    if (lock < 0)
        return NULL;
    if (store__damage_check(dir, flags & STORE_ACCEPT_DAMAGE, err, errlen) != 0) {
        close(lock);
        return NULL;
    }
    struct store *st = sq_open(path, lock, busy_ms, err, errlen);
    if (st != NULL) {
        snprintf(SQ(st)->dir, sizeof SQ(st)->dir, "%s", dir);
        state_mark(SQ(st), 0);
    }
    return st;
}

struct store *store_open_file(const char *path, char *err, size_t errlen)
{
    return sq_open(path, -1, STORE_BUSY_MS, err, errlen);
}

/* path opened, checked and migrated; lock (-1: none) is closed with it. */
static struct store *sq_open(const char *path, int lock, int busy_ms, char *err, size_t errlen)
{
    sqlite3 *db = db_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                          busy_ms, err, errlen);
    sqlite3 *rdb = NULL, *cdb = NULL;
    if (db == NULL)
        goto fail;
    char why[256] = "";
    int version = 0;
    if (quick_check(db, why, sizeof why) != 0) {
        int code = sqlite3_errcode(db);
        if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
            sq__db_error(err, errlen, path, "", db);
        else
            snprintf(err, errlen,
                     "%s is damaged or not a carcd database (%s); move it away or restore"
                     " a backup",
                     path, why);
        goto fail;
    }
    if (user_version(db, &version) != 0) {
        sq__db_error(err, errlen, path, "cannot read the schema version", db);
        goto fail;
    }
    if (version > STORE_SCHEMA) {
        snprintf(err, errlen,
                 "%s has schema version %d, newer than this carcd knows (%d): run a newer carcd",
                 path, version, STORE_SCHEMA);
        goto fail;
    }
    sqlite3_stmt *s;
    char *mode = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &s, NULL) == SQLITE_OK) {
        if (sqlite3_step(s) == SQLITE_ROW)
            mode = mem_strdup((const char *)sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
    }
    if (mode == NULL || strcmp(mode, "wal") != 0) {
        if (mode == NULL)
            sq__db_error(err, errlen, path, "cannot use WAL mode", db);
        else
            snprintf(err, errlen, "%s: cannot use WAL mode (%s)", path, mode);
        free(mode);
        goto fail;
    }
    free(mode);
    if (sq__exec(db, "PRAGMA synchronous = FULL") != 0) {
        sq__db_error(err, errlen, path, "cannot set synchronous", db);
        goto fail;
    }
    if (migrate(db, version, path, err, errlen) != 0)
        goto fail;
    /* HTTP reads go through their own connection: in WAL mode they do not
     * wait for the writer, nor it for them. */
    rdb = db_open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, busy_ms, err, errlen);
    if (rdb == NULL)
        goto fail;
    cdb = db_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, busy_ms, err, errlen);
    /* A connection finds the WAL at its first read; until then a checkpoint
     * through it does nothing. */
    if (cdb == NULL)
        goto fail;
    if (sq__exec(cdb, "SELECT count(*) FROM sqlite_master") != 0) {
        sq__db_error(err, errlen, path, "cannot open a second connection", cdb);
        goto fail;
    }
    struct sq *q = mem_zalloc(1, sizeof *q);
    q->db = db;
    q->rdb = rdb;
    q->cdb = cdb;
    sqlite3_wal_hook(db, wal_hook, q);
    q->lock_fd = lock;
    snprintf(q->path, sizeof q->path, "%s", path);
    return store__new(&sq_backend, q);
fail:
    sqlite3_close(cdb);
    sqlite3_close(rdb);
    sqlite3_close(db);
    if (lock >= 0)
        close(lock);
    return NULL;
}
