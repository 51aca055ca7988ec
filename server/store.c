/* store.c: SQLite storage (store.h). The only file that includes sqlite3.h.
 *
 *   rooms  (id, sets, no_farmers, escape_rule, seats, private, password_hash, host, phase,
 *           seed, deck, seq, created, updated, closed)
 *   seats  (room, idx, name, token_hash)          token_hash = SHA-256 hex of the token
 *   moves  (room, idx, move)                      move = one record move as JSON (DESIGN 3)
 *   chat   (id, room, seat, name, text, time)
 *   games  (room, record, players, scores, finished)   finished games: the record, seed included
 *
 * Times are wall-clock milliseconds. phase: 0 lobby, 1 playing, 2 over. closed: 1 when the room
 * was dropped from memory after room-ttl or stale-room (its rows stay, as a record). */
#include "store.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "lobby.h"
#include "log.h"
#include "record_json.h"
#include "room.h"

/* ---- a batch: rows copied on the loop, written on the thread pool ---- */

struct sb_seat {
    int idx;
    char name[PROTO_NAME_MAX];
    char hash[SHA256_HEX];
};

struct sb_room {
    char id[PROTO_ROOM_MAX];
    int gone; /* 0: write the room; 1: delete its rows; 2: mark it closed */
    int sets, no_farmers, escape_rule, nseats, priv, host, phase;
    char pw[SHA256_HEX];
    uint64_t seed;
    uint8_t deck[CARC_MAX_TILES];
    int deck_len;
    long long seq;
    uint64_t created, updated;
    int nseat;
    struct sb_seat seats[CARC_MAX_PLAYERS];
    int move_from, move_to;
    char **moves;           /* move_to - move_from JSON texts */
    char *record;           /* finished: the record */
    char *players, *scores; /* finished: JSON arrays */
};

struct sb_chat {
    struct sb_chat *next;
    char room[PROTO_ROOM_MAX];
    int seat;
    char name[PROTO_NAME_MAX];
    char *text;
    uint64_t time;
};

struct batch {
    uv_work_t work;
    struct store *st;
    unsigned long gen;
    struct sb_room *rooms;
    int n, cap;
    struct sb_chat *chat, **chat_tail;
    int ok;
};

struct game_entry {
    char id[PROTO_ROOM_MAX];
    uint64_t finished;
    char *players, *scores, *record;
};

struct store {
    sqlite3 *db;
    uv_loop_t *loop;
    uv_check_t check;
    int started;
    struct lobby *lb;
    struct room *dirty; /* rooms changed since the last batch was built */
    struct batch *fill; /* chat lines and gone rooms of the batch being filled */
    unsigned long fill_gen, done_gen;
    int inflight, failing, retry;
    unsigned long batches;
    struct game_entry games[STORE_GAMES_MAX]; /* ring, oldest first */
    int ngames, games_head;
    int test_fail; /* tests: fail the next commits */
};

static uint64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d == NULL)
        srv_oom("store");
    memcpy(d, s, n);
    return d;
}

static struct batch *batch_new(struct store *st, unsigned long gen)
{
    struct batch *b = calloc(1, sizeof *b);
    if (b == NULL)
        srv_oom("store batch");
    b->st = st;
    b->gen = gen;
    b->chat_tail = &b->chat;
    b->work.data = b;
    return b;
}

static struct sb_room *batch_add(struct batch *b)
{
    if (b->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 16;
        struct sb_room *r = realloc(b->rooms, (size_t)cap * sizeof *r);
        if (r == NULL)
            srv_oom("store batch");
        b->rooms = r;
        b->cap = cap;
    }
    struct sb_room *e = &b->rooms[b->n++];
    memset(e, 0, sizeof *e);
    return e;
}

static void batch_free(struct batch *b)
{
    for (int i = 0; i < b->n; i++) {
        struct sb_room *e = &b->rooms[i];
        for (int k = 0; k < e->move_to - e->move_from && e->moves != NULL; k++)
            free(e->moves[k]);
        free(e->moves);
        free(e->record);
        free(e->players);
        free(e->scores);
    }
    free(b->rooms);
    while (b->chat != NULL) {
        struct sb_chat *c = b->chat;
        b->chat = c->next;
        free(c->text);
        free(c);
    }
    free(b);
}

