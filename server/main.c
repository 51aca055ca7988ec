/* main.c: carcd, the Carcassonne game server process: settings, one libuv
 * loop, the lobby, the network adapter, signals and a graceful shutdown. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "analysis/analysis.h"
#include "cluster/directory.h"
#include "cluster/lease.h"
#include "cluster/redis.h"
#include "config.h"
#include "game/bots.h"
#include "game/lobby.h"
#include "game/roomdb.h"
#include "game/roomnode.h"
#include "game/turn.h"
#include "http/admin.h"
#include "http/api.h"
#include "metrics/metrics.h"
#include "net/net.h"
#include "notify/mail.h"
#include "notify/notifier.h"
#include "notify/outbound.h"
#include "notify/vapid.h"
#include "players/accounts.h"
#include "store/accounts.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/loopstat.h"
#include "util/mem.h"
#include "util/memtrim.h"
#include "util/stall.h"
#include "util/tz.h"

struct server {
    uv_loop_t loop;
    uv_signal_t sigint, sigterm;
    uv_timer_t tick;     /* lobby_tick, once a second */
    uv_timer_t clock;    /* lobby_clock_tick: clocks and bots, ten times a second */
    uv_timer_t drain;    /* shutdown: wait for clients to close */
    uv_timer_t handover; /* a cluster node's shutdown: wait for the last batch, release */
    struct carcd_config cfg;
    struct lobby *lobby;
    struct store *store;       /* NULL with storage off */
    struct bots *bots;         /* the built-in bots' searches */
    struct analysis *analysis; /* post-game analyses; NULL with analysis = off or no storage */
    struct tz_db *zones;       /* the time zones of clocks (util/tz.h), read at start */
    struct api api;
    struct admin admin;        /* the admin API (/admin/), behind admin-token */
    struct accounts *accounts; /* accounts and sessions; NULL without storage */
    struct vapid *vapid;       /* Web Push's key pair; NULL without accounts */
    struct outbound *outbound; /* outbound HTTPS and e-mail, off the loop; NULL likewise */
    struct push_sender push;   /* Web Push's sender: the two above and push-contact */
    struct notifier *notifier; /* who is told what (the lobby's notice hook); NULL likewise */
    struct mailer *mailer;     /* e-mail: the digest, reminders; NULL without smtp-url */
    struct net *net;
    struct loopstat stats; /* loop busy time per turn, storage timings: GET /api/stats */
    struct memtrim trim;   /* freed rooms' memory back to the system (memtrim.h) */
    struct stall stall;    /* loop stalls, credited to the clocks (stall.h) */
    /* A cluster node (node-id, redis-url): all NULL for one node alone. */
    struct redis *redis;
    struct lease_set *leases;
    struct directory *dir;
    struct roomnode *node;
    uint64_t deadline;
    unsigned ticks; /* of on_tick: the rated games' catch-up each RATE_PENDING_EVERY */
    int stopping, stopped;
    int handing_over; /* 1: waiting for the last batch; 2: leases released or being */
};

static void notify_close(struct server *sv);

static void on_lease_lost(void *arg, const char *room, uint64_t fence)
{
    struct server *sv = arg;
    if (sv->node != NULL)
        roomnode_lease_lost(sv->node, room, fence);
}

/* A cluster node: the Redis client, the room leases, the directory and the
 * rooms' side of them (roomnode.h). 0, or -1 with err. */
static int cluster_open(struct server *sv, char *err, size_t errlen)
{
    const struct carcd_config *c = &sv->cfg;
    sv->redis = redis_new(&sv->loop, c->redis_url, &(struct redis_opts){0}, err, errlen);
    if (sv->redis == NULL)
        return -1;
    sv->leases = lease_set_new(&sv->loop, sv->redis,
                               &(struct lease_opts){.node = c->node_id, .ttl_ms = c->lease_ttl_ms},
                               &(struct lease_hooks){on_lease_lost, sv}, err, errlen);
    if (sv->leases == NULL)
        return -1;
    sv->dir =
        directory_new(sv->redis, c->node_id, ROOMNODE_DIR_TTLS * c->lease_ttl_ms, err, errlen);
    if (sv->dir == NULL)
        return -1;
    sv->node = roomnode_new(sv->lobby, sv->leases, sv->dir, c->node_id, c->lease_ttl_ms);
    redis_start(sv->redis);
    log_info("cluster: node %s, Redis %s, lease-ttl %d ms", c->node_id, redis_where(sv->redis),
             c->lease_ttl_ms);
    return 0;
}

