/* store/accounts_claim.c: see accounts_claim.h. The statements are written
 * once for both backends (accounts_int.h: $n parameters). The seat is set
 * with `account = 0` in its WHERE, so that two claims of one seat at once
 * (two handles) give it to one account only: the other sees no row changed
 * and reads the seat's owner again. */
#include "store/accounts_claim.h"

#include <string.h>

#include "accounts_int.h"
#include "util/status.h"

struct seat_row {
    const struct acc_backend *be;
    int n;
    int idx, closed, phase;
    long long account, created;
};

static int seat_read(void *arg, const struct acc_row *r)
{
    struct seat_row *s = arg;
    s->n++;
    s->idx = (int)s->be->col_int(r, 0);
    s->account = s->be->col_int(r, 1);
    s->closed = (int)s->be->col_int(r, 2);
    s->phase = (int)s->be->col_int(r, 3);
    s->created = s->be->col_int(r, 4);
    return 0;
}

static int count_read(void *arg, const struct acc_row *r)
{
    (void)r;
    (*(int *)arg)++;
    return 0;
}

/* The seat, read (s->n 0: none). */
static int seat_find(struct store_accounts *a, const char *room, const char *hash,
                     struct seat_row *s)
{
    struct acc_val v[] = {AV_S(room), AV_S(hash)};
    memset(s, 0, sizeof *s);
    s->be = a->be;
    return a->be->run(a,
                      "SELECT s.idx, s.account, r.closed, r.phase, r.created FROM seats s"
                      " JOIN rooms r ON r.id = s.room"
                      " WHERE s.room = $1 AND s.token_hash = $2 AND s.bot = 0",
                      2, v, seat_read, s, NULL);
}

/* The claim itself, inside the transaction. */
static int claim(struct store_accounts *a, const char *room, const char *hash, long long account,
                 int *outcome, int *seat)
{
    struct seat_row s;
    int rc = seat_find(a, room, hash, &s);
    if (rc != 0)
        return rc;
    if (s.n == 0) {
        *outcome = STORE_CLAIM_NO_SEAT;
        return 0;
    }
    if (!s.closed) {
        *outcome = STORE_CLAIM_OPEN;
        return 0;
    }
    *seat = s.idx;
    if (s.account != 0) {
        *outcome = s.account == account ? STORE_CLAIM_ALREADY : STORE_CLAIM_TAKEN;
        return 0;
    }
    int others = 0;
    struct acc_val o[] = {AV_S(room), AV_I(account)};
    rc = a->be->run(a, "SELECT idx FROM seats WHERE room = $1 AND account = $2", 2, o, count_read,
                    &others, NULL);
    if (rc != 0)
        return rc;
    if (others > 0) {
        *seat = -1;
        *outcome = STORE_CLAIM_OTHER_SEAT;
        return 0;
    }
    long long changed = 0;
    struct acc_val u[] = {AV_I(account), AV_S(room), AV_I(s.idx)};
    rc = a->be->run(a, "UPDATE seats SET account = $1 WHERE room = $2 AND idx = $3 AND account = 0",
                    3, u, NULL, NULL, &changed);
    if (rc != 0)
        return rc;
    if (changed != 1) { /* claimed by another handle meanwhile: whose is it now? */
        rc = seat_find(a, room, hash, &s);
        if (rc == 0)
            *outcome = s.n > 0 && s.account == account ? STORE_CLAIM_ALREADY : STORE_CLAIM_TAKEN;
        return rc;
    }
    if (s.phase >= 1) {
        struct acc_val g[] = {AV_S(room), AV_I(s.idx), AV_I(account), AV_I(s.created)};
        rc = a->be->run(a,
                        "INSERT INTO account_games(game, seat, account, time_ms)"
                        " VALUES($1, $2, $3, $4) ON CONFLICT(game, seat) DO NOTHING",
                        4, g, NULL, NULL, NULL);
        if (rc != 0)
            return rc;
    }
    *outcome = STORE_CLAIM_DONE;
    return 0;
}

int store_seat_claim(struct store_accounts *a, const char *room, const char *token_hash,
                     long long account, int *outcome, int *seat)
{
    *outcome = STORE_CLAIM_NO_SEAT;
    *seat = -1;
    if (room == NULL || room[0] == '\0' || strlen(room) > STORE_GAME_ID_MAX || token_hash == NULL ||
        strlen(token_hash) != STORE_SESSION_DIGEST_LEN || account <= 0)
        return STORE_E_ARGS;
    int rc = store_accounts_begin(a);
    if (rc != 0)
        return rc;
    rc = claim(a, room, token_hash, account, outcome, seat);
    if (rc != 0) {
        char keep[sizeof a->err];
        memcpy(keep, a->err, sizeof keep);
        store_accounts_rollback(a);
        memcpy(a->err, keep, sizeof keep); /* the first failure's message */
        *outcome = STORE_CLAIM_NO_SEAT;
        *seat = -1;
        return rc;
    }
    rc = store_accounts_commit(a);
    if (rc != 0) {
        *outcome = STORE_CLAIM_NO_SEAT;
        *seat = -1;
    }
    return rc;
}
