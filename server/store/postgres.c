/* store/postgres.c: the PostgreSQL backend (store.h, store_int.h), with libpq.
 *
 * The same tables as sqlite.c (BIGINT for times and seeds, BYTEA for the
 * deck, BIGSERIAL chat ids) and a table schema_version.
 *
 * Why the thread pool and not libpq's asynchronous API on a uv_poll: the
 * batch cycle (store.c) already runs one transaction at a time on libuv's
 * thread pool and the reads one at a time beside it, so a blocking libpq
 * connection per role (writer, reader) keeps this file to the same shape as
 * sqlite.c, and the loop never waits for the database either way. What a
 * worker thread may block on is bounded: connect_timeout (5 s), TCP
 * keepalives and statement_timeout (30 s) on both connections. The batch is
 * sent in pipeline mode (libpq 14+): one round trip per 256 statements, not
 * one per statement, inside one BEGIN..COMMIT.
 *
 * Reconnects: a connection found broken is reset on its next use, at most
 * once per backoff period (250 ms doubling to 8 s), so a database that
 * restarts is found again without a storm of connects; until then commits
 * fail (the rooms roll back and refuse moves) and reads answer 503.
 *
 * One carcd writes a database at a time: the writer holds an advisory lock
 * (pg_try_advisory_lock) for its session, taken again after a reconnect. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json_str.h"
#include "postgres_int.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"

static const char *schema_sql =
    "CREATE TABLE rooms(id TEXT PRIMARY KEY, sets INTEGER NOT NULL, no_farmers INTEGER NOT NULL,"
    " escape_rule INTEGER NOT NULL, seats INTEGER NOT NULL, private INTEGER NOT NULL,"
    " password_hash TEXT NOT NULL, host INTEGER NOT NULL, phase INTEGER NOT NULL,"
    " seed BIGINT NOT NULL, deck BYTEA, seq BIGINT NOT NULL, created BIGINT NOT NULL,"
    " updated BIGINT NOT NULL, closed INTEGER NOT NULL DEFAULT 0,"
    " clock_initial INTEGER NOT NULL DEFAULT 0, clock_increment INTEGER NOT NULL DEFAULT 0,"
    " clock_policy INTEGER NOT NULL DEFAULT 0, fence BIGINT NOT NULL DEFAULT 0,"
    " variants INTEGER NOT NULL DEFAULT 0, fair TEXT NOT NULL DEFAULT '',"
    " clock_per_move INTEGER NOT NULL DEFAULT 0, clock_zone TEXT NOT NULL DEFAULT '',"
    " turn_wall BIGINT NOT NULL DEFAULT 0);"
    "CREATE TABLE seats(room TEXT NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL,"
    " token_hash TEXT NOT NULL, bot INTEGER NOT NULL DEFAULT 0,"
    " autoplay INTEGER NOT NULL DEFAULT 0, forfeited INTEGER NOT NULL DEFAULT 0,"
    " timeouts INTEGER NOT NULL DEFAULT 0, clock_ms BIGINT NOT NULL DEFAULT 0,"
    " account BIGINT NOT NULL DEFAULT 0, vac_from BIGINT NOT NULL DEFAULT 0,"
    " vac_until BIGINT NOT NULL DEFAULT 0, PRIMARY KEY(room, idx));"
    "CREATE TABLE moves(room TEXT NOT NULL, idx INTEGER NOT NULL, move TEXT NOT NULL,"
    " PRIMARY KEY(room, idx));"
    "CREATE TABLE chat(id BIGSERIAL PRIMARY KEY, room TEXT NOT NULL, seat INTEGER NOT NULL,"
    " name TEXT NOT NULL, text TEXT NOT NULL, time BIGINT NOT NULL);"
    "CREATE INDEX chat_room ON chat(room, id);"
    "CREATE TABLE games(room TEXT PRIMARY KEY, record TEXT NOT NULL, players TEXT NOT NULL,"
    " scores TEXT NOT NULL, finished BIGINT NOT NULL, status TEXT NOT NULL DEFAULT 'finished');"
    "CREATE INDEX games_status ON games(status, finished, room);"
    "CREATE TABLE analyses(game TEXT PRIMARY KEY, doc TEXT NOT NULL, created BIGINT NOT NULL);"
    "CREATE TABLE schema_version(version INTEGER NOT NULL);"
    "INSERT INTO schema_version VALUES(7);";

/* From each schema to the next, applied in order in one transaction; the
 * first PostgreSQL schema is 4 (the SQLite history before it never existed
 * here). */