/* Rooms and connections went away: the store let go of its page cache, now
 * the allocator gives the freed pages back (memtrim.h). */
static void on_cache_released(void *arg)
{
    struct server *sv = arg;
    if (!sv->stopped)
        memtrim_run(&sv->trim, &sv->loop);
}

/* Ticks (seconds) between two catch-ups of rated games whose rating was lost
 * (accounts_rate_pending); the first is at the first tick, after start. */
#define RATE_PENDING_EVERY 60

static void on_tick(uv_timer_t *t)
{
    struct server *sv = t->data;
    uint64_t now = stall_now(&sv->stall);
    lobby_tick(sv->lobby, now);
    if (sv->api.accounts != NULL && sv->ticks++ % RATE_PENDING_EVERY == 0)
        (void)accounts_rate_pending(sv->api.accounts, sv->ticks == 1);
    log_repeat_flush(0); /* counts of lines held back (log.h) */
    int live = sv->lobby->nrooms + sv->lobby->nsessions + (int)sv->lobby->nips;
    if (memtrim_due(&sv->trim, live, now)) {
        log_debug("memory: giving freed memory back (%d rooms, %d connections)", sv->lobby->nrooms,
                  sv->lobby->nsessions);
        store_cache_release(sv->store, on_cache_released, sv);
    }
}

static void on_clock(uv_timer_t *t)
{
    struct server *sv = t->data;
    lobby_clock_tick(sv->lobby, stall_now(&sv->stall));
}

/* The loop stalled (stall.h): nobody's clock is charged for it. */
static void on_stall(void *arg, uint64_t ms, uint64_t now)
{
    struct server *sv = arg;
    lobby_stall(sv->lobby, ms, now);
}

static void on_leases_closed(void *arg)
{
    struct server *sv = arg;
    sv->leases = NULL;
    log_info("cluster: leases released; rooms handed over");
    redis_close(sv->redis); /* its handles close; the directory's replies end as CLOSED */
    sv->redis = NULL;
    if (sv->stopped)
        store_stop(sv->store);
}

/* Nothing uses the lease set, the directory or Redis after this (the
 * rooms write nothing more), then the leases are released and Redis closed. */
static void cluster_close(struct server *sv)
{
    roomnode_close(sv->node);
    sv->api.redis = NULL;
    lease_set_close(sv->leases, on_leases_closed, sv);
}

/* A cluster node's handover, from the first signal on, beside the drain:
 * once its last batch is committed (or the grace is over: what is not
 * committed was never acknowledged), every lease is released, so that the
 * players' reconnections take their rooms on another node at once rather
 * than after the leases' expiry. What changes after that (seats shown
 * disconnected) is not this node's to write: lease_fence is 0. */
static void handover_end(struct server *sv)
{
    if (sv->handing_over != 1)
        return;
    sv->handing_over = 2;
    if (!store_idle(sv->store))
        log_warn("cluster: the last changes were not all written; releasing the leases anyway");
    uv_close((uv_handle_t *)&sv->handover, NULL);
    cluster_close(sv);
}

static void on_handover(uv_timer_t *t)
{
    struct server *sv = t->data;
    if (store_idle(sv->store) || uv_now(&sv->loop) >= sv->deadline)
        handover_end(sv);
}

