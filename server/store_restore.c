/* store_restore.c: start-up (store.h, store_int.h). Rooms are rebuilt from
 * their seed and stored moves, the way a replay would; rooms untouched for
 * stale-room seconds are closed first, and a closed game becomes a record
 * ("abandoned") so that nothing played is lost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "lobby.h"
#include "log.h"
#include "record_json.h"
#include "room.h"
#include "sbuf.h"
#include "store_int.h"

#define ROOM_COLUMNS                                                                               \
    "id, sets, no_farmers, escape_rule, seats, private, password_hash, host, phase, seed, deck,"   \
    " seq, created, updated, clock_initial, clock_increment, clock_policy, variants"

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

/* The room of row q (the columns of ROOM_COLUMNS) rebuilt from its seats,
 * seed and moves; NULL with err when they do not load or replay. */
static struct room *load_room(struct store *st, struct lobby *lb, sqlite3_stmt *q, char *err,
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
    c.u.create.clock.initial = sqlite3_column_int(q, 14);
    c.u.create.clock.increment = sqlite3_column_int(q, 15);
    c.u.create.clock.on_timeout = sqlite3_column_int(q, 16);
    int variants = sqlite3_column_int(q, 17);
    c.u.create.farm_rule = variants & 3;
    c.u.create.small_city = variants >> 2 & 1;
    c.u.create.seat_random = variants >> 3 & 1;
    /* Checked before the room is built from them: its state has one view per seat. */
    if (c.u.create.seats < 1 || c.u.create.seats > CARC_MAX_PLAYERS) {
        snprintf(err, errlen, "room %s: bad stored seats", id);
        return NULL;
    }
    struct room *r = room_new(id, &c, lb->lim.history, lb->lim.history_bytes);
    snprintf(r->pw_hash, sizeof r->pw_hash, "%s", (const char *)sqlite3_column_text(q, 6));
    r->host = sqlite3_column_int(q, 7);
    int phase = sqlite3_column_int(q, 8);
    uint64_t seed = (uint64_t)sqlite3_column_int64(q, 9);
    const uint8_t *deck = sqlite3_column_blob(q, 10);
    int deck_len = sqlite3_column_bytes(q, 10);
    long long seq = sqlite3_column_int64(q, 11);
    r->created_ms = (uint64_t)sqlite3_column_int64(q, 12);
    r->updated_ms = (uint64_t)sqlite3_column_int64(q, 13);
    if (r->host < 0 || r->host >= r->nseats) {
        snprintf(err, errlen, "room %s: bad stored host", id);
        room_free(r);
        return NULL;
    }
    sqlite3_stmt *s;
    sqlite3_prepare_v2(st->db,
                       "SELECT idx, name, token_hash, bot, autoplay, forfeited, timeouts, clock_ms"
                       " FROM seats WHERE room = ?",
                       -1, &s, NULL);
    sqlite3_bind_text(s, 1, id, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) {
        int i = sqlite3_column_int(s, 0);
        if (i < 0 || i >= r->nseats)
            continue;
        snprintf(r->seats[i].name, sizeof r->seats[i].name, "%s", sqlite3_column_text(s, 1));
        snprintf(r->seats[i].token_hash, sizeof r->seats[i].token_hash, "%s",
                 sqlite3_column_text(s, 2));
        r->seats[i].taken = 1;
        int bot = sqlite3_column_int(s, 3), autoplay = sqlite3_column_int(s, 4);
        r->seats[i].bot = bot >= 0 && bot <= CARC_BOT_LEVELS ? bot : 0;
        r->seats[i].autoplay = autoplay >= 0 && autoplay < PROTO_AUTO_COUNT ? autoplay : 0;
        r->seats[i].forfeited = sqlite3_column_int(s, 5) != 0;
        r->seats[i].timeouts = sqlite3_column_int(s, 6);
        r->seats[i].clock_ms = sqlite3_column_int64(s, 7);
    }
    sqlite3_finalize(s);
    struct carc_record *rec = NULL;
    int rc = 0;
    struct carc_error cerr = {0, ""};
    if (phase != PROTO_PHASE_LOBBY) {
        /* The record needs the seed and deck: lent to r for record_text only
         * (room_restore keeps its own copy). */
        uint8_t deckcopy[CARC_MAX_TILES];
        int dl = deck != NULL && deck_len > 0 && deck_len <= CARC_MAX_TILES ? deck_len : 0;
        if (dl > 0)
            memcpy(deckcopy, deck, (size_t)dl);
        r->seed = seed;
        r->deck = dl > 0 ? deckcopy : NULL;
        r->deck_len = dl;
        char *text = record_text(st, id, r, err, errlen);
        r->deck = NULL;
        r->deck_len = 0;
        if (text == NULL) {
            room_free(r);
            return NULL;
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
            return NULL;
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
        return NULL;
    }
    return r;
}

/* Closed rooms whose game started but has no record yet (closed by
 * stale-room just now, or by an older carcd) become "abandoned" records. */
static int close_abandoned(struct store *st, struct lobby *lb, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT " ROOM_COLUMNS " FROM rooms WHERE closed = 1 AND phase = 1"
                           " AND id NOT IN (SELECT room FROM games)",
                           -1, &q, NULL) != SQLITE_OK) {
        store__db_error(err, errlen, st->path, "cannot read closed rooms", st->db);
        return -1;
    }
    struct batch *b = store__batch_new(st, 0);
    while (sqlite3_step(q) == SQLITE_ROW) {
        char why[256];
        struct room *r = load_room(st, lb, q, why, sizeof why);
        if (r == NULL) {
            log_error("storage: %s (left on disk, no record)", why);
            continue;
        }
        struct sb_room *e = store__batch_add(b);
        snprintf(e->id, sizeof e->id, "%s", r->id);
        e->gone = SB_CLOSE;
        e->updated = r->updated_ms;
        store__record_entry(e, r, STORE_ABANDONED, "stale-room");
        room_free(r);
    }
    sqlite3_finalize(q);
    int rc = b->n > 0 ? store__batch_write(st->db, b, 0) : 0;
    if (rc != 0)
        store__db_error(err, errlen, st->path, "cannot keep closed games as records", st->db);
    else if (b->n > 0)
        log_info("storage: %d closed game(s) kept as abandoned records", b->n);
    store__batch_free(b);
    return rc;
}