static const char *migrations[STORE_SCHEMA + 1] = {
    [4] = "ALTER TABLE seats ADD COLUMN account BIGINT NOT NULL DEFAULT 0;", /* 4 -> 5 */
    /* 5 -> 6: correspondence clocks (sqlite.c) */
    [5] = "ALTER TABLE rooms ADD COLUMN clock_per_move INTEGER NOT NULL DEFAULT 0;"
          "ALTER TABLE rooms ADD COLUMN clock_zone TEXT NOT NULL DEFAULT '';"
          "ALTER TABLE rooms ADD COLUMN turn_wall BIGINT NOT NULL DEFAULT 0;"
          "ALTER TABLE seats ADD COLUMN vac_from BIGINT NOT NULL DEFAULT 0;"
          "ALTER TABLE seats ADD COLUMN vac_until BIGINT NOT NULL DEFAULT 0;",
    /* 6 -> 7: games' analyses (sqlite.c) */
    [6] = "CREATE TABLE analyses(game TEXT PRIMARY KEY, doc TEXT NOT NULL,"
          " created BIGINT NOT NULL);",
};

static uint64_t now_ms(void)
{
    return (uint64_t)clock_mono_ms();
}

/* libpq's message without its trailing newline. */
void pg__msg(PGconn *c, char *out, size_t size)
{
    snprintf(out, size, "%s", c != NULL ? PQerrorMessage(c) : "out of memory");
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (out[i] == '\n')
            out[i] = ' ';
}

/* Run sql (no parameters, maybe several statements); 0, or -1 with why. */
int pg__run(PGconn *c, const char *sql, char *why, size_t size)
{
    PGresult *res = PQexec(c, sql);
    ExecStatusType s = PQresultStatus(res);
    int ok = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
    if (!ok)
        snprintf(why, size, "%s", res != NULL ? PQresultErrorMessage(res) : PQerrorMessage(c));
    PQclear(res);
    if (!ok) {
        size_t n = strlen(why);
        while (n > 0 && why[n - 1] == '\n')
            why[--n] = '\0';
    }
    return ok ? 0 : -1;
}

PGresult *pg__query(PGconn *c, const char *sql, int n, const char *const *vals)
{
    PGresult *res = PQexecParams(c, sql, n, NULL, vals, NULL, NULL, 0);
    if (PQresultStatus(res) != PGRES_TUPLES_OK && PQresultStatus(res) != PGRES_COMMAND_OK) {
        PQclear(res);
        return NULL;
    }
    return res;
}