/* The last step inside the loop: lws lets go, our handles close, uv_run returns. */
static void server_finish(struct server *sv)
{
    if (sv->stopped)
        return;
    sv->stopped = 1;
    log_info("shutting down: %d connection(s) left", sv->lobby->nsessions);
    net_stop(sv->net); /* every reply freed: no account request is left to cancel */
    notify_close(sv);
    accounts_close(sv->accounts, NULL, NULL);
    sv->api.accounts = NULL;
    sv->admin.accounts = NULL;
    bots_stop(sv->bots);
    analysis_stop(sv->analysis);
    loopstat_stop(&sv->stats);
    stall_stop(&sv->stall);
    uv_close((uv_handle_t *)&sv->tick, NULL);
    uv_close((uv_handle_t *)&sv->clock, NULL);
    uv_close((uv_handle_t *)&sv->drain, NULL);
    uv_close((uv_handle_t *)&sv->sigint, NULL);
    uv_close((uv_handle_t *)&sv->sigterm, NULL);
    if (sv->handing_over == 0) {
        uv_close((uv_handle_t *)&sv->handover, NULL);
        if (sv->leases != NULL) {
            sv->handing_over = 2;
            cluster_close(sv);
        }
    }
    handover_end(sv);
    if (sv->leases == NULL)
        store_stop(sv->store); /* else once the leases are released */
}

static void on_drain(uv_timer_t *t)
{
    struct server *sv = t->data;
    if ((sv->lobby->nsessions == 0 && sv->leases == NULL) || uv_now(&sv->loop) >= sv->deadline)
        server_finish(sv);
}

static void on_signal(uv_signal_t *h, int signum)
{
    struct server *sv = h->data;
    if (sv->stopping) {
        server_finish(sv); /* a second signal: do not wait */
        return;
    }
    sv->stopping = 1;
    log_info("signal %d: closing connections (1001) and stopping", signum);
    lobby_shutdown(sv->lobby);
    sv->deadline = uv_now(&sv->loop) + (uint64_t)sv->cfg.shutdown_grace;
    if (sv->leases != NULL) {
        sv->handing_over = 1;
        uv_timer_start(&sv->handover, on_handover, 0, 10);
    }
    uv_timer_start(&sv->drain, on_drain, 0, 20);
}

static int url_host(const char *listen, char *out, size_t size)
{
    if (strcmp(listen, "0.0.0.0") == 0 || strcmp(listen, "*") == 0)
        return snprintf(out, size, "0.0.0.0");
    if (strchr(listen, ':') != NULL)
        return snprintf(out, size, "[%s]", listen);
    return snprintf(out, size, "%s", listen);
}

/* Whether the settings make a cluster node (1) or one node alone (0); -1
 * (logged) when they ask for a node without all it needs. */
static int cluster_wanted(const struct carcd_config *cfg)
{
    int cluster = cfg->node_id[0] != '\0' || cfg->redis_url[0] != '\0';
    if (cluster && (cfg->node_id[0] == '\0' || cfg->redis_url[0] == '\0' || cfg->storage != 2)) {
        log_error("a cluster node needs node-id, redis-url and storage = postgres together");
        return -1;
    }
    return cluster;
}

/* The lobby, the memory trimmer and the bots, on sv->loop. */
static void game_open(struct server *sv)
{
    sv->lobby = lobby_new(&sv->cfg.limits);
    memtrim_init(&sv->trim);
    sv->bots = bots_new(&sv->loop, sv->cfg.bot_searches, sv->cfg.bot_think_ms);
    lobby_bots_set(sv->lobby, sv->bots);
    int zones = 0;
    sv->zones = tz_db_load(sv->cfg.zoneinfo_dir, &zones);
    if (zones == 0)
        log_warn("no time zone found in %s: clocks know only UTC (setting zoneinfo-dir)",
                 sv->cfg.zoneinfo_dir);
    lobby_zones_set(sv->lobby, sv->zones);
    if (sv->cfg.test_clock >= 0) {
        clock_test_advance((int64_t)sv->cfg.test_clock * 1000);
        log_warn("test-clock is set: the clocks run %d s ahead and POST /admin/clock moves them",
                 sv->cfg.test_clock);
    }
}

