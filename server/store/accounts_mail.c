/* store/accounts_mail.c: see accounts_mail.h. SQL both backends run
 * (accounts_int.h). */
#include <stdio.h>
#include <string.h>

#include "accounts_int.h"
#include "store/accounts_mail.h"
#include "util/status.h"

static int address_ok(const char *s)
{
    return s != NULL && s[0] != '\0' && strlen(s) <= STORE_MAIL_ADDRESS_MAX;
}

static int unsub_ok(const char *s)
{
    return s != NULL && strlen(s) == STORE_MAIL_UNSUB_LEN;
}

int store_mail_put(struct store_accounts *a, long long account, const char *address, int digest,
                   int reminders, const char *unsub, long long now_ms)
{
    if (account <= 0 || !address_ok(address) || !unsub_ok(unsub))
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account),        AV_S(address), AV_I(digest != 0),
                          AV_I(reminders != 0), AV_S(unsub),   AV_I(now_ms)};
    /* The token and the day of the last digest stay with the account. */
    return a->be->run(a,
                      "INSERT INTO account_mail(account, address, digest, reminders, unsub,"
                      " digest_day, created_ms) VALUES($1, $2, $3, $4, $5, 0, $6)"
                      " ON CONFLICT(account) DO UPDATE SET address = excluded.address,"
                      " digest = excluded.digest, reminders = excluded.reminders",
                      6, v, NULL, NULL, NULL);
}

struct mail_read {
    struct store_accounts *a;
    struct store_mail *out;
    int found;
};

static int mail_row(void *arg, const struct acc_row *r)
{
    struct mail_read *m = arg;
    const struct acc_backend *be = m->a->be;
    m->out->account = be->col_int(r, 0);
    snprintf(m->out->address, sizeof m->out->address, "%s", be->col_text(r, 1));
    m->out->digest = be->col_int(r, 2) != 0;
    m->out->reminders = be->col_int(r, 3) != 0;
    snprintf(m->out->unsub, sizeof m->out->unsub, "%s", be->col_text(r, 4));
    m->out->digest_day = be->col_int(r, 5);
    m->found = 1;
    return 0;
}

int store_mail_get(struct store_accounts *a, long long account, struct store_mail *out)
{
    memset(out, 0, sizeof *out);
    if (account <= 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account)};
    struct mail_read m = {a, out, 0};
    int rc = a->be->run(a,
                        "SELECT m.account, m.address, m.digest, m.reminders, m.unsub, m.digest_day"
                        " FROM account_mail m JOIN accounts c ON c.id = m.account"
                        " WHERE m.account = $1 AND c.deleted = 0 AND c.disabled = 0",
                        1, v, mail_row, &m, NULL);
    if (rc == 0 && !m.found)
        rc = STORE_E_NOT_FOUND;
    if (rc != 0)
        memset(out, 0, sizeof *out);
    return rc;
}

int store_mail_delete(struct store_accounts *a, long long account)
{
    if (account <= 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account)};
    long long changes = 0;
    int rc =
        a->be->run(a, "DELETE FROM account_mail WHERE account = $1", 1, v, NULL, NULL, &changes);
    return rc != 0 ? rc : changes == 0 ? STORE_E_NOT_FOUND : 0;
}

static int id_row(void *arg, const struct acc_row *r)
{
    (void)r;
    *(int *)arg += 1;
    return 0;
}

struct id_read {
    struct store_accounts *a;
    long long id;
};

static int account_row(void *arg, const struct acc_row *r)
{
    struct id_read *x = arg;
    x->id = x->a->be->col_int(r, 0);
    return 0;
}

int store_mail_unsubscribe(struct store_accounts *a, const char *unsub, long long *account)
{
    *account = 0;
    if (!unsub_ok(unsub))
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_S(unsub)};
    struct id_read x = {a, 0};
    int rc = a->be->run(a,
                        "UPDATE account_mail SET digest = 0, reminders = 0 WHERE unsub = $1"
                        " RETURNING account",
                        1, v, account_row, &x, NULL);
    if (rc != 0)
        return rc;
    if (x.id == 0)
        return STORE_E_NOT_FOUND;
    *account = x.id;
    return 0;
}

int store_mail_digest_claim(struct store_accounts *a, long long account, long long day,
                            int *claimed)
{
    *claimed = 0;
    if (account <= 0 || day <= 0)
        return STORE_E_ARGS;
    struct acc_val v[] = {AV_I(account), AV_I(day)};
    int n = 0;
    int rc = a->be->run(a,
                        "UPDATE account_mail SET digest_day = $2 WHERE account = $1"
                        " AND digest = 1 AND digest_day < $2 RETURNING account",
                        2, v, id_row, &n, NULL);
    *claimed = rc == 0 && n > 0;
    return rc;
}
