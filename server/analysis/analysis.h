/* analysis/analysis.h: the queue of post-game analyses (PROTOCOL.md "Game
 * analysis"; server/analysis/README.md).
 *
 * A game's analysis is a long computation (about 20 s of one core for a
 * two-player base game at the default budget): proto_analysis_run
 * (protocol/analysis_json.h) on libuv's thread pool, never on the loop. The
 * queue holds at most `queue` games in memory (waiting, being analysed, or
 * analysed and being written), and runs at most `threads` of them at once.
 * A job reads its game's record through the store (the reader's queue, as
 * GET /api/games/{id} does) unless the asker handed it over, runs the
 * analysis, and hands the document to the store, which writes it with its
 * next batch (store_analysis_add); once that batch committed the job is
 * forgotten and the document is read from the database from then on. Until
 * then the job answers for the game from memory.
 *
 * With mode ANALYSIS_AUTO every game whose record of a finished game the
 * store commits is queued too (store_record_hook_set: the store calls up
 * through a pointer, the game layer is not involved).
 *
 * Owner: the process (main.c); it calls analysis_stop from inside the loop
 * while shutting down (a running analysis is told to stop by its flag and
 * uv_run returns once the thread pool gave it back), then analysis_free
 * after uv_run returned. Only analysis.c includes uv's work API and the
 * protocol's analysis. */
#ifndef CARCD_ANALYSIS_H
#define CARCD_ANALYSIS_H

#include <stddef.h>

struct analysis;
struct store;
struct uv_loop_s;

/* The `analysis` setting. */
enum analysis_mode {
    ANALYSIS_OFF = 0, /* no analyses: the routes answer 404 */
    ANALYSIS_REQUEST, /* analysed when asked (POST /api/games/{id}/analysis) */
    ANALYSIS_AUTO,    /* also every game that ends */
};

#define ANALYSIS_QUEUE_DEFAULT 32
#define ANALYSIS_THREADS_MAX 16

struct analysis_config {
    int mode;        /* enum analysis_mode */
    int threads;     /* analyses at once, 1..ANALYSIS_THREADS_MAX (clamped) */
    int ms_per_move; /* the budget (PROTOCOL.md: turned into playouts, not a clock) */
    int queue;       /* games held at most (waiting, running, being written) */
};

/* What the queue knows of a game now. */
enum analysis_status {
    ANALYSIS_NONE = 0, /* not in memory: ask the database */
    ANALYSIS_QUEUED,   /* waiting for a thread (or for its record) */
    ANALYSIS_RUNNING,  /* on the thread pool */
    ANALYSIS_STORED,   /* analysed; its document is being written (doc set) */
};

struct analysis_state {
    int status;      /* enum analysis_status */
    int done, moves; /* moves rated so far of the record's moves (0 until it is read) */
    const char *doc; /* ANALYSIS_STORED: the document, borrowed until the next loop turn */
};

/* A queue on loop over st (both outlive it; st not NULL). threads is
 * clamped to libuv's pool but one (UV_THREADPOOL_SIZE, 4 by default), with a
 * warning: a commit must always find a thread. Never NULL. */
struct analysis *analysis_new(struct uv_loop_s *loop, struct store *st,
                              const struct analysis_config *cfg);
int analysis_mode(const struct analysis *a);
/* The analyses a runs at once (threads as clamped). */
int analysis_threads(const struct analysis *a);

/* id's state (a game id of at most PROTO_ROOM_MAX - 1 bytes) into out. */
void analysis_state_get(const struct analysis *a, const char *id, struct analysis_state *out);

/* Queue id's analysis: record (len bytes, copied; NULL: read from the store
 * when its turn comes) is its record's text. 0 when it is queued now or is
 * already in memory (queued, running or being written); CARC_E_LIMIT when
 * the queue is full or a is stopped (nothing changed). */
int analysis_request(struct analysis *a, const char *id, const char *record, size_t len);

/* Games in memory (queued, running, being written). */
int analysis_pending(const struct analysis *a);

/* Stop: queued jobs are dropped, running ones told to stop (their
 * documents are not written), documents being written are still written
 * but nobody is told. No request is taken any more. From inside the loop. */
void analysis_stop(struct analysis *a);
/* After uv_run returned (every work callback ran); a may be NULL. */
void analysis_free(struct analysis *a);

#endif