/* The configured backend, opened for serving; NULL with err. */
static struct store *store_open_serving(const struct server *sv, int cluster, char *err,
                                        size_t errlen)
{
    const struct carcd_config *c = &sv->cfg;
    if (cluster)
        return store_open_postgres_node(c->postgres_url, c->node_id, c->storage_wait, err, errlen);
    if (c->storage == 2)
        return store_open_postgres(c->postgres_url, c->storage_wait, err, errlen);
    return store_open_flags(c->data_dir, c->storage_busy_ms,
                            c->accept_damaged ? STORE_ACCEPT_DAMAGE : 0, err, errlen);
}

/* With storage on: the store opened and given to the lobby, one node's rooms
 * restored or a cluster node's parts opened, then the store's writer
 * started. 0, or main's exit status (logged) with the lobby freed and the
 * loop closed. */
static int storage_open(struct server *sv, int cluster)
{
    char err[512];
    if (sv->cfg.storage == 2 && sv->cfg.postgres_url[0] == '\0') {
        log_error("storage = postgres needs postgres-url (a libpq connection string)");
        lobby_free(sv->lobby);
        uv_loop_close(&sv->loop);
        return 2;
    }
    sv->store = store_open_serving(sv, cluster, err, sizeof err);
    if (sv->store == NULL) {
        log_error("storage: %s", err);
        lobby_free(sv->lobby);
        uv_loop_close(&sv->loop);
        return 1;
    }
    lobby_store_set(sv->lobby, sv->store);
    /* A cluster node restores nothing at start: it takes a room from the
     * database when the room's lease is free and someone asks for it. */
    if (store_fsync_set(sv->store, sv->cfg.storage_fsync, err, sizeof err) != 0 ||
        (!cluster && roomdb_restore(sv->lobby, sv->cfg.stale_room, (uint64_t)clock_wall_ms(), err,
                                    sizeof err) < 0) ||
        (cluster && cluster_open(sv, err, sizeof err) != 0)) {
        log_error("storage: %s", err);
        lobby_free(sv->lobby);
        store_close(sv->store);
        uv_loop_close(&sv->loop);
        return 1;
    }
    store_start(sv->store, &sv->loop, &sv->stats);
    return 0;
}

/* The lobby's account_game hook: a game's seat of an account, recorded by
 * the accounts service (the service is gone once shutting down). */
static void account_game(void *arg, const char *room, int seat, long long account,
                         long long time_ms)
{
    struct server *sv = arg;
    if (sv->api.accounts != NULL)
        (void)accounts_game_link(sv->api.accounts, room, seat, account, time_ms);
}

/* The lobby's rated_game hook: a rated game's end (PROTOCOL.md "Ratings"). */
static void rated_game(void *arg, const struct lobby_rated_game *g)
{
    struct server *sv = arg;
    struct accounts_rated_player p[CARC_MAX_PLAYERS];
    for (int i = 0; i < g->n && i < CARC_MAX_PLAYERS; i++) {
        p[i].account = g->p[i].account;
        p[i].bot = g->p[i].bot;
        p[i].score = g->p[i].score;
        p[i].forfeited = g->p[i].forfeited;
    }
    if (sv->api.accounts != NULL)
        (void)accounts_rate_game(sv->api.accounts, g->room, g->time_ms, p, g->n);
}

/* The lobby's vacation hook (game/lobby.h): the accounts service answers
 * with the account's vacation, a day taken if its clock needs one. */
struct vacation_ask {
    struct server *sv;
    char room[PROTO_ROOM_MAX];
    int seat, moves;
};

static void on_vacation(void *arg, const struct accounts_result *r)
{
    struct vacation_ask *q = arg;
    const struct accounts_vacation *v = r->status == 0 ? r->vacation : NULL;
    if (v != NULL && v->taken)
        log_event(LOG_INFO, &(struct log_fields){.room = q->room, LOG_SEAT(q->seat)},
                  "a vacation day taken for the seat's account (%d left this year)", v->days_left);
    lobby_vacation_answer(q->sv->lobby, q->room, q->seat, q->moves, v != NULL ? v->from_ms : 0,
                          v != NULL ? v->until_ms : 0);
    free(q);
}