/* ---- JSON bits ---- */

static void json_str(char *out, size_t size, size_t *n, const char *s)
{
    if (*n + 1 < size)
        out[(*n)++] = '"';
    for (; *s != '\0' && *n + 8 < size; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            out[(*n)++] = '\\';
            out[(*n)++] = (char)ch;
        } else if (ch < 0x20) {
            *n += (size_t)snprintf(out + *n, size - *n, "\\u%04x", ch);
        } else {
            out[(*n)++] = (char)ch;
        }
    }
    if (*n + 1 < size)
        out[(*n)++] = '"';
    out[*n] = '\0';
}

/* ---- the batch being filled ---- */

static void snapshot(struct store *st, struct room *r)
{
    struct sb_room *e = batch_add(st->fill);
    snprintf(e->id, sizeof e->id, "%s", r->id);
    e->sets = (int)r->sets;
    e->no_farmers = r->no_farmers;
    e->escape_rule = r->escape_rule;
    e->nseats = r->nseats;
    e->priv = r->private_room;
    e->host = r->host;
    e->phase = r->phase;
    memcpy(e->pw, r->pw_hash, sizeof e->pw);
    e->seed = r->seed;
    e->deck_len = r->deck_len;
    if (r->deck_len > 0)
        memcpy(e->deck, r->deck, (size_t)r->deck_len);
    e->seq = r->seq;
    e->created = r->created_ms;
    e->updated = r->updated_ms;
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].taken) {
            struct sb_seat *s = &e->seats[e->nseat++];
            s->idx = i;
            memcpy(s->name, r->seats[i].name, sizeof s->name);
            memcpy(s->hash, r->seats[i].token_hash, sizeof s->hash);
        }
    e->move_from = r->moves_saved;
    e->move_to = r->nmoves;
    if (e->move_to > e->move_from) {
        e->moves = calloc((size_t)(e->move_to - e->move_from), sizeof *e->moves);
        if (e->moves == NULL)
            srv_oom("store batch");
        char buf[256];
        for (int i = e->move_from; i < e->move_to; i++) {
            if (room_move_json(r, i, buf, sizeof buf) < 0)
                snprintf(buf, sizeof buf, "null");
            e->moves[i - e->move_from] = xstrdup(buf);
        }
    }
    r->moves_saved = r->nmoves;
    if (r->phase == PROTO_PHASE_OVER && !r->finish_saved && r->game != NULL) {
        e->record = room_record_json(r);
        char buf[1024];
        size_t n = 0;
        buf[n++] = '[';
        for (int i = 0; i < r->nseats; i++) {
            if (i > 0)
                buf[n++] = ',';
            json_str(buf, sizeof buf, &n, r->seats[i].name);
        }
        buf[n++] = ']';
        buf[n] = '\0';
        e->players = xstrdup(buf);
        n = 0;
        n += (size_t)snprintf(buf, sizeof buf, "[");
        for (int i = 0; i < r->nseats; i++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", i ? "," : "",
                                  (int)r->game->players[i].score);
        snprintf(buf + n, sizeof buf - n, "]");
        e->scores = xstrdup(buf);
        r->finish_saved = 1;
    }
    r->dirty = 0;
}

unsigned long store_room_dirty(struct store *st, struct room *r)
{
    uint64_t now = wall_ms();
    if (r->created_ms == 0)
        r->created_ms = now;
    r->updated_ms = now;
    if (!r->dirty) {
        r->dirty = 1;
        r->dnext = st->dirty;
        st->dirty = r;
    }
    return st->fill_gen;
}

unsigned long store_done_gen(const struct store *st)
{
    return st->done_gen;
}

int store_failing(const struct store *st)
{
    return st->failing;
}

unsigned long store_batches(const struct store *st)
{
    return st->batches;
}

