/* analysis_json.h: the analysis document of a game record (PROTOCOL.md
 * "Game analysis"): the engine's analysis (common/analysis.h) run on a
 * record's JSON text, written as {"format": "carcd-analysis/1", ...}. */
#ifndef PROTO_ANALYSIS_JSON_H
#define PROTO_ANALYSIS_JSON_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "perror.h"

#define PROTO_ANALYSIS_FORMAT "carcd-analysis/1"
#define PROTO_ANALYSIS_SEED 1 /* the server's seed (PROTOCOL.md) */

/* How far a run is, read by other threads while it runs: total is set once
 * the record is read, done after each move rated. */
struct proto_analysis_progress {
    atomic_int done, total;
};

/* Analyse the record text[0..len) (PROTOCOL.md "Game records") with seed and
 * ms_per_move (<= 0: the default, CARC_AN_DEFAULT_MS) and write its analysis
 * document, "id": id, into *out: malloc'd NUL-terminated compact JSON the
 * caller frees. Pure computation, no I/O, thread-safe, and long (seconds of
 * CPU): run it on a worker thread. progress and stop may be NULL.
 * Returns 0; a code of proto_record_load for a malformed record; an engine
 * code when a move does not replay; CARC_E_LIMIT when stop was raised;
 * CARC_E_NOMEM. *out is then NULL and err (may be NULL) says why. */
int proto_analysis_run(const char *id, const char *text, size_t len, uint64_t seed,
                       long ms_per_move, const atomic_int *stop,
                       struct proto_analysis_progress *progress, char **out,
                       struct proto_error *err);

#endif