static void vacation(void *arg, long long account, const char *room, int seat, int moves,
                     long long at)
{
    struct server *sv = arg;
    struct vacation_ask *q = mem_zalloc(1, sizeof *q);
    *q = (struct vacation_ask){sv, "", seat, moves};
    snprintf(q->room, sizeof q->room, "%s", room);
    if (sv->api.accounts == NULL ||
        accounts_vacation_auto(sv->api.accounts, account, at, on_vacation, q) == NULL) {
        free(q);
        lobby_vacation_answer(sv->lobby, room, seat, moves, 0, 0); /* none: the clock's end */
    }
}

/* The notifier's reads and outcomes, through the accounts service. */
static void on_push_list(void *arg, const struct accounts_result *r)
{
    struct notifier_sub subs[NOTIFIER_SUBS];
    int n = 0;
    for (int i = 0; r->status == 0 && r->push != NULL && i < r->push->n && n < NOTIFIER_SUBS;
         i++, n++) {
        snprintf(subs[n].endpoint, sizeof subs[n].endpoint, "%s", r->push->subs[i].endpoint);
        snprintf(subs[n].p256dh, sizeof subs[n].p256dh, "%s", r->push->subs[i].p256dh);
        snprintf(subs[n].auth, sizeof subs[n].auth, "%s", r->push->subs[i].auth);
    }
    notifier_subs_answer(arg, subs, n, r->status == 0 && r->push != NULL ? r->push->webhook : NULL);
}

static int push_subs(void *arg, long long account, struct notifier_ask *ask)
{
    struct server *sv = arg;
    return sv->accounts != NULL && accounts_push_list(sv->accounts, account, on_push_list, ask)
               ? 0
               : -1;
}

static int outcome_of(int outcome)
{
    return outcome == NOTIFIER_SENT   ? ACCOUNTS_PUSH_SENT
           : outcome == NOTIFIER_GONE ? ACCOUNTS_PUSH_GONE
                                      : ACCOUNTS_PUSH_FAILED;
}

static void push_outcome(void *arg, const char *endpoint, int outcome)
{
    struct server *sv = arg;
    if (sv->accounts != NULL)
        (void)accounts_push_outcome(sv->accounts, endpoint, outcome_of(outcome), NULL, NULL);
}

static void hook_outcome(void *arg, long long account, int outcome)
{
    struct server *sv = arg;
    if (sv->accounts != NULL)
        (void)accounts_webhook_outcome(sv->accounts, account, outcome_of(outcome), NULL, NULL);
}

/* The lobby's notice hook: to the notifier (the kinds are the same). */
static void notice(void *arg, const struct lobby_notice *t)
{
    struct server *sv = arg;
    struct notifier_notice nt;
    memset(&nt, 0, sizeof nt);
    nt.kind = t->kind == ROOM_NOTICE_OVER      ? NOTIFIER_OVER
              : t->kind == ROOM_NOTICE_LOW     ? NOTIFIER_LOW
              : t->kind == ROOM_NOTICE_REMATCH ? NOTIFIER_REMATCH
                                               : NOTIFIER_TURN;
    nt.from = t->from;
    snprintf(nt.room, sizeof nt.room, "%s", t->room);
    nt.account = t->account;
    nt.seat = t->seat;
    nt.deadline = t->deadline;
    nt.moves = t->moves;
    nt.rank = t->rank;
    nt.n = t->n < NOTIFIER_PLAYERS ? t->n : NOTIFIER_PLAYERS;
    for (int i = 0; i < nt.n; i++) {
        snprintf(nt.names[i], sizeof nt.names[i], "%s", t->names[i]);
        nt.scores[i] = t->scores[i];
    }
    notifier_notice_send(sv->notifier, &nt);
}

/* The mailer's reads: this node's rooms, the accounts service. */
static int mail_settings(void *arg, const long long *ids, int n, long long day,
                         struct mail_ask *ask)
{
    return api_mail_settings(((struct server *)arg)->accounts, ids, n, day, ask);
}

