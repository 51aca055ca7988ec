/* admin.c: see admin.h. The routes, the token check and the backup; what
 * they do to rooms is in admin_rooms.c. */
#include "http/admin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "game/lobby.h"
#include "http/admin_int.h"
#include "sha256.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"

void admin_init(struct admin *ad, struct lobby *lb, struct store *st, const char *token,
                const char *data_dir)
{
    memset(ad, 0, sizeof *ad);
    ad->lobby = lb;
    ad->store = st;
    snprintf(ad->token, sizeof ad->token, "%s", token != NULL ? token : "");
    snprintf(ad->data_dir, sizeof ad->data_dir, "%s", data_dir != NULL ? data_dir : ".");
}

/* ---- pure parts ---- */

int admin_bytes_equal(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (unsigned char)(x[i] ^ y[i]);
    return d == 0;
}

int admin_authorized(const char *authorization, const char *token)
{
    if (authorization == NULL || token == NULL || token[0] == '\0')
        return 0;
    const char *p = authorization + strspn(authorization, " \t");
    if (strncasecmp(p, "bearer", 6) != 0 || (p[6] != ' ' && p[6] != '\t'))
        return 0;
    p += 6;
    p += strspn(p, " \t");
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    uint8_t given[SHA256_LEN], want[SHA256_LEN];
    sha256(p, n, given);
    sha256(token, strlen(token), want);
    return admin_bytes_equal(given, want, SHA256_LEN);
}

/* The next segment of *p (after a '/') into out; 0 when there is none or it
 * does not fit (then out is ""). */
static int segment(const char **p, char *out, size_t size)
{
    out[0] = '\0';
    if (**p != '/')
        return 0;
    const char *s = *p + 1;
    size_t n = strcspn(s, "/");
    *p = s + n;
    if (n == 0 || n >= size)
        return n != 0 ? -1 : 0;
    memcpy(out, s, n);
    out[n] = '\0';
    return 1;
}

/* p: "/{name}/{action}" after /admin/accounts. */
static int account_path_parse(const char *p, struct admin_path *out)
{
    char name[64], act[16];
    int r = segment(&p, name, sizeof name);
    if (r == 0 || segment(&p, act, sizeof act) <= 0 || *p != '\0')
        return out->kind = ADMIN_R_NONE;
    if (r > 0 && strlen(name) <= ACCOUNT_NAME_MAX)
        memcpy(out->account, name, strlen(name) + 1); /* else "": nobody's */
    if (strcmp(act, "disable") == 0)
        return out->kind = ADMIN_R_ACCOUNT_DISABLE;
    if (strcmp(act, "enable") == 0)
        return out->kind = ADMIN_R_ACCOUNT_ENABLE;
    if (strcmp(act, "reset") == 0)
        return out->kind = ADMIN_R_ACCOUNT_RESET;
    return out->kind = ADMIN_R_NONE;
}

int admin_path_parse(const char *path, struct admin_path *out)
{
    memset(out, 0, sizeof *out);
    out->seat = -1;
    if (strncmp(path, "/admin/", 7) != 0)
        return out->kind = ADMIN_R_NONE;
    const char *p = path + 6;
    if (strcmp(p, "/rooms") == 0)
        return out->kind = ADMIN_R_ROOMS;
    if (strcmp(p, "/notice") == 0)
        return out->kind = ADMIN_R_NOTICE;
    if (strcmp(p, "/backup") == 0)
        return out->kind = ADMIN_R_BACKUP;
    if (strcmp(p, "/accounts") == 0)
        return out->kind = ADMIN_R_ACCOUNTS;
    if (strcmp(p, "/invites") == 0)
        return out->kind = ADMIN_R_INVITES;
    if (strcmp(p, "/clock") == 0)
        return out->kind = ADMIN_R_CLOCK;
    if (strncmp(p, "/accounts/", 10) == 0)
        return account_path_parse(p + 9, out);
    if (strncmp(p, "/rooms/", 7) != 0)
        return out->kind = ADMIN_R_NONE;
    p += 6;
    char id[64], what[16], n[16], act[16];
    int r = segment(&p, id, sizeof id);
    if (r == 0)
        return out->kind = ADMIN_R_NONE;
    if (r > 0 && strlen(id) < PROTO_ROOM_MAX)
        memcpy(out->room, id, strlen(id) + 1); /* else "": a room that cannot exist */
    if (*p == '\0')
        return out->kind = ADMIN_R_ROOM;
    if (segment(&p, what, sizeof what) <= 0)
        return out->kind = ADMIN_R_NONE;
    if (strcmp(what, "close") == 0)
        return out->kind = *p == '\0' ? ADMIN_R_CLOSE : ADMIN_R_NONE;
    if (strcmp(what, "seats") != 0)
        return out->kind = ADMIN_R_NONE;
    int rn = segment(&p, n, sizeof n);
    if (rn == 0 || segment(&p, act, sizeof act) <= 0 || *p != '\0')
        return out->kind = ADMIN_R_NONE;
    if (strcmp(act, "free") == 0)
        out->kind = ADMIN_R_SEAT_FREE;
    else if (strcmp(act, "bot") == 0)
        out->kind = ADMIN_R_SEAT_BOT;
    else
        return out->kind = ADMIN_R_NONE;
    /* 0..99 in plain decimal digits, else -1 (400). */
    size_t len = rn > 0 ? strlen(n) : 0;
    if (len >= 1 && len <= 2 && strspn(n, "0123456789") == len)
        out->seat = atoi(n);
    return out->kind;
}