static void dirty_unlink(struct store *st, struct room *r)
{
    for (struct room **p = &st->dirty; *p != NULL; p = &(*p)->dnext)
        if (*p == r) {
            *p = r->dnext;
            break;
        }
    r->dirty = 0;
    r->dnext = NULL;
}

void store_room_forget(struct store *st, struct room *r, int gone)
{
    if (r->dirty) {
        if (gone == 2)
            snapshot(st, r);
        dirty_unlink(st, r);
    }
    if (gone) {
        struct sb_room *e = batch_add(st->fill);
        snprintf(e->id, sizeof e->id, "%s", r->id);
        e->gone = gone;
        e->updated = wall_ms();
    }
}

void store_chat(struct store *st, const struct room *r, int seat, const char *name,
                const char *text, uint64_t now_ms)
{
    struct sb_chat *c = calloc(1, sizeof *c);
    if (c == NULL)
        srv_oom("store chat");
    snprintf(c->room, sizeof c->room, "%s", r->id);
    c->seat = seat;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->text = xstrdup(text);
    c->time = now_ms ? now_ms : wall_ms();
    *st->fill->chat_tail = c;
    st->fill->chat_tail = &c->next;
}

/* ---- SQL ---- */

static const char *schema_sql =
    "CREATE TABLE rooms(id TEXT PRIMARY KEY, sets INTEGER NOT NULL, no_farmers INTEGER NOT NULL,"
    " escape_rule INTEGER NOT NULL, seats INTEGER NOT NULL, private INTEGER NOT NULL,"
    " password_hash TEXT NOT NULL, host INTEGER NOT NULL, phase INTEGER NOT NULL,"
    " seed INTEGER NOT NULL, deck BLOB, seq INTEGER NOT NULL, created INTEGER NOT NULL,"
    " updated INTEGER NOT NULL, closed INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE seats(room TEXT NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL,"
    " token_hash TEXT NOT NULL, PRIMARY KEY(room, idx));"
    "CREATE TABLE moves(room TEXT NOT NULL, idx INTEGER NOT NULL, move TEXT NOT NULL,"
    " PRIMARY KEY(room, idx));"
    "CREATE TABLE chat(id INTEGER PRIMARY KEY, room TEXT NOT NULL, seat INTEGER NOT NULL,"
    " name TEXT NOT NULL, text TEXT NOT NULL, time INTEGER NOT NULL);"
    "CREATE INDEX chat_room ON chat(room, id);"
    "CREATE TABLE games(room TEXT PRIMARY KEY, record TEXT NOT NULL, players TEXT NOT NULL,"
    " scores TEXT NOT NULL, finished INTEGER NOT NULL);"
    "CREATE INDEX games_finished ON games(finished);"
    "PRAGMA user_version = 1;";

static int exec(sqlite3 *db, const char *sql)
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

/* Write batch b in one transaction. Runs on the thread pool (or the caller's
 * thread in store_flush); touches only b and the connection. */