static int mail_waiting(void *arg, struct mail_game *out, int max)
{
    return api_mail_waiting(((struct server *)arg)->lobby, out, max);
}

/* Notifications (notify/): carcd's Web Push key pair, read from its file or
 * made there at the first start, and the outbound client. 0, or -1 (logged):
 * a key file that cannot be read or made stops the start, as a bad setting. */
static int notify_open(struct server *sv)
{
    char path[sizeof sv->cfg.vapid_key_file + sizeof sv->cfg.data_dir + 16], err[2400];
    if (sv->cfg.vapid_key_file[0] != '\0')
        snprintf(path, sizeof path, "%s", sv->cfg.vapid_key_file);
    else
        snprintf(path, sizeof path, "%s/vapid.pem", sv->cfg.data_dir);
    int made = 0;
    sv->vapid = vapid_load(path, &made, err, sizeof err);
    if (sv->vapid == NULL) {
        log_error("push: %s", err);
        return -1;
    }
    if (made)
        log_info("push: made a Web Push key pair in %s", path);
    struct outbound_config oc;
    outbound_config_defaults(&oc);
    oc.ca_file = sv->cfg.outbound_ca_file[0] != '\0' ? sv->cfg.outbound_ca_file : NULL;
    oc.user_agent = "carcd";
    oc.private_ok = sv->cfg.outbound_private;
    sv->outbound = outbound_new(&sv->loop, &oc, err, sizeof err);
    if (sv->outbound == NULL) {
        log_error("%s", err);
        return -1;
    }
    sv->api.vapid = sv->vapid;
    sv->api.webhooks = sv->cfg.webhooks;
    sv->api.webhook_hosts = sv->cfg.webhook_hosts;
    sv->api.push_tests = sv->cfg.push_tests;
    sv->push = (struct push_sender){sv->outbound, sv->vapid, sv->cfg.push_contact};
    sv->notifier = notifier_new(&sv->loop, &sv->push,
                                &(struct notifier_ops){push_subs, push_outcome, hook_outcome, sv},
                                sv->cfg.public_url);
    sv->api.notifier = sv->notifier;
    sv->lobby->notice = notice;
    sv->lobby->notice_arg = sv;
    if (sv->cfg.smtp_url[0] != '\0') { /* e-mail (notify/mail.h) */
        struct mail_config mc = {sv->cfg.smtp_url, sv->cfg.mail_from, sv->cfg.public_url,
                                 sv->cfg.digest_hour};
        sv->mailer = mailer_new(&sv->loop, sv->outbound, &mc,
                                &(struct mail_ops){mail_settings, mail_waiting, sv});
        notifier_mailer_set(sv->notifier, sv->mailer);
        sv->api.mail = 1;
        log_info("mail: on (the relay of smtp-url), the digest at %02d:00 UTC",
                 sv->cfg.digest_hour);
    }
    return 0;
}

/* The notifications stop; the outbound client answers what is under way
 * (the notifier itself is freed after the loop: notifier_free). */
static void notify_close(struct server *sv)
{
    sv->api.vapid = NULL;
    sv->api.notifier = NULL;
    sv->lobby->notice = NULL;
    notifier_close(sv->notifier);
    sv->api.mail = 0;
    mailer_close(sv->mailer);
    if (sv->outbound != NULL)
        outbound_close(sv->outbound, NULL, NULL);
    sv->outbound = NULL;
}

/* The HTTP API and the admin API over the lobby and the store. 0, or -1
 * (logged) out of memory. */
