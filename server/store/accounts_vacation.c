/* accounts_vacation.c: see accounts_vacation.h. */
#include "store/accounts_vacation.h"

#include <string.h>

#include "accounts_int.h"
#include "util/status.h"

struct vac_read {
    struct store_accounts *a;
    struct store_vacation *out;
    int found;
};

static int vac_row(void *arg, const struct acc_row *r)
{
    struct vac_read *t = arg;
    t->out->year = (int)t->a->be->col_int(r, 0);
    t->out->used = (int)t->a->be->col_int(r, 1);
    t->out->from_ms = t->a->be->col_int(r, 2);
    t->out->until_ms = t->a->be->col_int(r, 3);
    t->found = 1;
    return 0;
}

int store_vacation_get(struct store_accounts *a, long long account, int year,
                       struct store_vacation *out)
{
    memset(out, 0, sizeof *out);
    out->year = year;
    if (account <= 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account)};
    struct vac_read t = {a, out, 0};
    int rc = a->be->run(a, "SELECT year, used, from_ms, until_ms FROM vacations WHERE account = $1",
                        1, v, vac_row, &t, NULL);
    if (rc == 0 && t.found && out->year != year) {
        out->year = year; /* a new year: its bank is whole */
        out->used = 0;
    }
    return rc;
}

int store_vacation_take(struct store_accounts *a, long long account, int year, int days, int max,
                        long long now_ms, int idle, int *taken)
{
    *taken = 0;
    if (account <= 0 || days < 1 || max < 0)
        return STORE_E_ARGS;
    if (days > max)
        return 0;
    long long len = (long long)days * STORE_DAY_MS;
    struct acc_val v[] = {AV_I(account),      AV_I(year), AV_I(days), AV_I(now_ms),
                          AV_I(now_ms + len), AV_I(len),  AV_I(max),  AV_I(idle)};
    long long changes = 0;
    int rc = a->be->run(a,
                        "INSERT INTO vacations(account, year, used, from_ms, until_ms)"
                        " VALUES($1, $2, $3, $4, $5) ON CONFLICT(account) DO UPDATE SET"
                        " used = CASE WHEN vacations.year = $2 THEN vacations.used ELSE 0 END + $3,"
                        " year = $2,"
                        " from_ms = CASE WHEN vacations.until_ms > $4 THEN vacations.from_ms"
                        " ELSE $4 END,"
                        " until_ms = CASE WHEN vacations.until_ms > $4 THEN vacations.until_ms"
                        " ELSE $4 END + $6"
                        " WHERE (CASE WHEN vacations.year = $2 THEN vacations.used ELSE 0 END)"
                        " + $3 <= $7 AND ($8 = 0 OR vacations.until_ms <= $4)",
                        8, v, NULL, NULL, &changes);
    *taken = rc == 0 && changes > 0;
    return rc;
}

int store_vacation_end(struct store_accounts *a, long long account, int year, long long now_ms,
                       int *ended)
{
    *ended = 0;
    struct store_vacation cur;
    int rc = store_vacation_get(a, account, year, &cur);
    if (rc != 0 || cur.until_ms <= now_ms)
        return rc;
    /* Whole days not begun go back (a day begun is spent), to this year's bank. */
    int back = (int)((cur.until_ms - now_ms) / STORE_DAY_MS);
    int used = cur.used - back > 0 ? cur.used - back : 0;
    struct acc_val v[] = {AV_I(account), AV_I(now_ms), AV_I(used), AV_I(cur.until_ms)};
    long long changes = 0;
    rc = a->be->run(a,
                    "UPDATE vacations SET until_ms = $2, used = $3"
                    " WHERE account = $1 AND until_ms = $4",
                    4, v, NULL, NULL, &changes);
    *ended = rc == 0 && changes > 0;
    return rc;
}
