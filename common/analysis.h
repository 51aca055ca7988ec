/* analysis.h: the post-game analysis of a record (PROTOCOL.md "Game analysis"),
 * pure computation beside the bots.
 *
 * Every move is rated by a determinized search: the unseen pile is reshuffled
 * from the multiset of the tiles that truly remained (never their recorded
 * order), the greedy's best options and the move played are played out by the
 * strong bot's playout policy with common random numbers (every option sees
 * the same piles), and sequential halving spends the budget on the options
 * still in the race. The move played stays in every round, so its value and
 * the best's are measured on the same samples.
 *
 * Like the engine it does no I/O, reads no clock, has no globals and allocates
 * nothing: the caller owns the workspace and the result. Given the record,
 * the seed and the budget the result is the same bit for bit on every run and
 * machine (IEEE doubles summed in a fixed order; no libm). */
#ifndef CARC_ANALYSIS_H
#define CARC_ANALYSIS_H

#include <stdatomic.h>
#include <stdint.h>

#include "bot.h"
#include "record.h"

enum carc_analysis_class {
    CARC_AN_NONE = -1, /* a skipped turn (a clock's time-out): not rated */
    CARC_AN_BEST = 0,  /* the best move found, or within CARC_AN_BEST_* of it */
    CARC_AN_GOOD,
    CARC_AN_INACCURACY,
    CARC_AN_MISTAKE,
    CARC_AN_BLUNDER,
    CARC_AN_CLASSES
};

/* A move's class is the worse of its class by the expected points it gives up
 * (loss_points, every player count) and, with two players, by the chance of
 * winning it gives up (loss). Thresholds are "at least". */
#define CARC_AN_INACCURACY_POINTS 3.0
#define CARC_AN_MISTAKE_POINTS 6.0
#define CARC_AN_BLUNDER_POINTS 12.0
#define CARC_AN_INACCURACY_WIN 0.06
#define CARC_AN_MISTAKE_WIN 0.12
#define CARC_AN_BLUNDER_WIN 0.24
/* A move that is not the best found but loses less than both is "best". */
#define CARC_AN_BEST_POINTS 0.75
#define CARC_AN_BEST_WIN 0.015
/* A move's accuracy is 100 e^(-loss_points / CARC_AN_ACCURACY_SCALE); a
 * player's is the mean over their rated moves. */
#define CARC_AN_ACCURACY_SCALE 8.0

/* The budget: a time per move is turned into playouts at this nominal rate
 * (playouts per millisecond of one core of the reference machine), so a
 * budget gives the same result on every machine, slow or fast. */
#define CARC_AN_PLAYOUTS_PER_MS 40
#define CARC_AN_DEFAULT_MS 250 /* per move: a 2-player base game in about 8 s */

/* Options rated per move: the strong bot's 24 candidates, the move played and
 * a few spare. */
#define CARC_AN_CANDIDATES 28

const char *carc_analysis_class_name(int cls); /* "best" .. "blunder"; NULL for others */
/* Playouts per move for a budget of ms milliseconds (at least 1 ms). */
long carc_analysis_playouts(long ms);

struct carc_analysis_move {
    int player;
    int rated;   /* 0: a skipped turn, nothing else is set but player and luck 0 */
    int options; /* legal options of the drawn tile (placement x meeple x escape) */
    int cls;     /* enum carc_analysis_class */
    int best_is_played;
    struct carc_move best;        /* the best option found */
    double win, best_win;         /* chance of winning (a tie counts half): played, best */
    double margin, best_margin;   /* expected final margin over the best opponent, points */
    double value, best_value;     /* two players: win; three to six: margin */
    double loss, loss_points;     /* best - played in value and in margin, never below 0 */
    double luck;                  /* points: tile_value - tile_mean */
    double tile_value, tile_mean; /* the drawn tile's greedy value, and the mean over the tiles
                                     that could have been drawn (each copy once) */
    long playouts;
};

struct carc_analysis_player {
    double accuracy; /* 0..100 */
    int classes[CARC_AN_CLASSES];
    int rated;          /* moves rated */
    double luck;        /* sum of the moves' luck, points */
    double loss_points; /* sum of the moves' loss_points */
};

/* A whole game's analysis; about 60 KiB, owned by the caller. */
struct carc_analysis {
    int nplayers, nmoves;
    long playouts; /* per move */
    uint64_t seed;
    struct carc_analysis_move moves[CARC_MAX_MOVES];
    struct carc_analysis_player players[CARC_MAX_PLAYERS];
};

/* One option in the race (private). */
struct carc_analysis_cand {
    struct carc_move move;
    double sum_win, sum_margin, sum_reward;
    long n;
    int alive, played;
};

/* The caller-owned workspace: fixed size (about 90 KiB), no pointers, no
 * initialization, no cleanup; one call at a time. */
struct carc_analysis_work {
    struct carc_bot_search bot; /* root: the position rated; sim: a sample */
    struct carc_game game;      /* the record's game, move by move */
    int ncand;
    struct carc_analysis_cand cand[CARC_AN_CANDIDATES];
};

/* Rate one move: g is the position before it (its drawn tile g->tile),
 * played the move made (NULL: only the best is searched for, as a bot would).
 * seed and playouts (0: the default budget) fix the result. Returns 0 with
 * *out filled, CARC_E_OVER when g is over, CARC_E_INVAL when played is not a
 * legal move on g, CARC_E_LIMIT when stop was raised (out then unset). */
int carc_analysis_move_rate(struct carc_analysis_work *w, const struct carc_game *g,
                            const struct carc_move *played, uint64_t seed, long playouts,
                            const atomic_int *stop, struct carc_analysis_move *out);

/* Rate every move of rec into out, then its players' sums. Move i is rated
 * with a seed derived from (seed, i), so rating one move alone gives the same
 * figures. progress (may be NULL) is set to the moves done as they are done.
 * Returns 0, CARC_E_LIMIT when stopped, or the record's error (err filled). */
int carc_analysis_record_run(struct carc_analysis_work *w, const struct carc_record *rec,
                             uint64_t seed, long playouts, const atomic_int *stop,
                             atomic_int *progress, struct carc_analysis *out,
                             struct carc_error *err);

/* The seed that move i of a game analysed with seed is rated with. */
uint64_t carc_analysis_move_seed(uint64_t seed, int i);

/* out->players from out->moves (called by carc_analysis_record_run). */
void carc_analysis_players_sum(struct carc_analysis *out);

#endif