static int http_open(struct server *sv)
{
    if (api_init(&sv->api, sv->lobby, sv->cfg.web_root) != 0) {
        log_error("out of memory");
        return -1;
    }
    sv->api.store = sv->store;
    sv->api.stats = &sv->stats;
    sv->api.metrics_token = sv->cfg.metrics_token;
    sv->api.redis = sv->redis;
    admin_init(&sv->admin, sv->lobby, sv->store, sv->cfg.admin_token, sv->cfg.data_dir);
    sv->admin.test_clock = sv->cfg.test_clock >= 0;
    sv->api.admin = &sv->admin;
    sv->api.session_days = sv->cfg.session_days;
    sv->api.ladder_min_games = sv->cfg.ladder_min_games;
    if (sv->store == NULL) {
        log_info("accounts and game analysis off: they need storage");
        return 0;
    }
    if (sv->cfg.analysis != ANALYSIS_OFF) {
        struct analysis_config an = {sv->cfg.analysis, sv->cfg.analysis_threads,
                                     sv->cfg.analysis_ms_per_move, sv->cfg.analysis_queue};
        sv->analysis = analysis_new(&sv->loop, sv->store, &an);
        sv->api.analysis = sv->analysis;
    }
    struct accounts_config ac;
    accounts_config_defaults(&ac);
    ac.registration = sv->cfg.registration;
    ac.session_days = sv->cfg.session_days;
    ac.hash_ops = (unsigned)sv->cfg.hash_ops;
    ac.hash_mem = (size_t)sv->cfg.hash_mem_kib * 1024;
    ac.invite_days = sv->cfg.invite_days;
    ac.member_invites = sv->cfg.member_invites;
    ac.vacation_days = sv->cfg.vacation_days;
    char err[256];
    sv->accounts = accounts_new(&sv->loop, sv->store, &ac, NULL, err, sizeof err);
    if (sv->accounts == NULL) {
        log_error("%s", err);
        return -1;
    }
    sv->api.accounts = sv->accounts;
    sv->api.claim_lobby = sv->lobby; /* POST /api/me/claim */
    sv->admin.accounts = sv->accounts;
    sv->lobby->account_game = account_game;
    sv->lobby->account_game_arg = sv;
    sv->lobby->rated_game = rated_game;
    sv->lobby->rated_game_arg = sv;
    if (sv->cfg.vacation_days > 0) {
        sv->api.vacations = 1;
        sv->lobby->vacation = vacation;
        sv->lobby->vacation_arg = sv;
    }
    return notify_open(sv);
}

/* The timers and signal handlers started on sv->loop, and the address
 * announced on stdout (scripts wait for that line). */
static void handles_start(struct server *sv)
{
    uv_timer_init(&sv->loop, &sv->tick);
    uv_timer_init(&sv->loop, &sv->clock);
    uv_timer_init(&sv->loop, &sv->drain);
    uv_timer_init(&sv->loop, &sv->handover);
    uv_signal_init(&sv->loop, &sv->sigint);
    uv_signal_init(&sv->loop, &sv->sigterm);
    sv->tick.data = sv->clock.data = sv->drain.data = sv->handover.data = sv->sigint.data =
        sv->sigterm.data = sv;
    uv_timer_start(&sv->tick, on_tick, 1000, 1000);
    /* The first tick runs in the loop's first turn, before its first poll
     * accepts anyone: a restored room's turn has started (clock.turn_started
     * is a time) before any player can resume it. */
    uv_timer_start(&sv->clock, on_clock, 0, 100);
    /* Figures only: carcd serves the same without them. */
    int rc = loopstat_start(&sv->stats, &sv->loop);
    if (rc != 0)
        log_warn("loop statistics off: %s", uv_strerror(rc));
    uv_signal_start(&sv->sigint, on_signal, SIGINT);
    uv_signal_start(&sv->sigterm, on_signal, SIGTERM);
    char host[80];
    url_host(sv->cfg.listen, host, sizeof host);
    printf("carcd listening on http://%s:%d/\n", host, net_port(sv->net));
    fflush(stdout);
    log_info("data directory %s", sv->cfg.data_dir);
}

/* The listeners, then the handles that serve. 0, or 1 when the network
 * could not start: the store's writer and the bots are then stopped, so that
 * uv_run returns. */
