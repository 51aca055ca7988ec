/* analysis_json.c: a record's analysis as its JSON document (analysis_json.h,
 * PROTOCOL.md "Game analysis"). */
#include "analysis_json.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "record_json.h"

#define P4 1e4 /* chances: 4 decimals */
#define P2 1e2 /* points: 2 decimals */

/* The whole job's memory: record, workspace and result are large. */
struct job {
    struct carc_record rec;
    struct carc_analysis_work w;
    struct carc_analysis a;
};

/* x rounded to a multiple of 1/scale, so that the document prints short
 * decimals (scale 10, 100 or 10000). */
static double rounded(double x, double scale)
{
    double y = x * scale;
    long long r = (long long)(y + (y >= 0 ? 0.5 : -0.5));
    return (double)r / scale;
}

static void put(json_t *o, const char *key, json_t *v, int *bad)
{
    if (v == NULL || json_object_set_new(o, key, v) != 0)
        *bad = 1;
}

/* The best move as a record move without its tile (the escape's feature
 * named on the tile the record put at its position by move i). */
static json_t *best_new(const struct carc_record *rec, int i, const struct carc_move *m, int *bad)
{
    json_t *o = json_object();
    if (o == NULL) {
        *bad = 1;
        return NULL;
    }
    put(o, "x", json_integer(m->x), bad);
    put(o, "y", json_integer(m->y), bad);
    put(o, "rot", json_integer(m->rot * 90), bad);
    if (m->seg < 0) {
        put(o, "meeple", json_null(), bad);
    } else {
        json_t *mp = json_object();
        if (mp != NULL) {
            put(mp, "feature", json_string(carc_tiles[m->tile].segs[m->seg].name), bad);
            put(mp, "kind", json_string(m->large ? "large" : "normal"), bad);
        }
        put(o, "meeple", mp, bad);
    }
    int t = m->escape ? proto_record_tile_at(rec, i, m->ex, m->ey) : -1;
    if (t < 0 || m->eseg < 0 || m->eseg >= carc_tiles[t].nsegs) {
        put(o, "escape", json_null(), bad);
    } else {
        json_t *e = json_object();
        if (e != NULL) {
            put(e, "x", json_integer(m->ex), bad);
            put(e, "y", json_integer(m->ey), bad);
            put(e, "feature", json_string(carc_tiles[t].segs[m->eseg].name), bad);
        }
        put(o, "escape", e, bad);
    }
    return o;
}

static json_t *move_new(const struct carc_record *rec, const struct carc_analysis *a, int i,
                        int *bad)
{
    const struct carc_analysis_move *m = &a->moves[i];
    json_t *o = json_object();
    if (o == NULL) {
        *bad = 1;
        return NULL;
    }
    put(o, "move", json_integer(i), bad);
    put(o, "player", json_integer(m->player), bad);
    put(o, "tile", json_string(carc_tiles[rec->moves[i].tile].id), bad);
    put(o, "skip", json_boolean(!m->rated), bad);
    if (!m->rated) {
        put(o, "class", json_null(), bad);
        put(o, "best", json_null(), bad);
        put(o, "luck", json_integer(0), bad);
        return o;
    }
    double value_scale = a->nplayers == 2 ? P4 : P2; /* a chance, or points */
    put(o, "class", json_string(carc_analysis_class_name(m->cls)), bad);
    put(o, "best_is_played", json_boolean(m->best_is_played), bad);
    put(o, "value", json_real(rounded(m->value, value_scale)), bad);
    put(o, "best_value", json_real(rounded(m->best_value, value_scale)), bad);
    put(o, "loss", json_real(rounded(m->loss, value_scale)), bad);
    put(o, "loss_points", json_real(rounded(m->loss_points, P2)), bad);
    put(o, "win", json_real(rounded(m->win, P4)), bad);
    put(o, "best_win", json_real(rounded(m->best_win, P4)), bad);
    put(o, "margin", json_real(rounded(m->margin, P2)), bad);
    put(o, "best_margin", json_real(rounded(m->best_margin, P2)), bad);
    put(o, "best", best_new(rec, i, &m->best, bad), bad);
    put(o, "luck", json_real(rounded(m->luck, P2)), bad);
    put(o, "tile_value", json_real(rounded(m->tile_value, P2)), bad);
    put(o, "tile_mean", json_real(rounded(m->tile_mean, P2)), bad);
    put(o, "options", json_integer(m->options), bad);
    put(o, "playouts", json_integer(m->playouts), bad);
    return o;
}