static int batch_write(sqlite3 *db, struct batch *b, int fail)
{
    sqlite3_stmt *room = NULL, *seat_del = NULL, *seat = NULL, *move = NULL, *chat = NULL,
                 *game = NULL, *del[4] = {NULL}, *closer = NULL;
    int ok = 0;
    if (fail || exec(db, "BEGIN IMMEDIATE") != 0)
        return -1;
    if (prep(db,
             "INSERT OR REPLACE INTO rooms(id, sets, no_farmers, escape_rule, seats, private,"
             " password_hash, host, phase, seed, deck, seq, created, updated, closed)"
             " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,0)",
             &room) ||
        prep(db, "DELETE FROM seats WHERE room = ?", &seat_del) ||
        prep(db, "INSERT INTO seats(room, idx, name, token_hash) VALUES(?,?,?,?)", &seat) ||
        prep(db, "INSERT OR REPLACE INTO moves(room, idx, move) VALUES(?,?,?)", &move) ||
        prep(db, "INSERT INTO chat(room, seat, name, text, time) VALUES(?,?,?,?,?)", &chat) ||
        prep(db,
             "INSERT OR REPLACE INTO games(room, record, players, scores, finished)"
             " VALUES(?,?,?,?,?)",
             &game) ||
        prep(db, "DELETE FROM rooms WHERE id = ?", &del[0]) ||
        prep(db, "DELETE FROM seats WHERE room = ?", &del[1]) ||
        prep(db, "DELETE FROM moves WHERE room = ?", &del[2]) ||
        prep(db, "DELETE FROM chat WHERE room = ?", &del[3]) ||
        prep(db, "UPDATE rooms SET closed = 1, updated = ? WHERE id = ?", &closer))
        goto fail;
    for (int i = 0; i < b->n; i++) {
        struct sb_room *e = &b->rooms[i];
        if (e->gone == 1) {
            for (int k = 0; k < 4; k++) {
                sqlite3_bind_text(del[k], 1, e->id, -1, SQLITE_STATIC);
                if (step_done(del[k]))
                    goto fail;
            }
            continue;
        }
        if (e->gone == 2) {
            sqlite3_bind_int64(closer, 1, (sqlite3_int64)e->updated);
            sqlite3_bind_text(closer, 2, e->id, -1, SQLITE_STATIC);
            if (step_done(closer))
                goto fail;
            continue;
        }
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
        if (step_done(room))
            goto fail;
        sqlite3_bind_text(seat_del, 1, e->id, -1, SQLITE_STATIC);
        if (step_done(seat_del))
            goto fail;
        for (int k = 0; k < e->nseat; k++) {
            sqlite3_bind_text(seat, 1, e->id, -1, SQLITE_STATIC);
            sqlite3_bind_int(seat, 2, e->seats[k].idx);
            sqlite3_bind_text(seat, 3, e->seats[k].name, -1, SQLITE_STATIC);
            sqlite3_bind_text(seat, 4, e->seats[k].hash, -1, SQLITE_STATIC);
            if (step_done(seat))
                goto fail;
        }
        for (int k = e->move_from; k < e->move_to; k++) {
            sqlite3_bind_text(move, 1, e->id, -1, SQLITE_STATIC);
            sqlite3_bind_int(move, 2, k);
            sqlite3_bind_text(move, 3, e->moves[k - e->move_from], -1, SQLITE_STATIC);
            if (step_done(move))
                goto fail;
        }
        if (e->record != NULL) {
            sqlite3_bind_text(game, 1, e->id, -1, SQLITE_STATIC);
            sqlite3_bind_text(game, 2, e->record, -1, SQLITE_STATIC);
            sqlite3_bind_text(game, 3, e->players, -1, SQLITE_STATIC);
            sqlite3_bind_text(game, 4, e->scores, -1, SQLITE_STATIC);
            sqlite3_bind_int64(game, 5, (sqlite3_int64)e->updated);
            if (step_done(game))
                goto fail;
        }
    }
    for (struct sb_chat *c = b->chat; c != NULL; c = c->next) {
        sqlite3_bind_text(chat, 1, c->room, -1, SQLITE_STATIC);
        sqlite3_bind_int(chat, 2, c->seat);
        sqlite3_bind_text(chat, 3, c->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(chat, 4, c->text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(chat, 5, (sqlite3_int64)c->time);
        if (step_done(chat))
            goto fail;
    }
    ok = exec(db, "COMMIT") == 0;
fail:
    if (!ok)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_stmt *all[] = {room,   seat_del, seat,   move,   chat,  game,
                           del[0], del[1],   del[2], del[3], closer};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sqlite3_finalize(all[i]);
    return ok ? 0 : -1;
}

/* ---- finished games in memory ---- */

static void games_add(struct store *st, const char *id, uint64_t finished, char *players,
                      char *scores, char *record)
{
    struct game_entry *g;
    if (st->ngames == STORE_GAMES_MAX) {
        g = &st->games[st->games_head];
        free(g->players);
        free(g->scores);
        free(g->record);
        st->games_head = (st->games_head + 1) % STORE_GAMES_MAX;
        st->ngames--;
    }
    g = &st->games[(st->games_head + st->ngames) % STORE_GAMES_MAX];
    st->ngames++;
    snprintf(g->id, sizeof g->id, "%s", id);
    g->finished = finished;
    g->players = players;
    g->scores = scores;
    g->record = record;
}

char *store_games_page(const struct store *st, int page)
{
    if (page < 1)
        page = 1;
    size_t cap = 256, n = 0;
    char *out = malloc(cap);
    if (out == NULL)
        srv_oom("games page");
    n += (size_t)snprintf(out, cap, "{\"page\":%d,\"per_page\":%d,\"total\":%d,\"games\":[", page,
                          STORE_PAGE, st->ngames);
    int first = (page - 1) * STORE_PAGE;
    for (int k = first; k < first + STORE_PAGE && k < st->ngames; k++) {
        const struct game_entry *g =
            &st->games[(st->games_head + st->ngames - 1 - k) % STORE_GAMES_MAX];
        size_t need = strlen(g->players) + strlen(g->scores) + 128;
        if (n + need + 8 > cap) {
            cap = (n + need + 8) * 2;
            char *o = realloc(out, cap);
            if (o == NULL)
                srv_oom("games page");
            out = o;
        }
        n += (size_t)snprintf(
            out + n, cap - n, "%s{\"id\":\"%s\",\"finished\":%llu,\"players\":%s,\"scores\":%s}",
            k > first ? "," : "", g->id, (unsigned long long)g->finished, g->players, g->scores);
    }
    snprintf(out + n, cap - n, "]}");
    return out;
}

const char *store_game_record(const struct store *st, const char *id)
{
    for (int k = 0; k < st->ngames; k++) {
        const struct game_entry *g = &st->games[(st->games_head + k) % STORE_GAMES_MAX];
        if (strcmp(g->id, id) == 0)
            return g->record;
    }
    return NULL;
}

/* ---- the batch cycle ---- */

static void batch_finish(struct store *st, struct batch *b)
{
    st->done_gen = b->gen;
    st->inflight = 0;
    st->batches++;
    if (!b->ok && !st->failing)
        log_error("storage: a commit failed; moves are refused until the disk works again");
    if (b->ok && st->failing)
        log_warn("storage: commits work again");
    st->failing = !b->ok;
    for (int i = 0; i < b->n; i++) {
        struct sb_room *e = &b->rooms[i];
        if (b->ok && e->record != NULL) {
            games_add(st, e->id, e->updated, e->players, e->scores, e->record);
            e->players = e->scores = e->record = NULL;
        }
        if (e->gone == 0 && st->lb != NULL) {
            struct room *r = lobby_room_find(st->lb, e->id);
            if (r != NULL)
                room_store_done(r, b->gen, b->ok, e->move_to);
        }
    }
    batch_free(b);
}

/* Turn the dirty rooms into the batch being filled and detach it. */
static struct batch *batch_take(struct store *st)
{
    if (st->dirty == NULL && st->fill->n == 0 && st->fill->chat == NULL)
        return NULL;
    while (st->dirty != NULL) {
        struct room *r = st->dirty;
        st->dirty = r->dnext;
        r->dnext = NULL;
        snapshot(st, r);
    }
    struct batch *b = st->fill;
    st->fill_gen++;
    st->fill = batch_new(st, st->fill_gen);
    return b;
}

static void on_work(uv_work_t *w)
{
    struct batch *b = w->data;
    b->ok = batch_write(b->st->db, b, b->st->test_fail > 0) == 0;
}

static void on_after_work(uv_work_t *w, int status)
{
    struct batch *b = w->data;
    if (status != 0)
        b->ok = 0;
    struct store *st = b->st;
    if (st->test_fail > 0)
        st->test_fail--;
    batch_finish(st, b);
}

static void submit(struct store *st)
{
    if (st->inflight)
        return;
    struct batch *b = batch_take(st);
    if (b == NULL)
        return;
    st->inflight = 1;
    if (uv_queue_work(st->loop, &b->work, on_work, on_after_work) != 0) {
        b->ok = 0;
        batch_finish(st, b);
    }
}

static void on_check(uv_check_t *h)
{
    struct store *st = h->data;
    if (!st->failing)
        submit(st);
}

void store_retry(struct store *st)
{
    if (st != NULL && st->failing && st->started)
        submit(st);
}

void store_start(struct store *st, struct uv_loop_s *loop, struct lobby *lb)
{
    st->loop = loop;
    st->lb = lb;
    uv_check_init(loop, &st->check);
    st->check.data = st;
    uv_check_start(&st->check, on_check);
    st->started = 1;
}

void store_stop(struct store *st)
{
    if (st != NULL && st->started) {
        uv_close((uv_handle_t *)&st->check, NULL);
        st->started = 0;
    }
}

int store_flush(struct store *st, struct lobby *lb)
{
    st->lb = lb;
    struct batch *b = batch_take(st);
    if (b == NULL)
        return 0;
    b->ok = batch_write(st->db, b, st->test_fail > 0) == 0;
    if (st->test_fail > 0)
        st->test_fail--;
    int ok = b->ok;
    batch_finish(st, b);
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

struct store *store_open(const char *dir, char *err, size_t errlen)
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
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(
        path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot open %s: %s", path,
                 db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 5000);
    char why[256] = "";
    int version = 0;
    if (quick_check(db, why, sizeof why) != 0) {
        snprintf(err, errlen,
                 "%s is damaged or not a carcd database (%s); move it away or restore"
                 " a backup",
                 path, why);
        goto fail;
    }
    if (user_version(db, &version) != 0) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
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
            mode = xstrdup((const char *)sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
    }
    if (mode == NULL || strcmp(mode, "wal") != 0) {
        snprintf(err, errlen, "%s: cannot use WAL mode (%s)", path,
                 mode != NULL ? mode : sqlite3_errmsg(db));
        free(mode);
        goto fail;
    }
    free(mode);
    if (exec(db, "PRAGMA synchronous = FULL") != 0) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto fail;
    }
    if (version == 0) {
        if (exec(db, "BEGIN IMMEDIATE") != 0 || exec(db, schema_sql) != 0 ||
            exec(db, "COMMIT") != 0) {
            snprintf(err, errlen, "%s: cannot create the schema: %s", path, sqlite3_errmsg(db));
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            goto fail;
        }
        log_info("storage: created %s (schema %d)", path, STORE_SCHEMA);
    }
    /* Migrations from older schemas go here (version < STORE_SCHEMA). */
    struct store *st = calloc(1, sizeof *st);
    if (st == NULL)
        srv_oom("store");
    st->db = db;
    st->fill_gen = 1;
    st->fill = batch_new(st, st->fill_gen);
    return st;
fail:
    sqlite3_close(db);
    return NULL;
}

void store_close(struct store *st)
{
    if (st == NULL)
        return;
    sqlite3_close(st->db);
    batch_free(st->fill);
    for (int k = 0; k < st->ngames; k++) {
        struct game_entry *g = &st->games[(st->games_head + k) % STORE_GAMES_MAX];
        free(g->players);
        free(g->scores);
        free(g->record);
    }
    free(st);
}

void store_test_fail(struct store *st, int n)
{
    st->test_fail = n;
}

/* ---- restore ---- */

/* The record text of a stored room: its settings, seats, seed and moves. */
static char *record_text(struct store *st, const char *id, const struct room *r, char *err,
                         size_t errlen)
{
    struct carc_record *rec = calloc(1, sizeof *rec);
    if (rec == NULL)
        srv_oom("restore");
    room_record_fill(r, rec); /* without moves: they are appended from the table below */
    char *head = NULL;
    struct proto_error perr;
    proto_error_init(&perr);
    int rc = proto_record_dump(rec, 0, &head, &perr);
    free(rec);
    size_t hl = head != NULL ? strlen(head) : 0;
    if (rc != 0 || hl < 3 || strcmp(head + hl - 3, "[]}") != 0) {
        snprintf(err, errlen, "room %s: cannot write its record: %s", id, perr.text);
        free(head);
        return NULL;
    }
    size_t cap = hl + 4096, n = hl - 2;
    char *out = malloc(cap);
    if (out == NULL)
        srv_oom("restore");
    memcpy(out, head, n);
    free(head);
    sqlite3_stmt *s;
    sqlite3_prepare_v2(st->db, "SELECT move FROM moves WHERE room = ? ORDER BY idx", -1, &s, NULL);
    sqlite3_bind_text(s, 1, id, -1, SQLITE_TRANSIENT);
    int k = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *m = (const char *)sqlite3_column_text(s, 0);
        size_t ml = strlen(m);
        if (n + ml + 8 > cap) {
            cap = (n + ml + 8) * 2;
            char *o = realloc(out, cap);
            if (o == NULL)
                srv_oom("restore");
            out = o;
        }
        if (k++ > 0)
            out[n++] = ',';
        memcpy(out + n, m, ml);
        n += ml;
    }
    sqlite3_finalize(s);
    memcpy(out + n, "]}", 3);
    return out;
}