int store_restore(struct store *st, struct lobby *lb, int stale_s, uint64_t now_ms, char *err,
                  size_t errlen)
{
    st->lb = lb;
    if (stale_s > 0) {
        /* A stale lobby room is nobody's game: its rows go. A game is closed
         * and becomes a record below. */
        long long before = (long long)now_ms - (long long)stale_s * 1000;
        char sql[512];
        snprintf(sql, sizeof sql,
                 "BEGIN IMMEDIATE;"
                 "DELETE FROM seats WHERE room IN (SELECT id FROM rooms WHERE closed = 0"
                 " AND phase = 0 AND updated < %lld);"
                 "DELETE FROM chat WHERE room IN (SELECT id FROM rooms WHERE closed = 0"
                 " AND phase = 0 AND updated < %lld);"
                 "DELETE FROM rooms WHERE closed = 0 AND phase = 0 AND updated < %lld;"
                 "UPDATE rooms SET closed = 1 WHERE closed = 0 AND updated < %lld;"
                 "COMMIT;",
                 before, before, before, before);
        if (store__exec(st->db, sql) != 0) {
            store__db_error(err, errlen, st->path, "cannot close stale rooms", st->db);
            sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
    }
    if (close_abandoned(st, lb, err, errlen) != 0)
        return -1;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT " ROOM_COLUMNS " FROM rooms WHERE closed = 0 AND phase < 2"
                           " ORDER BY created, id",
                           -1, &q, NULL) != SQLITE_OK) {
        store__db_error(err, errlen, st->path, "cannot read the rooms", st->db);
        return -1;
    }
    int n = 0, bad = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        char why[256];
        struct room *r = load_room(st, lb, q, why, sizeof why);
        if (r != NULL) {
            r->store = st;
            lobby_room_add(lb, r);
            n++;
        } else {
            log_error("storage: %s (left on disk, not restored)", why);
            bad++;
        }
    }
    sqlite3_finalize(q);
    if (n > 0 || bad > 0)
        log_info("storage: restored %d room(s)%s", n,
                 bad ? "; some rooms could not be restored" : "");
    return n;
}
