/* rating.h: the arithmetic of carcd's two rating pools. Pure: no I/O, no
 * allocation, no clock; the caller owns every struct passed in.
 *
 * Two players ("2p" pool): Glicko-2 (Glickman, "Example of the Glicko-2
 * system", 2013), on its public scale (1500, deviation 350, volatility 0.06
 * for a newcomer). Each rated game is one rating period for both players, as
 * lichess does; between games the deviation grows with the days that passed
 * (rating_g2_age). A rating is provisional while its deviation is above
 * RATING_G2_PROVISIONAL.
 *
 * Three to six players ("multi" pool): the Weng-Lin Bayesian approximation of
 * the Plackett-Luce model (Weng & Lin, JMLR 12, 2011, algorithm 4), with the
 * defaults of OpenSkill: mu 25, sigma 25/3, beta 25/6, kappa 0.0001, tau 25/300
 * added to sigma before each game. Players who share a rank tie. */
#ifndef CARCD_PLAYERS_RATING_H
#define CARCD_PLAYERS_RATING_H

/* Glicko-2's system constant: how much the volatility may move in one game.
 * Glickman advises 0.3 .. 1.2; 0.5 is his worked example's. */
#define RATING_G2_TAU 0.5
#define RATING_G2_START 1500.0
#define RATING_G2_MAX_DEVIATION 350.0
/* The floor of the deviation, lichess' (a rating that stops moving is stale). */
#define RATING_G2_MIN_DEVIATION 45.0
#define RATING_G2_START_VOLATILITY 0.06
#define RATING_G2_PROVISIONAL 110.0
/* Rating periods per day of inactivity, lichess' constant: a year away takes
 * a settled deviation of 60 to about 110 (provisional again). */
#define RATING_G2_PERIODS_PER_DAY 0.21436

struct rating_g2 {
    double rating;     /* 1500 scale */
    double deviation;  /* RD, same scale */
    double volatility; /* sigma of the paper */
};

/* One game of the period: the opponent as they stood before it, and the
 * score of the rated player (1 win, 0.5 draw, 0 loss). */
struct rating_g2_game {
    double rating;
    double deviation;
    double score;
};

/* A newcomer: 1500, 350, 0.06. */
void rating_g2_init(struct rating_g2 *r);

/* The deviation's growth over `periods` rating periods without a game
 * (step 6 of the paper, applied `periods` times at once), capped at
 * RATING_G2_MAX_DEVIATION. 0, or RATING_E_ARGS for a negative or non-finite
 * `periods` (r unchanged). */
int rating_g2_age(struct rating_g2 *r, double periods);

/* One rating period of `n` games (steps 2-8 of the paper) with system constant
 * `tau`. n == 0 only ages the deviation by one period. The deviation is kept
 * within [RATING_G2_MIN_DEVIATION, RATING_G2_MAX_DEVIATION]; clamping aside,
 * the result is the paper's to 1e-6. 0, or RATING_E_ARGS (r unchanged) for a
 * score outside [0, 1], a deviation not above 0, n < 0 or tau not above 0. */
int rating_g2_update(struct rating_g2 *r, const struct rating_g2_game *games, int n, double tau);

/* 1 while the deviation is above RATING_G2_PROVISIONAL. */
int rating_g2_provisional(const struct rating_g2 *r);

/* The Plackett-Luce model's parameters (OpenSkill's names). */
struct rating_pl_model {
    double mu;    /* a newcomer's mean */
    double sigma; /* a newcomer's deviation */
    double beta;  /* performance noise */
    double kappa; /* floor of the variance factor */
    double tau;   /* added to sigma before a game (0: none) */
};

struct rating_pl {
    double mu;
    double sigma;
};

#define RATING_PL_MAX_PLAYERS 6
/* The displayed rating is the conservative mu - 3 sigma, scaled so that a
 * newcomer shows RATING_PL_DISPLAY_BASE: base + scale * (mu - 3 sigma); the
 * displayed deviation is scale * sigma. */
#define RATING_PL_DISPLAY_BASE 1000.0
#define RATING_PL_DISPLAY_SCALE 40.0
/* Provisional while sigma is above this: a newcomer has 25/3, and sigma
 * falls to it after a dozen four-player games against equals. */
#define RATING_PL_PROVISIONAL 7.25

/* OpenSkill's defaults: 25, 25/3, 25/6, 0.0001, 25/300. */
void rating_pl_model_init(struct rating_pl_model *m);

/* A newcomer under `m`. */
void rating_pl_init(struct rating_pl *r, const struct rating_pl_model *m);

/* One game of `n` players (2 .. RATING_PL_MAX_PLAYERS): players[i] finished at
 * rank[i] (lower is better; equal ranks tie; any numbers, in any order).
 * Updates players[] in place. 0, or RATING_E_ARGS (nothing changed) for a bad
 * n, a sigma not above 0 or a non-finite value. */
int rating_pl_update(struct rating_pl *players, const int *rank, int n,
                     const struct rating_pl_model *m);

/* The displayed rating and deviation (RATING_PL_DISPLAY_*). */
double rating_pl_display(const struct rating_pl *r);
double rating_pl_display_deviation(const struct rating_pl *r);
int rating_pl_provisional(const struct rating_pl *r);

#endif
