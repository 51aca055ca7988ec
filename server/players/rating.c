/* rating.c: Glicko-2 and Weng-Lin Plackett-Luce (rating.h says which papers). */
#include "players/rating.h"

#include <math.h>
#include <stddef.h>

#include "util/status.h"

/* Glicko-2's internal scale: mu = (r - 1500) / 173.7178. */
#define G2_SCALE 173.7178
/* Convergence tolerance and a bound on the volatility iteration (the paper's
 * Illinois algorithm converges in a handful of steps; the bound keeps the
 * work per game fixed whatever the input). */
#define G2_EPSILON 0.000001
#define G2_MAX_STEPS 100
#define G2_PI 3.14159265358979323846

void rating_g2_init(struct rating_g2 *r)
{
    r->rating = RATING_G2_START;
    r->deviation = RATING_G2_MAX_DEVIATION;
    r->volatility = RATING_G2_START_VOLATILITY;
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int g2_valid(const struct rating_g2 *r)
{
    return isfinite(r->rating) && isfinite(r->deviation) && r->deviation > 0 &&
           isfinite(r->volatility) && r->volatility > 0;
}

int rating_g2_age(struct rating_g2 *r, double periods)
{
    if (!isfinite(periods) || periods < 0 || !g2_valid(r))
        return RATING_E_ARGS;
    double phi = r->deviation / G2_SCALE;
    double grown = sqrt(phi * phi + periods * r->volatility * r->volatility) * G2_SCALE;
    r->deviation = clamp(grown, RATING_G2_MIN_DEVIATION, RATING_G2_MAX_DEVIATION);
    return 0;
}

static double g2_g(double phi)
{
    return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (G2_PI * G2_PI));
}

/* Step 5: the new volatility, by the Illinois algorithm on f(x). */
struct g2_vol {
    double delta2, phi2, v, a, tau2;
};

static double g2_f(const struct g2_vol *s, double x)
{
    double ex = exp(x);
    double d = s->phi2 + s->v + ex;
    return ex * (s->delta2 - s->phi2 - s->v - ex) / (2.0 * d * d) - (x - s->a) / s->tau2;
}

static double g2_volatility(double sigma, double phi, double v, double delta, double tau)
{
    struct g2_vol s = {delta * delta, phi * phi, v, log(sigma * sigma), tau * tau};
    double A = s.a, B;
    if (s.delta2 > s.phi2 + s.v) {
        B = log(s.delta2 - s.phi2 - s.v);
    } else {
        int k = 1;
        while (g2_f(&s, s.a - k * tau) < 0 && k < G2_MAX_STEPS)
            k++;
        B = s.a - k * tau;
    }
    double fA = g2_f(&s, A), fB = g2_f(&s, B);
    for (int step = 0; fabs(B - A) > G2_EPSILON && step < G2_MAX_STEPS; step++) {
        double C = A + (A - B) * fA / (fB - fA);
        double fC = g2_f(&s, C);
        if (fC * fB <= 0) {
            A = B;
            fA = fB;
        } else {
            fA /= 2.0;
        }
        B = C;
        fB = fC;
    }
    return exp(A / 2.0);
}

int rating_g2_update(struct rating_g2 *r, const struct rating_g2_game *games, int n, double tau)
{
    if (n < 0 || (n > 0 && games == NULL) || !isfinite(tau) || tau <= 0 || !g2_valid(r))
        return RATING_E_ARGS;
    for (int i = 0; i < n; i++)
        if (!isfinite(games[i].rating) || !isfinite(games[i].deviation) ||
            games[i].deviation <= 0 || !(games[i].score >= 0 && games[i].score <= 1))
            return RATING_E_ARGS;
    if (n == 0)
        return rating_g2_age(r, 1.0);

    double mu = (r->rating - RATING_G2_START) / G2_SCALE, phi = r->deviation / G2_SCALE;
    double inv_v = 0, sum = 0; /* step 3's 1/v and step 4's sum of g (s - E) */
    for (int i = 0; i < n; i++) {
        double g = g2_g(games[i].deviation / G2_SCALE);
        double e = 1.0 / (1.0 + exp(-g * (mu - (games[i].rating - RATING_G2_START) / G2_SCALE)));
        inv_v += g * g * e * (1.0 - e);
        sum += g * (games[i].score - e);
    }
    double v = 1.0 / inv_v;
    double sigma = g2_volatility(r->volatility, phi, v, v * sum, tau);
    double phi_star = sqrt(phi * phi + sigma * sigma);
    double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
    double mu_new = mu + phi_new * phi_new * sum;
    if (!isfinite(mu_new) || !isfinite(phi_new) || !isfinite(sigma))
        return RATING_E_ARGS; /* only from absurd inputs (a rating of 1e300) */
    r->rating = mu_new * G2_SCALE + RATING_G2_START;
    r->deviation = clamp(phi_new * G2_SCALE, RATING_G2_MIN_DEVIATION, RATING_G2_MAX_DEVIATION);
    r->volatility = sigma;
    return 0;
}