const char *admin_route_method(int kind)
{
    return kind == ADMIN_R_ROOMS || kind == ADMIN_R_ROOM || kind == ADMIN_R_ACCOUNTS ? "GET"
                                                                                     : "POST";
}

/* ---- replies ---- */

void admin__reply(struct api_reply *out, int status, char *json)
{
    if (json == NULL)
        mem_oom("admin reply");
    out->status = status;
    out->content_type = "application/json";
    out->cache_control = "no-store";
    out->owned = json;
    out->body = json;
    out->len = strlen(json);
}

void admin__error(struct api_reply *out, int status, const char *code)
{
    char buf[96];
    snprintf(buf, sizeof buf, "{\"error\":\"%s\"}", code);
    admin__reply(out, status, mem_strdup(buf));
}

/* ---- POST /admin/backup ---- */

static void on_backup(void *arg, int status, const char *path, long long bytes, const char *err)
{
    struct api_reply *out = arg;
    out->deferred = 0;
    out->cancel = NULL;
    if (status == 0) {
        struct admin_json j;
        admin__json_init(&j);
        admin__json_raw(&j, "{\"path\":");
        admin__json_str(&j, path);
        admin__json_fmt(&j, ",\"bytes\":%lld}", bytes);
        admin__reply(out, 200, admin__json_take(&j));
    } else {
        log_error("admin: backup failed: %s", err);
        admin__error(out, 503, "backup_failed");
    }
    out->ready(out, out->ready_arg);
}

static void backup_cancel(void *arg)
{
    store_backup_cancel(arg);
}

static void route_backup(struct admin *ad, struct api_reply *out)
{
    if (ad->store == NULL || out->ready == NULL) {
        admin__error(out, 503, "no_storage");
        return;
    }
    struct store_backup *b = store_backup_start(ad->store, ad->data_dir, on_backup, out);
    if (b == NULL) {
        admin__error(out, 503, "no_storage");
        return;
    }
    out->deferred = 1;
    out->cancel = backup_cancel;
    out->cancel_arg = b;
}

/* ---- the routes ---- */

static void route_notice(struct admin *ad, const char *text, struct api_reply *out)
{
    if (text == NULL || text[0] == '\0' || strlen(text) > ADMIN_NOTICE_MAX) {
        admin__error(out, 400, "bad_text");
        return;
    }
    int n = lobby_notice(ad->lobby, text);
    if (n < 0) {
        admin__error(out, 400, "bad_text");
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "{\"sent\":%d}", n);
    admin__reply(out, 200, mem_strdup(buf));
}

/* POST /admin/clock?seconds=N: the server's clocks move N whole seconds
 * (0..31622400) forward (util/clock.h), only with test-clock set. */