static int restore_room(struct store *st, struct lobby *lb, sqlite3_stmt *q, char *err,
                        size_t errlen)
{
    const char *id = (const char *)sqlite3_column_text(q, 0);
    struct proto_msg c;
    memset(&c, 0, sizeof c);
    c.u.create.sets = (unsigned)sqlite3_column_int(q, 1);
    c.u.create.no_farmers = sqlite3_column_int(q, 2);
    c.u.create.escape_rule = sqlite3_column_int(q, 3);
    c.u.create.seats = sqlite3_column_int(q, 4);
    c.u.create.private_room = sqlite3_column_int(q, 5);
    struct room *r = room_new(id, &c, lb->lim.history);
    snprintf(r->pw_hash, sizeof r->pw_hash, "%s", (const char *)sqlite3_column_text(q, 6));
    r->host = sqlite3_column_int(q, 7);
    int phase = sqlite3_column_int(q, 8);
    uint64_t seed = (uint64_t)sqlite3_column_int64(q, 9);
    const uint8_t *deck = sqlite3_column_blob(q, 10);
    int deck_len = sqlite3_column_bytes(q, 10);
    long long seq = sqlite3_column_int64(q, 11);
    r->created_ms = (uint64_t)sqlite3_column_int64(q, 12);
    r->updated_ms = (uint64_t)sqlite3_column_int64(q, 13);
    if (r->nseats < 1 || r->nseats > CARC_MAX_PLAYERS || r->host < 0 || r->host >= r->nseats) {
        snprintf(err, errlen, "room %s: bad stored seats", id);
        room_free(r);
        return -1;
    }
    sqlite3_stmt *s;
    sqlite3_prepare_v2(st->db, "SELECT idx, name, token_hash FROM seats WHERE room = ?", -1, &s,
                       NULL);
    sqlite3_bind_text(s, 1, id, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) {
        int i = sqlite3_column_int(s, 0);
        if (i < 0 || i >= r->nseats)
            continue;
        snprintf(r->seats[i].name, sizeof r->seats[i].name, "%s", sqlite3_column_text(s, 1));
        snprintf(r->seats[i].token_hash, sizeof r->seats[i].token_hash, "%s",
                 sqlite3_column_text(s, 2));
        r->seats[i].taken = 1;
    }
    sqlite3_finalize(s);
    struct carc_record *rec = NULL;
    int rc = 0;
    struct carc_error cerr = {0, ""};
    if (phase != PROTO_PHASE_LOBBY) {
        r->seed = seed;
        uint8_t deckcopy[CARC_MAX_TILES];
        int dl = deck != NULL && deck_len > 0 && deck_len <= CARC_MAX_TILES ? deck_len : 0;
        if (dl > 0)
            memcpy(deckcopy, deck, (size_t)dl);
        if (dl > 0) {
            r->deck = malloc((size_t)dl);
            if (r->deck == NULL)
                srv_oom("restore");
            memcpy(r->deck, deckcopy, (size_t)dl);
            r->deck_len = dl;
        }
        char *text = record_text(st, id, r, err, errlen);
        free(r->deck);
        r->deck = NULL;
        r->deck_len = 0;
        if (text == NULL) {
            room_free(r);
            return -1;
        }
        rec = calloc(1, sizeof *rec);
        if (rec == NULL)
            srv_oom("restore");
        struct proto_error perr;
        proto_error_init(&perr);
        if (proto_record_load(text, strlen(text), 0, rec, &perr) != 0) {
            snprintf(err, errlen, "room %s: its stored moves do not load: %s", id, perr.text);
            free(text);
            free(rec);
            room_free(r);
            return -1;
        }
        free(text);
        rc = room_restore(r, phase, seed, dl > 0 ? deckcopy : NULL, dl, rec->moves, rec->nmoves,
                          seq, &cerr);
        free(rec);
    } else {
        rc = room_restore(r, phase, 0, NULL, 0, NULL, 0, seq, &cerr);
    }
    if (rc != 0) {
        snprintf(err, errlen, "room %s: its stored moves do not replay: %s", id, cerr.text);
        room_free(r);
        return -1;
    }
    r->store = st;
    lobby_room_add(lb, r);
    return 0;
}