int rating_g2_provisional(const struct rating_g2 *r)
{
    return r->deviation > RATING_G2_PROVISIONAL;
}

void rating_pl_model_init(struct rating_pl_model *m)
{
    m->mu = 25.0;
    m->sigma = 25.0 / 3.0;
    m->beta = 25.0 / 6.0;
    m->kappa = 0.0001;
    m->tau = 25.0 / 300.0;
}

void rating_pl_init(struct rating_pl *r, const struct rating_pl_model *m)
{
    r->mu = m->mu;
    r->sigma = m->sigma;
}

/* The update of player i (algorithm 4 with one-player teams): omega and delta
 * sum over every q ranked no worse than i; a[q] counts the players who share
 * q's rank, sum_q the exp(mu/c) of every player ranked no better than q. */
static void pl_one(struct rating_pl *out, const struct rating_pl *p, const int *rank, int n, int i,
                   double c, const double *e, const struct rating_pl_model *m)
{
    double omega = 0, delta = 0;
    for (int q = 0; q < n; q++) {
        if (rank[q] > rank[i])
            continue;
        double sum_q = 0;
        int a = 0;
        for (int s = 0; s < n; s++) {
            sum_q += rank[s] >= rank[q] ? e[s] : 0;
            a += rank[s] == rank[q];
        }
        double share = e[i] / sum_q;
        delta += share * (1.0 - share) / a;
        omega += (q == i ? 1.0 - share : -share) / a;
    }
    double s2 = p[i].sigma * p[i].sigma;
    double gamma = p[i].sigma / c; /* OpenSkill's default gamma */
    omega *= s2 / c;
    delta *= gamma * s2 / (c * c);
    out->mu = p[i].mu + omega;
    out->sigma = p[i].sigma * sqrt(fmax(1.0 - delta, m->kappa));
}

int rating_pl_update(struct rating_pl *players, const int *rank, int n,
                     const struct rating_pl_model *m)
{
    if (n < 2 || n > RATING_PL_MAX_PLAYERS || players == NULL || rank == NULL || m == NULL ||
        !(m->beta > 0) || !(m->kappa > 0) || !(m->tau >= 0) || !isfinite(m->beta + m->tau))
        return RATING_E_ARGS;
    struct rating_pl p[RATING_PL_MAX_PLAYERS], out[RATING_PL_MAX_PLAYERS];
    double e[RATING_PL_MAX_PLAYERS], c2 = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(players[i].mu) || !isfinite(players[i].sigma) || players[i].sigma <= 0)
            return RATING_E_ARGS;
        p[i].mu = players[i].mu;
        p[i].sigma = sqrt(players[i].sigma * players[i].sigma + m->tau * m->tau);
        c2 += p[i].sigma * p[i].sigma + m->beta * m->beta;
    }
    double c = sqrt(c2);
    for (int i = 0; i < n; i++)
        e[i] = exp(p[i].mu / c);
    for (int i = 0; i < n; i++) {
        pl_one(&out[i], p, rank, n, i, c, e, m);
        if (!isfinite(out[i].mu) || !isfinite(out[i].sigma))
            return RATING_E_ARGS;
    }
    for (int i = 0; i < n; i++)
        players[i] = out[i];
    return 0;
}

double rating_pl_display(const struct rating_pl *r)
{
    return RATING_PL_DISPLAY_BASE + RATING_PL_DISPLAY_SCALE * (r->mu - 3.0 * r->sigma);
}

double rating_pl_display_deviation(const struct rating_pl *r)
{
    return RATING_PL_DISPLAY_SCALE * r->sigma;
}

int rating_pl_provisional(const struct rating_pl *r)
{
    return r->sigma > RATING_PL_PROVISIONAL;
}