/* What a fresh session needs: the writer's lock and durability. */
static int session_setup(struct pg *p, struct pg_conn *pc, char *why, size_t size)
{
    if (pg__run(pc->c, "SET statement_timeout = 30000; SET client_min_messages = warning", why,
                size) != 0)
        return -1;
    if (!pc->writer)
        return 0;
    if (pg__run(pc->c,
                p->sync_commit ? "SET synchronous_commit = on" : "SET synchronous_commit = off",
                why, size) != 0)
        return -1;
    /* The lock of a carcd that just died (or closed) goes when its session
     * ends, a moment after its socket closed: asked again for a while. A
     * cluster node shares carcd's lock with the other nodes (so a carcd alone,
     * which takes it exclusively, and a cluster exclude each other; fencing
     * keeps the nodes' rooms apart) and takes one of its node id's alone. */
    PGresult *res = NULL;
    int got = 0, shared = 0;
    for (int i = 0; i < 15 && !got; i++) {
        if (i > 0) {
            PQclear(res);
            struct timespec ts = {0, 100 * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (p->node[0] != '\0') {
            const char *v[] = {p->node};
            res = PQexecParams(pc->c,
                               "SELECT pg_try_advisory_lock_shared(" PG_LOCK_KEY "),"
                               " pg_try_advisory_lock(" PG_LOCK_KEY "::int, hashtext($1))",
                               1, NULL, v, NULL, NULL, 0);
        } else
            res = PQexec(pc->c, "SELECT pg_try_advisory_lock(" PG_LOCK_KEY ")");
        if (PQresultStatus(res) != PGRES_TUPLES_OK)
            break;
        shared = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;
        got = shared && (p->node[0] == '\0' || strcmp(PQgetvalue(res, 0, 1), "t") == 0);
        if (!got && p->node[0] != '\0') {
            char ignore[64];
            pg__run(pc->c, "SELECT pg_advisory_unlock_all()", ignore, sizeof ignore);
        }
    }
    if (PQresultStatus(res) != PGRES_TUPLES_OK)
        snprintf(why, size, "cannot take carcd's lock: %s", PQresultErrorMessage(res));
    else if (!got && p->node[0] != '\0') {
        if (shared)
            snprintf(why, size, "another carcd with node-id %s uses this database; stop it first",
                     p->node);
        else
            snprintf(why, size,
                     "a carcd that is not a cluster node uses this database; stop it first");
    } else if (!got) {
        /* Who holds it: each carcd names its sessions carcd-PID. */
        PGresult *who =
            pg__query(pc->c,
                      "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity"
                      " a USING (pid) WHERE l.locktype = 'advisory' AND l.objid = " PG_LOCK_KEY
                      " AND l.granted LIMIT 1",
                      0, NULL);
        const char *name = who != NULL && PQntuples(who) == 1 ? PQgetvalue(who, 0, 0) : "";
        if (strncmp(name, "carcd-", 6) == 0)
            snprintf(why, size, "another carcd (pid %s) uses this database; stop it first",
                     name + 6);
        else
            snprintf(why, size,
                     "another carcd uses this database (it holds carcd's advisory"
                     " lock); stop it first");
        PQclear(who);
    }
    PQclear(res);
    return got ? 0 : -1;
}

/* The server's warnings (such as "terminating connection due to immediate
 * shutdown") go to carcd's log rather than to stderr as libpq's own. */
static void on_notice(void *arg, const char *msg)
{
    (void)arg;
    char line[256];
    snprintf(line, sizeof line, "%s", msg);
    line[strcspn(line, "\n")] = '\0';
    log_warn("storage: PostgreSQL says: %s", line);
}

static PGconn *conn_open(const char *url)
{
    /* Ours first: the url's own settings, expanded from dbname, override them. */
    const char *keys[] = {"connect_timeout",
                          "keepalives_idle",
                          "keepalives_interval",
                          "keepalives_count",
                          "application_name",
                          "dbname",
                          NULL};
    char name[32];
    snprintf(name, sizeof name, "carcd-%ld", (long)getpid());
    const char *vals[] = {"5", "10", "5", "3", name, url, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (c != NULL)
        PQsetNoticeProcessor(c, on_notice, NULL);
    return c;
}

/* The connection is usable, reconnected if need be (at most once per
 * backoff). 0, or -1 with why. Any thread, one user of pc at a time. A
 * transaction the caller opened (a copy's snapshot) is left open; one that a
 * failure left aborted is rolled back. */
int pg__ready(struct pg *p, struct pg_conn *pc, char *why, size_t size)
{
    if (pc->c != NULL && !pc->broken && PQstatus(pc->c) == CONNECTION_OK &&
        (PQtransactionStatus(pc->c) == PQTRANS_IDLE ||
         PQtransactionStatus(pc->c) == PQTRANS_INTRANS))
        return 0;
    uint64_t t = now_ms();
    if (t < pc->next_try) {
        snprintf(why, size, "the database is unreachable; next try in %llu ms",
                 (unsigned long long)(pc->next_try - t));
        return -1;
    }
    pc->broken = 0;
    if (pc->c != NULL)
        PQreset(pc->c);
    else
        pc->c = conn_open(p->url);
    int ok = pc->c != NULL && PQstatus(pc->c) == CONNECTION_OK;
    if (!ok)
        pg__msg(pc->c, why, size);
    else
        ok = session_setup(p, pc, why, size) == 0;
    if (!ok) {
        pc->backoff = pc->backoff ? pc->backoff * 2 : PG_BACKOFF_MIN_MS;
        if (pc->backoff > PG_BACKOFF_MAX_MS)
            pc->backoff = PG_BACKOFF_MAX_MS;
        pc->next_try = now_ms() + (uint64_t)pc->backoff;
        if (!pc->lost)
            log_warn("storage: the PostgreSQL %s connection is lost (%s); trying again with"
                     " backoff",
                     pc->writer ? "writer" : "reader", why);
        pc->lost = 1;
        return -1;
    }
    if (pc->lost)
        log_info("storage: the PostgreSQL %s connection is back", pc->writer ? "writer" : "reader");
    pc->lost = 0;
    pc->backoff = 0;
    pc->next_try = 0;
    pc->nprep = 0; /* a new session: nothing prepared */
    return 0;
}

/* ---- one batch in one transaction, pipelined ---- */

struct pipe {
    struct pg_conn *pc;
    PGconn *c;
    int sent; /* statements sent since the last sync */
    int ok;
    char *why;
    size_t size;
    const char **reason; /* the batch's short reason (store_health) */
    /* The entry whose fenced flag a statement's empty result sets (the
     * rooms upsert, which returns no row when its fence check failed), per
     * statement since the last sync; NULL for the others. */
    struct store_room *tags[PG_CHUNK + 1];
};

/* The kind of a failed statement by its SQLSTATE (NULL: the connection
 * broke), for GET /healthz: short and fixed, never the server's message. */
static const char *failure_reason(const PGresult *res)
{
    const char *st = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    if (st == NULL || strncmp(st, "08", 2) == 0 || strncmp(st, "57P", 3) == 0)
        return "database unreachable";
    if (strcmp(st, "53100") == 0)
        return "disk full";
    if (strncmp(st, "53", 2) == 0)
        return "database out of resources";
    if (strncmp(st, "58", 2) == 0)
        return "I/O error";
    if (strcmp(st, "57014") == 0)
        return "database timed out";
    if (strcmp(st, "55P03") == 0 || strcmp(st, "40P01") == 0)
        return "database locked";
    if (strcmp(st, "25006") == 0)
        return "database not writable";
    return "the commit failed";
}

static void pipe_fail(struct pipe *pp, const char *msg)
{
    if (pp->ok) {
        snprintf(pp->why, pp->size, "%s", msg);
        size_t n = strlen(pp->why);
        while (n > 0 && pp->why[n - 1] == '\n')
            pp->why[--n] = '\0';
    }
    pp->ok = 0;
}

/* Read the results of what was sent, up to the sync. */
static void pipe_sync(struct pipe *pp)
{
    if (PQpipelineSync(pp->c) != 1) {
        pipe_fail(pp, PQerrorMessage(pp->c));
        return;
    }
    for (int i = 0; i < pp->sent; i++) {
        PGresult *res;
        int any = 0;
        while ((res = PQgetResult(pp->c)) != NULL) {
            any = 1;
            ExecStatusType s = PQresultStatus(res);
            if (s == PGRES_TUPLES_OK && pp->tags[i] != NULL && PQntuples(res) == 0)
                pp->tags[i]->fenced = 1;
            if (s == PGRES_FATAL_ERROR && pp->ok)
                *pp->reason = failure_reason(res);
            if (s == PGRES_FATAL_ERROR)
                pipe_fail(pp, PQresultErrorMessage(res));
            else if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK)
                pipe_fail(pp, s == PGRES_PIPELINE_ABORTED ? "the transaction was aborted"
                                                          : PQresStatus(s));
            PQclear(res);
        }
        if (!any) {
            pipe_fail(pp, PQerrorMessage(pp->c));
            break;
        }
    }
    PGresult *res = PQgetResult(pp->c);
    if (res == NULL || PQresultStatus(res) != PGRES_PIPELINE_SYNC)
        pipe_fail(pp, res != NULL ? PQresultErrorMessage(res) : PQerrorMessage(pp->c));
    PQclear(res);
    pp->sent = 0;
}

static void pipe_count(struct pipe *pp, struct store_room *tag)
{
    pp->tags[pp->sent] = tag;
    if (++pp->sent >= PG_CHUNK)
        pipe_sync(pp);
}

/* sql (a string literal: known by its address) with its parameters, as a
 * statement prepared once per session: a batch runs the same few statements
 * hundreds of times, and parsing and planning each would cost the server more
 * than running it. A failed batch resets the session, and with it this list. */
static void pipe_send_tagged(struct pipe *pp, const char *sql, int n, const char *const *vals,
                             struct store_room *tag)
{
    if (!pp->ok)
        return;
    struct pg_conn *pc = pp->pc;
    int k = 0;
    while (k < pc->nprep && pc->prep[k] != sql)
        k++;
    char name[16];
    snprintf(name, sizeof name, "carcd%d", k);
    if (k == pc->nprep && k < PG_PREP_MAX) {
        if (PQsendPrepare(pp->c, name, sql, n, NULL) != 1) {
            pipe_fail(pp, PQerrorMessage(pp->c));
            return;
        }
        pc->prep[pc->nprep++] = sql;
        pipe_count(pp, NULL);
    }
    int rc = k < pc->nprep ? PQsendQueryPrepared(pp->c, name, n, vals, NULL, NULL, 0)
                           : PQsendQueryParams(pp->c, sql, n, NULL, vals, NULL, NULL, 0);
    if (rc != 1) {
        pipe_fail(pp, PQerrorMessage(pp->c));
        return;
    }
    pipe_count(pp, tag);
}

static void pipe_send(struct pipe *pp, const char *sql, int n, const char *const *vals)
{
    pipe_send_tagged(pp, sql, n, vals, NULL);
}

/* Fencing (struct store_room's fence): a room's statements run only while no
 * row of the room carries a newer number than the writer's ($F; 0 = no
 * check). After the rooms upsert, whose own WHERE refuses an older number,
 * this holds exactly when the upsert applied, so a refused room's seats,
 * moves and record are left as the newer owner wrote them. */
#define FENCE_OK(F)                                                                                \
    "(" F "::bigint = 0 OR NOT EXISTS (SELECT 1 FROM rooms WHERE id = $1 AND fence > " F           \
    "::bigint))"

static void send_game(struct pipe *pp, const struct store_room *e, uint64_t fence)
{
    if (e->record == NULL)
        return;
    char fin[24], f[24];
    const char *v[] = {e->id,
                       e->record,
                       e->players,
                       e->scores,
                       I(fin, e->updated),
                       e->status,
                       I(f, (long long)fence)};
    pipe_send(pp,
              "INSERT INTO games(room, record, players, scores, finished, status)"
              " SELECT $1, $2, $3, $4, $5::bigint, $6 WHERE " FENCE_OK(
                  "$7") " ON CONFLICT (room) DO UPDATE SET record = excluded.record,"
                        " players = excluded.players, scores = excluded.scores,"
                        " finished = excluded.finished, status = excluded.status",
              7, v);
}

static void send_room(struct pipe *pp, struct store_room *e, uint64_t fence)
{
    char n[19][24], deck[2 * CARC_MAX_TILES + 3];
    static const char hex[] = "0123456789abcdef";
    deck[0] = '\\';
    deck[1] = 'x';
    for (int i = 0; i < e->deck_len; i++) {
        deck[2 + 2 * i] = hex[e->deck[i] >> 4];
        deck[3 + 2 * i] = hex[e->deck[i] & 15];
    }
    deck[2 + 2 * e->deck_len] = '\0';
    const char *v[] = {e->id,
                       I(n[0], e->sets),
                       I(n[1], e->no_farmers),
                       I(n[2], e->escape_rule),
                       I(n[3], e->nseats),
                       I(n[4], e->priv),
                       e->pw,
                       I(n[5], e->host),
                       I(n[6], e->phase),
                       I(n[7], (long long)e->seed),
                       e->deck_len > 0 ? deck : NULL,
                       I(n[8], e->seq),
                       I(n[9], e->created),
                       I(n[10], e->updated),
                       I(n[11], e->gone == STORE_CLOSED),
                       I(n[12], e->clock_initial),
                       I(n[13], e->clock_increment),
                       I(n[14], e->clock_policy),
                       I(n[15], (long long)fence),
                       I(n[16], e->variants),
                       e->fair,
                       I(n[17], e->clock_per_move),
                       e->clock_zone,
                       I(n[18], e->turn_wall)};
    /* fence: the writer's fencing number; a row with a newer one is not
     * touched, and the empty RETURNING marks the entry fenced. */
    pipe_send_tagged(
        pp,
        "INSERT INTO rooms(id, sets, no_farmers, escape_rule, seats, private, password_hash,"
        " host, phase, seed, deck, seq, created, updated, closed, clock_initial,"
        " clock_increment, clock_policy, fence, variants, fair, clock_per_move, clock_zone,"
        " turn_wall)"
        " VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,"
        " $22,$23,$24)"
        " ON CONFLICT (id) DO UPDATE SET sets = $2, no_farmers = $3, escape_rule = $4,"
        " seats = $5, private = $6, password_hash = $7, host = $8, phase = $9, seed = $10,"
        " deck = $11, seq = $12, created = $13, updated = $14, closed = $15,"
        " clock_initial = $16, clock_increment = $17, clock_policy = $18, fence = $19,"
        " variants = $20, fair = $21, clock_per_move = $22, clock_zone = $23, turn_wall = $24"
        " WHERE $19::bigint = 0 OR rooms.fence <= $19::bigint RETURNING id",
        24, v, e);
    char f[24];
    I(f, (long long)fence);
    const char *id[] = {e->id, f};
    pipe_send(pp, "DELETE FROM seats WHERE room = $1 AND " FENCE_OK("$2"), 2, id);
    /* Every seat in one statement, as a JSON array: the names are the
     * players' own text, which JSON carries as it is. */
    if (e->nseat > 0) {
        char js[CARC_MAX_PLAYERS * (2 * PROTO_NAME_MAX + SHA256_HEX + 200) + 4];
        size_t m = 0;
        js[m++] = '[';
        for (int k = 0; k < e->nseat; k++) {
            const struct store_seat *t = &e->seats[k];
            m += (size_t)snprintf(js + m, sizeof js - m, "%s{\"idx\":%d,\"name\":", k ? "," : "",
                                  t->idx);
            proto_json_str_append(js, sizeof js, &m, t->name);
            m += (size_t)snprintf(js + m, sizeof js - m,
                                  ",\"hash\":\"%s\",\"bot\":%d,\"autoplay\":%d,\"forfeited\":%d,"
                                  "\"timeouts\":%d,\"clock_ms\":%lld,\"account\":%lld,"
                                  "\"vac_from\":%lld,\"vac_until\":%lld}",
                                  t->hash, t->bot, t->autoplay, t->forfeited, t->timeouts,
                                  t->clock_ms, t->account, t->vac_from, t->vac_until);
        }
        snprintf(js + m, sizeof js - m, "]");
        const char *sv[] = {e->id, js, f};
        pipe_send(pp,
                  "INSERT INTO seats(room, idx, name, token_hash, bot, autoplay, forfeited,"
                  " timeouts, clock_ms, account, vac_from, vac_until) SELECT $1,"
                  " (s->>'idx')::int, s->>'name', s->>'hash', (s->>'bot')::int,"
                  " (s->>'autoplay')::int, (s->>'forfeited')::int, (s->>'timeouts')::int,"
                  " (s->>'clock_ms')::bigint, (s->>'account')::bigint,"
                  " (s->>'vac_from')::bigint, (s->>'vac_until')::bigint"
                  " FROM json_array_elements($2::json) AS s WHERE " FENCE_OK("$3"),
                  3, sv);
    }
    /* Rows past what the room holds were written by a commit whose answer
     * was lost (the room rolled back): they were never told, so they go. */
    const char *cut[] = {e->id, I(n[0], e->move_to), f};
    pipe_send(pp, "DELETE FROM moves WHERE room = $1 AND idx >= $2 AND " FENCE_OK("$3"), 3, cut);
    for (int k = e->move_from; k < e->move_to; k++) {
        const char *mv[] = {e->id, I(n[0], k), e->moves[k - e->move_from], f};
        pipe_send(pp,
                  "INSERT INTO moves(room, idx, move) SELECT $1, $2::int, $3 WHERE " FENCE_OK(
                      "$4") " ON CONFLICT (room, idx) DO UPDATE SET move = excluded.move",
                  4, mv);
    }
    send_game(pp, e, fence);
}

static int pg_batch_write(struct store *st, struct batch *b)
{
    struct pg *p = PG(st);
    /* Until a statement's SQLSTATE says otherwise: the connection failed. */
    b->reason = "database unreachable";
    if (pg__ready(p, &p->w, b->why, sizeof b->why) != 0)
        return -1;
    struct pipe pp = {.pc = &p->w,
                      .c = p->w.c,
                      .ok = 1,
                      .why = b->why,
                      .size = sizeof b->why,
                      .reason = &b->reason};
    if (PQenterPipelineMode(pp.c) != 1) {
        pipe_fail(&pp, PQerrorMessage(pp.c));
        return -1;
    }
    pipe_send(&pp, "BEGIN", 0, NULL);
    char n[2][24], f[24];
    for (int i = 0; i < b->n && pp.ok; i++) {
        struct store_room *e = &b->rooms[i];
        uint64_t fence = e->fence ? e->fence : b->fence;
        const char *id[] = {e->id, I(f, (long long)fence)};
        switch (e->gone) {
        case STORE_RECORD:
            send_game(&pp, e, 0);
            break;
        case STORE_DELETE:
            /* the room's row last: the others' check reads it */
            pipe_send(&pp, "DELETE FROM seats WHERE room = $1 AND " FENCE_OK("$2"), 2, id);
            pipe_send(&pp, "DELETE FROM moves WHERE room = $1 AND " FENCE_OK("$2"), 2, id);
            pipe_send(&pp, "DELETE FROM chat WHERE room = $1 AND " FENCE_OK("$2"), 2, id);
            pipe_send(&pp, "DELETE FROM rooms WHERE id = $1 AND " FENCE_OK("$2"), 2, id);
            break;
        case STORE_CLOSE: {
            const char *v[] = {e->id, I(n[0], e->updated), f};
            pipe_send(&pp,
                      "UPDATE rooms SET closed = 1, updated = $2::bigint WHERE id = $1 AND "
                      "($3::bigint = 0 OR fence <= $3::bigint)",
                      3, v);
            send_game(&pp, e, fence);
            break;
        }
        default:
            send_room(&pp, e, fence);
        }
    }
    for (struct sb_chat *c = b->chat; c != NULL && pp.ok; c = c->next) {
        const char *v[] = {c->room, I(n[0], c->seat), c->name, c->text, I(n[1], c->time)};
        pipe_send(&pp, "INSERT INTO chat(room, seat, name, text, time) VALUES($1,$2,$3,$4,$5)", 5,
                  v);
    }
    for (const struct sb_analysis *a = b->an; a != NULL && pp.ok; a = a->next) {
        const char *v[] = {a->id, a->doc, I(n[0], a->time)};
        pipe_send(&pp,
                  "INSERT INTO analyses(game, doc, created) VALUES($1,$2,$3::bigint)"
                  " ON CONFLICT (game) DO NOTHING",
                  3, v);
    }
    pipe_send(&pp, "COMMIT", 0, NULL);
    if (pp.sent > 0 || !pp.ok)
        pipe_sync(&pp);
    if (PQexitPipelineMode(pp.c) != 1) {
        /* Results left unread (a failure half way): drop the connection
         * state by resetting it on the next use. */
        pipe_fail(&pp, PQerrorMessage(pp.c));
        PQfinish(pp.c);
        p->w.c = NULL; /* opened again by conn_ready */
        return -1;
    }
    p->w.broken = !pp.ok;
    if (!pp.ok && PQstatus(p->w.c) == CONNECTION_OK &&
        PQtransactionStatus(p->w.c) != PQTRANS_IDLE) {
        char why[160];
        pg__run(p->w.c, "ROLLBACK", why, sizeof why);
    }
    return pp.ok ? 0 : -1;
}

/* ---- the rest of the table ---- */

static int pg_fsync_set(struct store *st, int on, char *err, size_t errlen)
{
    struct pg *p = PG(st);
    p->sync_commit = on;
    char why[256];
    if (pg__run(p->w.c, on ? "SET synchronous_commit = on" : "SET synchronous_commit = off", why,
                sizeof why) != 0) {
        snprintf(err, errlen, "PostgreSQL: cannot set synchronous_commit: %s", why);
        return -1;
    }
    return 0;
}

static int pg_exec(struct store *st, const char *sql)
{
    char why[256];
    if (pg__run(PG(st)->w.c, sql, why, sizeof why) != 0) {
        log_error("storage: %s", why);
        return -1;
    }
    return 0;
}

static void pg_close(struct store *st)
{
    struct pg *p = PG(st);
    /* At once, not when the server notices the session ended. */
    if (p->w.c != NULL && PQstatus(p->w.c) == CONNECTION_OK) {
        char why[64];
        pg__run(p->w.c, "SELECT pg_advisory_unlock_all()", why, sizeof why);
    }
    PQfinish(p->w.c);
    PQfinish(p->r.c);
    free(p->url);
    free(p);
}

static const struct store_backend pg_backend = {
    .name = "postgres",
    .batch_write = pg_batch_write,
    .games_get = pg__games_get,
    .entry_get = pg__entry_get,
    .game_get = pg__game_get,
    .analysis_get = pg__analysis_get,
    .stale_close = pg__stale_close,
    .rows = pg__rows,
    .records = pg__records,
    .chats = pg__chats,
    .fsync_set = pg_fsync_set,
    .exec = pg_exec,
    .close = pg_close,
};

/* ---- opening ---- */

/* Create or migrate the schema, inside the writer's lock. */
static int migrate(PGconn *c, char *err, size_t errlen)
{
    char why[256];
    PGresult *res = pg__query(c, "SELECT to_regclass('schema_version') IS NOT NULL", 0, NULL);
    if (res == NULL) {
        pg__msg(c, why, sizeof why);
        snprintf(err, errlen, "PostgreSQL: cannot read the schema: %s", why);
        return -1;
    }
    int exists = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
    PQclear(res);
    int version = 0;
    if (exists) {
        res = pg__query(c, "SELECT max(version) FROM schema_version", 0, NULL);
        if (res == NULL) {
            pg__msg(c, why, sizeof why);
            snprintf(err, errlen, "PostgreSQL: cannot read the schema version: %s", why);
            return -1;
        }
        version = atoi(PQgetvalue(res, 0, 0));
        PQclear(res);
    }
    if (version == STORE_SCHEMA)
        return 0;
    if (version > STORE_SCHEMA) {
        snprintf(err, errlen,
                 "the PostgreSQL database has schema version %d, newer than this carcd knows"
                 " (%d): run a newer carcd",
                 version, STORE_SCHEMA);
        return -1;
    }
    if (pg__run(c, "BEGIN", why, sizeof why) != 0)
        goto fail;
    if (version == 0) {
        if (pg__run(c, schema_sql, why, sizeof why) != 0)
            goto fail;
    } else {
        for (int v = version; v < STORE_SCHEMA; v++)
            if (migrations[v] != NULL && pg__run(c, migrations[v], why, sizeof why) != 0)
                goto fail;
        char sql[80];
        snprintf(sql, sizeof sql, "UPDATE schema_version SET version = %d", STORE_SCHEMA);
        if (pg__run(c, sql, why, sizeof why) != 0)
            goto fail;
    }
    if (pg__run(c, "COMMIT", why, sizeof why) != 0)
        goto fail;
    if (version == 0)
        log_info("storage: created the PostgreSQL schema (version %d)", STORE_SCHEMA);
    else
        log_info("storage: PostgreSQL schema updated from %d to %d", version, STORE_SCHEMA);
    return 0;
fail:
    snprintf(err, errlen, "PostgreSQL: cannot create or update the schema: %s", why);
    char ignore[64];
    pg__run(c, "ROLLBACK", ignore, sizeof ignore);
    return -1;
}

struct store *store_open_postgres(const char *url, int wait_s, char *err, size_t errlen)
{
    return store_open_postgres_node(url, NULL, wait_s, err, errlen);
}

struct store *store_open_postgres_node(const char *url, const char *node, int wait_s, char *err,
                                       size_t errlen)
{
    if (node != NULL && (node[0] == '\0' || strlen(node) >= sizeof((struct pg *)0)->node)) {
        snprintf(err, errlen, "a node id is 1 to %zu bytes", sizeof((struct pg *)0)->node - 1);
        return NULL;
    }
    struct pg *p = mem_zalloc(1, sizeof *p);
    if (node != NULL)
        snprintf(p->node, sizeof p->node, "%s", node);
    p->url = mem_strdup(url);
    p->sync_commit = 1;
    p->w.writer = 1;
    uint64_t deadline = now_ms() + (uint64_t)wait_s * 1000;
    int pause = PG_BACKOFF_MIN_MS, said = 0;
    char why[256];
    for (;;) {
        p->w.c = conn_open(url);
        if (PQstatus(p->w.c) == CONNECTION_OK)
            break;
        pg__msg(p->w.c, why, sizeof why);
        PQfinish(p->w.c);
        p->w.c = NULL;
        if (now_ms() + (uint64_t)pause > deadline) {
            snprintf(err, errlen, "cannot connect to PostgreSQL: %s", why);
            goto fail;
        }
        if (!said)
            log_warn("storage: PostgreSQL does not answer (%s); trying again for up to %d s", why,
                     wait_s);
        said = 1;
        struct timespec ts = {pause / 1000, (long)(pause % 1000) * 1000000};
        nanosleep(&ts, NULL); /* before serving: nothing else runs yet */
        pause = pause * 2 > 2000 ? 2000 : pause * 2;
    }
    if (session_setup(p, &p->w, why, sizeof why) != 0) {
        snprintf(err, errlen, "PostgreSQL: %s", why);
        goto fail;
    }
    if (migrate(p->w.c, err, errlen) != 0)
        goto fail;
    p->r.c = conn_open(url);
    if (PQstatus(p->r.c) != CONNECTION_OK || session_setup(p, &p->r, why, sizeof why) != 0) {
        if (PQstatus(p->r.c) != CONNECTION_OK)
            pg__msg(p->r.c, why, sizeof why);
        snprintf(err, errlen, "cannot open a second connection to PostgreSQL: %s", why);
        goto fail;
    }
    log_info("storage: PostgreSQL database %s on %s:%s", PQdb(p->w.c), PQhost(p->w.c),
             PQport(p->w.c));
    return store__new(&pg_backend, p);
fail:
    PQfinish(p->w.c);
    PQfinish(p->r.c);
    free(p->url);
    free(p);
    return NULL;
}