int store_restore(struct store *st, struct lobby *lb, int stale_s, uint64_t now_ms, char *err,
                  size_t errlen)
{
    st->lb = lb;
    if (stale_s > 0) {
        char sql[160];
        snprintf(sql, sizeof sql, "UPDATE rooms SET closed = 1 WHERE closed = 0 AND updated < %lld",
                 (long long)now_ms - (long long)stale_s * 1000);
        if (exec(st->db, sql) != 0) {
            snprintf(err, errlen, "storage: %s", sqlite3_errmsg(st->db));
            return -1;
        }
    }
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT id, sets, no_farmers, escape_rule, seats, private,"
                           " password_hash, host, phase, seed, deck, seq, created, updated"
                           " FROM rooms WHERE closed = 0 AND phase < 2 ORDER BY created, id",
                           -1, &q, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "storage: %s", sqlite3_errmsg(st->db));
        return -1;
    }
    int n = 0, bad = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        char why[256];
        if (restore_room(st, lb, q, why, sizeof why) == 0)
            n++;
        else {
            log_error("storage: %s (left on disk, not restored)", why);
            bad++;
        }
    }
    sqlite3_finalize(q);
    if (sqlite3_prepare_v2(st->db,
                           "SELECT room, finished, players, scores, record FROM games"
                           " ORDER BY finished DESC, room DESC LIMIT ?",
                           -1, &q, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "storage: %s", sqlite3_errmsg(st->db));
        return -1;
    }
    sqlite3_bind_int(q, 1, STORE_GAMES_MAX);
    /* Newest first from the query; the ring wants oldest first. */
    struct game_entry *tmp = calloc(STORE_GAMES_MAX, sizeof *tmp);
    if (tmp == NULL)
        srv_oom("restore");
    int ng = 0;
    while (sqlite3_step(q) == SQLITE_ROW && ng < STORE_GAMES_MAX) {
        struct game_entry *g = &tmp[ng++];
        snprintf(g->id, sizeof g->id, "%s", sqlite3_column_text(q, 0));
        g->finished = (uint64_t)sqlite3_column_int64(q, 1);
        g->players = xstrdup((const char *)sqlite3_column_text(q, 2));
        g->scores = xstrdup((const char *)sqlite3_column_text(q, 3));
        g->record = xstrdup((const char *)sqlite3_column_text(q, 4));
    }
    sqlite3_finalize(q);
    for (int i = ng - 1; i >= 0; i--)
        games_add(st, tmp[i].id, tmp[i].finished, tmp[i].players, tmp[i].scores, tmp[i].record);
    free(tmp);
    if (n > 0 || bad > 0 || ng > 0)
        log_info("storage: restored %d room(s), %d finished game(s)%s", n, ng,
                 bad ? "; some rooms could not be restored" : "");
    return n;
}