static int serve_start(struct server *sv)
{
    struct net_options nopt = {
        .listen = sv->cfg.listen,
        .port = sv->cfg.port,
        .metrics_listen = sv->cfg.metrics_listen,
        .metrics_port = sv->cfg.metrics_port,
        .ping_interval = sv->cfg.ping_interval,
        .log_level = sv->cfg.log_level,
        .trusted_proxies = sv->cfg.trusted_proxies,
        .allowed_origins = sv->cfg.allowed_origins,
        .stall = &sv->stall,
    };
    /* Before anything reads the clock through it: net and the bots do. */
    int rc = stall_start(&sv->stall, &sv->loop, (uint64_t)sv->cfg.stall_threshold_ms, on_stall, sv);
    if (rc != 0)
        log_warn("loop stalls not seen (clocks charged for them): %s", uv_strerror(rc));
    bots_stall_set(sv->bots, &sv->stall);
    sv->net = net_start(&sv->loop, sv->lobby, &sv->api, &nopt);
    if (sv->net == NULL || net_port(sv->net) < 0) {
        notify_close(sv);
        accounts_close(sv->accounts, NULL, NULL);
        sv->api.accounts = NULL;
        sv->admin.accounts = NULL;
        analysis_stop(sv->analysis);
        store_stop(sv->store);
        bots_stop(sv->bots);
        stall_stop(&sv->stall);
        return 1;
    }
    handles_start(sv);
    return 0;
}

/* After the loop: the last changes written (one node), a cluster opened by a
 * failed start-up closed, everything freed and the loop closed. status is
 * serve_start's; returns main's exit status. */
static int server_close(struct server *sv, int status)
{
    net_free(sv->net);
    /* A cluster node wrote its last batch before it released its leases:
     * after that its rooms are other nodes' and nothing of them is written. */
    if (sv->node == NULL && sv->store != NULL && store_flush(sv->store) != 0)
        log_error("storage: the last changes could not be written");
    if (sv->leases != NULL || sv->redis != NULL) {
        /* Start-up failed after the cluster was opened. */
        if (sv->node != NULL)
            roomnode_close(sv->node);
        if (sv->leases != NULL)
            lease_set_close(sv->leases, NULL, NULL);
        redis_close(sv->redis);
        uv_run(&sv->loop, UV_RUN_DEFAULT);
    }
    roomnode_free(sv->node);
    directory_free(sv->dir);
    lobby_free(sv->lobby);
    bots_free(sv->bots);
    tz_db_free(sv->zones);
    store_close(sv->store);
    analysis_free(sv->analysis); /* after the store's last batch: its documents are written */
    api_fini(&sv->api);
    notifier_free(sv->notifier);
    mailer_free(sv->mailer);
    vapid_free(sv->vapid);
    int lc = uv_loop_close(&sv->loop);
    if (lc != 0) {
        log_error("the event loop still had handles at exit (%s)", uv_strerror(lc));
        status = 1;
    }
    log_repeat_flush(1);
    if (status == 0)
        log_info("stopped");
    return status;
}

int main(int argc, char **argv)
{
    static struct server sv;
    struct config_file_flags ff = {0};
    int rc = config_settings_load(&sv.cfg, &argc, argv, &ff);
    if (rc >= 0)
        return rc;
    if (ff.backup != NULL)
        return config_backup_run(&sv.cfg, ff.backup);
    if (ff.export_db != NULL || ff.import_db != NULL)
        return config_copy_main(&sv.cfg, &ff);
    if (config_process_prepare(&sv.cfg) != 0)
        return 1;
    int cluster = cluster_wanted(&sv.cfg);
    if (cluster < 0)
        return 2;
    if (uv_loop_init(&sv.loop) != 0) {
        log_error("cannot start the event loop");
        return 1;
    }
    game_open(&sv);
    if (sv.cfg.storage && (rc = storage_open(&sv, cluster)) != 0)
        return rc;
    if (http_open(&sv) != 0)
        return 1;
    int status = serve_start(&sv);
    uv_run(&sv.loop, UV_RUN_DEFAULT);
    if (status == 0) {
        char line[512];
        loopstat_summary(&sv.stats, line, sizeof line);
        log_info("%s", line);
    }
    return server_close(&sv, status);
}