static void route_clock(struct admin *ad, const char *text, struct api_reply *out)
{
    if (!ad->test_clock) {
        admin__error(out, 404, "no_such_route");
        return;
    }
    size_t n = text != NULL ? strlen(text) : 0;
    long long s = n >= 1 && n <= 8 && strspn(text, "0123456789") == n ? atoll(text) : -1;
    if (s < 0 || s > 366LL * 86400) {
        admin__error(out, 400, "bad_seconds");
        return;
    }
    clock_test_advance((int64_t)s * 1000);
    char buf[96];
    snprintf(buf, sizeof buf, "{\"offset_ms\":%lld,\"now\":%lld}", (long long)clock_test_offset(),
             (long long)clock_wall_ms());
    admin__reply(out, 200, mem_strdup(buf));
}

static void dispatch(struct admin *ad, const struct api_request *rq, const struct admin_path *ap,
                     struct api_reply *out)
{
    if (ap->kind == ADMIN_R_ROOMS) {
        admin__reply(out, 200, admin__rooms_json(ad->lobby));
        return;
    }
    if (ap->kind == ADMIN_R_NOTICE) {
        route_notice(ad, rq->text, out);
        return;
    }
    if (ap->kind == ADMIN_R_CLOCK) {
        route_clock(ad, rq->seconds, out);
        return;
    }
    if (ap->kind == ADMIN_R_BACKUP) {
        route_backup(ad, out);
        return;
    }
    if (ap->kind >= ADMIN_R_ACCOUNTS && ap->kind <= ADMIN_R_INVITES) {
        admin__accounts_route(ad, rq, ap, out);
        return;
    }
    struct room *r = ap->room[0] != '\0' ? lobby_room_find(ad->lobby, ap->room) : NULL;
    if (r == NULL) {
        admin__error(out, 404, "no_such_room");
        return;
    }
    if (ap->kind == ADMIN_R_ROOM) {
        admin__reply(out, 200, admin__room_json(r, 1));
        return;
    }
    if (ap->kind == ADMIN_R_CLOSE) {
        lobby_room_close(ad->lobby, r, "admin",
                         "this room was closed by the server's administrator");
        admin__reply(out, 200, mem_strdup("{\"closed\":true}"));
        return;
    }
    if (ap->seat < 0 || ap->seat >= r->nseats) {
        admin__error(out, 400, "bad_seat");
        return;
    }
    const char *code = ap->kind == ADMIN_R_SEAT_FREE ? admin__seat_free(ad->lobby, r, ap->seat)
                                                     : admin__seat_bot(ad->lobby, r, ap->seat);
    if (code != NULL) {
        admin__error(out, 409, code);
        return;
    }
    admin__reply(out, 200, mem_strdup("{\"ok\":true}"));
}

void admin_route(struct admin *ad, const struct api_request *rq, struct api_reply *out)
{
    const char *peer = rq->peer != NULL && rq->peer[0] != '\0' ? rq->peer : "?";
    if (ad == NULL || ad->token[0] == '\0') {
        log_info("admin: %s %s from %s: refused, no admin-token is set", rq->method, rq->path,
                 peer);
        admin__error(out, 403, "admin_disabled");
        return;
    }
    if (!admin_authorized(rq->authorization, ad->token)) {
        log_warn("admin: %s %s from %s: refused, %s token", rq->method, rq->path, peer,
                 rq->authorization != NULL ? "a wrong" : "no");
        admin__error(out, 401, "unauthorized");
        out->www_authenticate = "Bearer";
        return;
    }
    struct admin_path ap;
    admin_path_parse(rq->path, &ap);
    if (ap.kind == ADMIN_R_NONE) {
        admin__error(out, 404, "no_such_route");
        return;
    }
    const char *want = admin_route_method(ap.kind);
    int head = strcmp(rq->method, "HEAD") == 0;
    if (strcmp(rq->method, want) != 0 && !(head && strcmp(want, "GET") == 0)) {
        admin__error(out, 405, "method_not_allowed");
        return;
    }
    out->head = head;
    dispatch(ad, rq, &ap, out);
    /* Not the notice's text: it may hold line breaks. */
    if (out->deferred)
        log_info("admin: %s %s from %s: started", rq->method, rq->path, peer);
    else
        log_info("admin: %s %s from %s: %d %.*s", rq->method, rq->path, peer, out->status,
                 out->status == 200 ? 0 : (int)out->len, out->body);
}