static json_t *player_new(const struct carc_record *rec, const struct carc_analysis *a, int p,
                          int *bad)
{
    const struct carc_analysis_player *pl = &a->players[p];
    json_t *o = json_object(), *c = json_object();
    if (o == NULL || c == NULL) {
        json_decref(o);
        json_decref(c);
        *bad = 1;
        return NULL;
    }
    put(o, "seat", json_integer(p), bad);
    put(o, "name", json_string(rec->names[p]), bad);
    put(o, "accuracy", json_real(rounded(pl->accuracy, 10)), bad);
    put(o, "rated", json_integer(pl->rated), bad);
    put(o, "luck", json_real(rounded(pl->luck, P2)), bad);
    put(o, "loss", json_real(rounded(pl->loss_points, P2)), bad);
    for (int k = 0; k < CARC_AN_CLASSES; k++)
        put(c, carc_analysis_class_name(k), json_integer(pl->classes[k]), bad);
    put(o, "classes", c, bad);
    return o;
}

static char *document_dump(const char *id, const struct carc_record *rec,
                           const struct carc_analysis *a, long ms)
{
    int bad = 0;
    json_t *doc = json_object(), *players = json_array(), *moves = json_array();
    if (doc == NULL || players == NULL || moves == NULL) {
        json_decref(doc);
        json_decref(players);
        json_decref(moves);
        return NULL;
    }
    put(doc, "format", json_string(PROTO_ANALYSIS_FORMAT), &bad);
    put(doc, "id", json_stringn(id, strlen(id)), &bad);
    put(doc, "seed", json_integer((json_int_t)a->seed), &bad);
    put(doc, "ms_per_move", json_integer(ms), &bad);
    put(doc, "playouts", json_integer(a->playouts), &bad);
    for (int p = 0; p < a->nplayers; p++)
        if (json_array_append_new(players, player_new(rec, a, p, &bad)) != 0)
            bad = 1;
    for (int i = 0; i < a->nmoves; i++)
        if (json_array_append_new(moves, move_new(rec, a, i, &bad)) != 0)
            bad = 1;
    put(doc, "players", players, &bad);
    put(doc, "moves", moves, &bad);
    char *out =
        bad ? NULL : json_dumps(doc, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(12));
    json_decref(doc);
    return out;
}

int proto_analysis_run(const char *id, const char *text, size_t len, uint64_t seed,
                       long ms_per_move, const atomic_int *stop,
                       struct proto_analysis_progress *progress, char **out,
                       struct proto_error *err)
{
    *out = NULL;
    if (ms_per_move <= 0)
        ms_per_move = CARC_AN_DEFAULT_MS;
    struct job *j = malloc(sizeof *j);
    if (j == NULL)
        return proto_error_set(err, CARC_E_NOMEM, -1, "", NULL);
    int rc = proto_record_load(text, len, PROTO_RECORD_MAX_BYTES, &j->rec, err);
    if (rc == 0 && seed > (uint64_t)INT64_MAX)
        rc = proto_error_set(err, CARC_E_INVAL, -1, "seed", "the seed must be below 2^63");
    if (rc < 0) {
        free(j);
        return rc;
    }
    if (progress != NULL) {
        atomic_store(&progress->done, 0);
        atomic_store(&progress->total, j->rec.nmoves);
    }
    struct carc_error cerr = {0};
    rc = carc_analysis_record_run(&j->w, &j->rec, seed, carc_analysis_playouts(ms_per_move), stop,
                                  progress != NULL ? &progress->done : NULL, &j->a, &cerr);
    if (rc < 0) {
        int move = j->a.nmoves; /* the move that failed */
        if (rc == CARC_E_LIMIT)
            proto_error_set(err, rc, -1, "", "the analysis was stopped");
        else
            proto_error_set(err, rc, move, "moves", "%s", cerr.text);
        free(j);
        return rc;
    }
    *out = document_dump(id, &j->rec, &j->a, ms_per_move);
    free(j);
    return *out != NULL ? 0 : proto_error_set(err, CARC_E_NOMEM, -1, "", NULL);
}
