#include "config.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "net/origin.h"
#include "net/proxy.h"
#include "util/log.h"
#include "util/stall.h"
#include "util/tz.h"

/* K_SECRET: a token compared with what a client sends; 16 to size-1 bytes of
 * visible ASCII but '#' (a comment in a config file), never echoed in an
 * error. */
enum kind {
    K_CONTACT,
    K_INT,
    K_STR,
    K_LEVEL,
    K_ONOFF,
    K_FORMAT,
    K_PROXIES,
    K_ORIGINS, /* allowed-origins: origin_list_parse's spec */
    K_SECRET,
    K_STORAGE,
    K_URL,
    K_NODE,         /* a node id: 1 to size-1 of [A-Za-z0-9_-] */
    K_REDIS,        /* a redis:// URL; may hold a password: never echoed */
    K_REGISTRATION, /* open, invite, closed */
    K_ANALYSIS,     /* off, request, auto (enum analysis_mode) */
};

struct key {
    const char *name;
    int kind;
    size_t off;  /* into struct carcd_config */
    size_t size; /* K_STR: buffer size */
    long min, max;
    const char *help;
};

#define OFF(f) offsetof(struct carcd_config, f)
#define LIM(f) (offsetof(struct carcd_config, limits) + offsetof(struct lobby_limits, f))

static const struct key keys[] = {
    {"listen", K_STR, OFF(listen), sizeof(((struct carcd_config *)0)->listen), 0, 0,
     "address to listen on (127.0.0.1; 0.0.0.0 for every interface)"},
    {"port", K_INT, OFF(port), 0, 0, 65535, "TCP port (8080; 0 picks a free one)"},
    {"data-dir", K_STR, OFF(data_dir), sizeof(((struct carcd_config *)0)->data_dir), 0, 0,
     "data directory, created if missing (./data)"},
    {"web-root", K_STR, OFF(web_root), sizeof(((struct carcd_config *)0)->web_root), 0, 0,
     "static files served at / (clients/web)"},
    {"storage", K_STORAGE, OFF(storage), 0, 0, 2,
     "sqlite (or on): rooms and games survive restarts in <data-dir>/carcd.db; postgres: in the"
     " PostgreSQL database of postgres-url; off: memory only (sqlite)"},
    {"postgres-url", K_URL, OFF(postgres_url), sizeof(((struct carcd_config *)0)->postgres_url), 0,
     0,
     "libpq connection string or URI of the database for storage = postgres (none); never"
     " logged, as it may hold a password"},
    {"storage-wait", K_INT, OFF(storage_wait), 0, 0, 86400,
     "seconds carcd waits at start for a PostgreSQL that does not answer yet (30)"},
    {"stale-room", K_INT, OFF(stale_room), 0, 0, 100000000,
     "seconds after which an untouched stored room is closed at start (604800; 0 = never)"},
    {"storage-fsync", K_ONOFF, OFF(storage_fsync), 0, 0, 1,
     "on: every commit reaches the disk before anyone is told (survives a power cut); off: the"
     " OS writes it a little later (survives a carcd crash, not a power cut), for lower latency"
     " (on)"},
    {"storage-busy-ms", K_INT, OFF(storage_busy_ms), 0, 1, 600000,
     "milliseconds a write waits for another program's lock on the database (5000)"},
    {"accept-damaged-data", K_ONOFF, OFF(accept_damaged), 0, 0, 1,
     "on: start even when the start-up check finds the SQLite files damaged (a write-ahead log"
     " cut short, missing, or an empty database), with what SQLite can read; the files are"
     " kept aside first. For one start after reading the log, not for the config file (off)"},
    {"log-level", K_LEVEL, OFF(log_level), 0, 0, 3, "error, warn, info or debug (info)"},
    {"log-format", K_FORMAT, OFF(log_format), 0, 0, 1,
     "text: `carcd: LEVEL: message room=.. seat=..`; json: one JSON object per line (text)"},
    {"trusted-proxies", K_PROXIES, OFF(trusted_proxies),
     sizeof(((struct carcd_config *)0)->trusted_proxies), 0, 0,
     "comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For / X-Real-IP"
     " give the client's address for the per-address limits and the logs (none)"},
    {"allowed-origins", K_ORIGINS, OFF(allowed_origins),
     sizeof(((struct carcd_config *)0)->allowed_origins), 0, 0,
     "comma-separated origins (https://play.example.org) whose pages may open /ws besides the"
     " server's own (the request's Host), or * for any; requests without Origin always may"
     " (none)"},
    {"ping-interval", K_INT, OFF(ping_interval), 0, 0, 3600,
     "seconds of silence before a websocket ping (30; 0 = off)"},
    {"shutdown-grace", K_INT, OFF(shutdown_grace), 0, 0, 60000,
     "milliseconds to let clients close on SIGINT/SIGTERM (2000)"},
    {"max-message-bytes", K_INT, LIM(message_bytes), 0, 256, 16384,
     "largest inbound message; larger closes with 1009 (16384)"},
    {"rate", K_INT, LIM(rate), 0, 1, 100000, "messages per second per connection (20)"},
    {"burst", K_INT, LIM(burst), 0, 1, 100000, "message burst per connection (40)"},
    {"flood-rate", K_INT, LIM(flood_rate), 0, 1, 100000,
     "messages per second that close the connection with 1008 (40)"},
    {"flood-burst", K_INT, LIM(flood_burst), 0, 1, 100000, "burst before 1008 (80)"},
    {"chat-rate", K_INT, LIM(chat_rate), 0, 1, 100000,
     "chat messages per minute per connection (30)"},
    {"chat-burst", K_INT, LIM(chat_burst), 0, 1, 100000, "chat burst (5)"},
    {"queue-messages", K_INT, LIM(queue_messages), 0, 4, 1000000,
     "outbound queue per connection, messages; over closes with 4001 (256)"},
    {"queue-bytes", K_INT, LIM(queue_bytes), 0, 65536, 1 << 30,
     "outbound queue per connection, bytes (1048576)"},
    {"held-bytes", K_INT, LIM(held_bytes), 0, 1 << 20, 1 << 30,
     "bytes of replies all rooms may hold while their changes are being stored (each"
     " recipient's counted); over closes the recipient with 4001 (67108864)"},
    {"max-conns-per-ip", K_INT, LIM(conns_per_ip), 0, 1, 1000000,
     "websocket connections per address; over closes with 1008 (64)"},
    {"ipv6-prefix", K_INT, LIM(ipv6_prefix), 0, 32, 128,
     "the per-address limits count an IPv6 client by its network of this many bits, IPv4 by"
     " its address (64)"},
    {"max-rooms", K_INT, LIM(max_rooms), 0, 1, 10000000, "rooms per server (10000)"},
    {"idle-timeout", K_INT, LIM(idle_timeout), 0, 0, 1000000,
     "seconds without a message before close 4002 (600; 0 = never)"},
    {"history", K_INT, LIM(history), 0, 1, 4096, "deltas kept per room for resume and sync (32)"},
    {"history-bytes", K_INT, LIM(history_bytes), 0, 1024, 16777216,
     "bytes of deltas kept per room at most; older ones give way, a resume gets a state (8192)"},
    {"room-ttl", K_INT, LIM(room_ttl), 0, 0, 100000000,
     "seconds a room with nobody connected is kept (3600; 0 = forever)"},
    {"lobby-room-ttl", K_INT, LIM(lobby_room_ttl), 0, 0, 100000000,
     "seconds a room in the lobby with nobody connected is kept (120; 0 = forever)"},
    {"create-rate", K_INT, LIM(create_rate), 0, 1, 100000,
     "rooms one connection may create per minute, and burst; over: rate_limited (5)"},
    {"create-rate-per-ip", K_INT, LIM(create_rate_ip), 0, 1, 1000000,
     "rooms one address may create per minute, and burst; over: rate_limited (30)"},
    {"lobby-rooms-per-ip", K_INT, LIM(lobby_rooms_ip), 0, 1, 10000000,
     "rooms created from one address still in the lobby at once; over: too_many_rooms (20)"},
    {"list-max", K_INT, LIM(list_max), 0, 1, 100000, "rooms in one list answer (200)"},
    {"takeover-grace", K_INT, LIM(takeover_grace), 0, 0, 100000000,
     "seconds a disconnected player's turn waits in a room without a clock before a bot plays"
     " the seat (60; 0 = never)"},
    {"bot-pace-ms", K_INT, LIM(bot_pace), 0, 0, 60000,
     "milliseconds a built-in bot waits from the start of its turn before it moves, so that"
     " people can follow (700; 0 = at once); with bots-alone-grace 0, only while a person is"
     " connected to the room"},
    {"bots-alone-grace", K_INT, LIM(bots_alone_grace), 0, 0, 100000000,
     "seconds a game goes on with nobody connected (bots alone) before its bots and clocks"
     " pause until someone comes back (60; 0 = never, and bots alone play at once)"},
    {"bot-think-ms", K_INT, OFF(bot_think_ms), 0, 10, 60000,
     "milliseconds a built-in bot may think about one move (1000)"},
    {"bot-searches", K_INT, OFF(bot_searches), 0, 1, 16,
     "bots' searches at once on the thread pool, which storage shares: at most its threads"
     " but one (2)"},
    {"analysis", K_ANALYSIS, OFF(analysis), 0, 0, 2,
     "post-game analysis (GET/POST /api/games/{id}/analysis; needs storage): off, request (when"
     " someone asks), auto (every game that ends too) (request)"},
    {"analysis-threads", K_INT, OFF(analysis_threads), 0, 1, 16,
     "analyses at once on the thread pool, which bots and storage share: at most its threads"
     " but one (1)"},
    {"analysis-ms-per-move", K_INT, OFF(analysis_ms_per_move), 0, 1, 10000,
     "an analysis' budget per move, turned into playouts (40 a ms), not a clock: a two-player"
     " game takes about 8 s of one core at 250 (250)"},
    {"analysis-queue", K_INT, OFF(analysis_queue), 0, 1, 10000,
     "games waiting for their analysis or being analysed at most; more are refused with 503"
     " (32)"},
    {"stall-threshold-ms", K_INT, OFF(stall_threshold_ms), 0, 0, 600000,
     "milliseconds the loop may stall (a frozen or swapping process) before the stall is"
     " charged to no clock and logged (2000; 0 = off: clocks run on)"},
    {"zoneinfo-dir", K_STR, OFF(zoneinfo_dir), sizeof(((struct carcd_config *)0)->zoneinfo_dir), 0,
     0,
     "the tz database (TZif files) read at start for clocks' time_zone and weekend_pause"
     " (/usr/share/zoneinfo; without it only UTC)"},
    {"vacation-days", K_INT, OFF(vacation_days), 0, 0, 366,
     "days a year an account may be away from its correspondence games (per-move clocks),"
     " taken by hand or when a clock runs out (14; 0 = no vacations)"},
    {"test-clock", K_INT, OFF(test_clock), 0, -1, 100000000,
     "for tests only: the server's clocks start this many seconds ahead of the system's, and"
     " POST /admin/clock (body: seconds) moves them further (-1 = off)"},
    {"metrics-port", K_INT, OFF(metrics_port), 0, 0, 65535,
     "port of a second listener serving only GET /metrics and /healthz (0 = none)"},
    {"metrics-listen", K_STR, OFF(metrics_listen),
     sizeof(((struct carcd_config *)0)->metrics_listen), 0, 0,
     "address of the metrics listener (127.0.0.1)"},
    {"metrics-token", K_SECRET, OFF(metrics_token),
     sizeof(((struct carcd_config *)0)->metrics_token), 0, 0,
     "when set, GET /metrics on the public port answers to `Authorization: Bearer TOKEN`"
     " (unset: 404 there)"},
    {"admin-token", K_SECRET, OFF(admin_token), sizeof(((struct carcd_config *)0)->admin_token), 0,
     0, "the admin API's bearer token (/admin/...); empty: the admin API is refused (empty)"},
    {"node-id", K_NODE, OFF(node_id), sizeof(((struct carcd_config *)0)->node_id), 0, 0,
     "a cluster node's id, unique in the cluster, 1 to 32 of A-Z a-z 0-9 - _ (none: one"
     " node alone)"},
    {"redis-url", K_REDIS, OFF(redis_url), sizeof(((struct carcd_config *)0)->redis_url), 0, 0,
     "redis://[[user]:password@]host[:port][/db] of a cluster node's Redis"
     " (none); never logged"},
    {"lease-ttl", K_INT, OFF(lease_ttl_ms), 0, 100, 600000,
     "a cluster node: milliseconds a room's lease outlives its node's last renewal (5000)"},
    {"registration", K_REGISTRATION, OFF(registration), 0, 0, 2,
     "who may create an account: open (anyone), invite (with an unused invite code), closed"
     " (nobody) (open)"},
    {"session-days", K_INT, OFF(session_days), 0, 1, 3650,
     "days a sign-in lasts: the session's life and its cookie's Max-Age (30)"},
    {"password-hash-ops", K_INT, OFF(hash_ops), 0, 2, 10,
     "Argon2id passes of a new password hash (2; at least 2, OWASP's minimum with 19 MiB)"},
    {"password-hash-mem-kib", K_INT, OFF(hash_mem_kib), 0, 19456, 4194304,
     "Argon2id memory of a new password hash in KiB (65536; at least 19456, OWASP's minimum)"},
    {"invite-days", K_INT, OFF(invite_days), 0, 1, 3650,
     "days an invite code lasts from its making, the admin's or a member's (7)"},
    {"member-invites", K_ONOFF, OFF(member_invites), 0, 0, 1,
     "on: a signed-in member may make invite codes (POST /api/me/invites), at most 10 unused"
     " at once (off)"},
    {"ladder-min-games", K_INT, OFF(ladder_min_games), 0, 1, 100000,
     "rated games a player needs to appear on a ladder (GET /api/ladder) (5)"},
    {"vapid-key-file", K_STR, OFF(vapid_key_file),
     sizeof(((struct carcd_config *)0)->vapid_key_file), 0, 0,
     "PEM file of the Web Push key pair (P-256), made there at the first start when missing"
     " (<data-dir>/vapid.pem); give every node of a cluster the same one"},
    {"push-contact", K_CONTACT, OFF(push_contact), sizeof(((struct carcd_config *)0)->push_contact),
     0, 0,
     "the contact push services see in carcd's VAPID tokens: mailto:ADDRESS or an https:// URL"
     " (mailto:carcd@localhost)"},
    {"push-tests", K_INT, OFF(push_tests), 0, 0, 1000000,
     "test notices (POST /api/push/test) an account may ask for in an hour, counted from its"
     " first; 0: none (6)"},
    {"webhooks", K_ONOFF, OFF(webhooks), 0, 0, 1,
     "on: a signed-in player may give a webhook (POST /api/me/webhook) their notices are posted"
     " to (Discord- and Slack-compatible); off: refused (on)"},
    {"webhook-hosts", K_STR, OFF(webhook_hosts), sizeof(((struct carcd_config *)0)->webhook_hosts),
     0, 0,
     "comma-separated hosts a webhook may name (a host and its subdomains), e.g."
     " discord.com,hooks.slack.com (any public host)"},
    {"public-url", K_STR, OFF(public_url), sizeof(((struct carcd_config *)0)->public_url), 0, 0,
     "the address players reach carcd at (https://play.example.org), for the links of webhook"
     " messages (none: no link)"},
    {"outbound-private", K_ONOFF, OFF(outbound_private), 0, 0, 1,
     "on: push endpoints may be at loopback, private and link-local addresses (tests, a LAN's"
     " own push service); off: refused, so a user's URL cannot reach carcd's network (off)"},
    {"outbound-ca-file", K_STR, OFF(outbound_ca_file),
     sizeof(((struct carcd_config *)0)->outbound_ca_file), 0, 0,
     "PEM certificates trusted for outbound HTTPS besides the system's (none)"},
    {"smtp-url", K_URL, OFF(smtp_url), sizeof(((struct carcd_config *)0)->smtp_url), 0, 0,
     "the mail relay for e-mail notices: smtp://HOST[:PORT] (STARTTLS when offered) or"
     " smtps://HOST[:PORT], with user:password@ when it wants a login; never logged (off: no"
     " e-mail at all)"},
    {"mail-from", K_STR, OFF(mail_from), sizeof(((struct carcd_config *)0)->mail_from), 0, 0,
     "the From address of carcd's e-mail, e.g. carcd@play.example.org (required with smtp-url)"},
    {"digest-hour", K_INT, OFF(digest_hour), 0, 0, 23,
     "the UTC hour of the daily e-mail digest; a start after it sends that day's digest then (7)"},
};

#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

void config_defaults(struct carcd_config *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->listen, "127.0.0.1");
    c->port = 8080;
    strcpy(c->data_dir, "./data");
    strcpy(c->web_root, "clients/web");
    c->log_level = LOG_INFO;
    c->ping_interval = 30;
    c->shutdown_grace = 2000;
    c->storage = 1;
    c->stale_room = 7 * 24 * 3600;
    c->storage_busy_ms = STORE_BUSY_MS;
    c->lease_ttl_ms = 5000;
    c->registration = 0; /* ACCOUNTS_OPEN */
    c->session_days = 30;
    c->hash_ops = 2;         /* ACCOUNT_HASH_OPS */
    c->hash_mem_kib = 65536; /* ACCOUNT_HASH_MEM */
    c->invite_days = 7;
    c->member_invites = 0;
    c->ladder_min_games = 5;
    strcpy(c->push_contact, "mailto:carcd@localhost");
    c->webhooks = 1;
    c->digest_hour = 7;
    c->push_tests = 6;
    c->storage_fsync = 1;
    c->storage_wait = STORE_WAIT_S;
    c->bot_think_ms = 1000;
    c->bot_searches = 2;
    c->analysis = 1; /* ANALYSIS_REQUEST */
    c->analysis_threads = 1;
    c->analysis_ms_per_move = 250;
    c->analysis_queue = 32;
    c->stall_threshold_ms = STALL_THRESHOLD_MS;
    snprintf(c->zoneinfo_dir, sizeof c->zoneinfo_dir, "%s", TZ_DIR_DEFAULT);
    c->test_clock = -1;
    c->vacation_days = 14;
    strcpy(c->metrics_listen, "127.0.0.1");
    lobby_limits_defaults(&c->limits);
}

/* The kinds' parsers: `value` for the setting k into field (inside struct
 * carcd_config). 0, or -1 with err; an error names the setting, and echoes
 * the value only where it can hold no secret. */

/* K_STR, and K_URL, which may hold a password: never echoed. */
static int set_str(const struct key *k, char *field, const char *value, char *err, size_t errlen)
{
    if (value[0] == '\0' || strlen(value) >= k->size) {
        snprintf(err, errlen, "%s: value must be 1 to %zu bytes", k->name, k->size - 1);
        return -1;
    }
    strcpy(field, value);
    return 0;
}

/* mailto:... or https://..., as the "sub" of a VAPID token (RFC 8292). */
static int set_contact(const struct key *k, char *field, const char *value, char *err,
                       size_t errlen)
{
    int ok = (strncmp(value, "mailto:", 7) == 0 && value[7] != '\0') ||
             (strncmp(value, "https://", 8) == 0 && value[8] != '\0');
    for (const char *p = value; ok && *p != '\0'; p++)
        ok = *p > 0x20 && *p < 0x7f && *p != '"' && *p != '\\';
    if (!ok || strlen(value) >= k->size) {
        snprintf(err, errlen, "%s: must be mailto:ADDRESS or an https:// URL, at most %zu bytes",
                 k->name, k->size - 1);
        return -1;
    }
    strcpy(field, value);
    return 0;
}

static int set_secret(const struct key *k, char *field, const char *value, char *err, size_t errlen)
{
    size_t n = strlen(value);
    int visible = n >= 16 && n < k->size;
    for (size_t i = 0; visible && i < n; i++)
        visible = value[i] > 0x20 && value[i] < 0x7f && value[i] != '#';
    if (!visible) {
        snprintf(err, errlen, "%s: must be 16 to %zu bytes of visible ASCII, no spaces or '#'",
                 k->name, k->size - 1);
        return -1;
    }
    strcpy(field, value);
    return 0;
}

static int set_storage(const struct key *k, char *field, const char *value, char *err,
                       size_t errlen)
{
    int v = strcmp(value, "on") == 0 || strcmp(value, "sqlite") == 0 ? 1
            : strcmp(value, "postgres") == 0                         ? 2
            : strcmp(value, "off") == 0                              ? 0
                                                                     : -1;
    if (v < 0) {
        snprintf(err, errlen, "%s: '%s' is not sqlite, postgres, on or off", k->name, value);
        return -1;
    }
    *(int *)(void *)field = v;
    return 0;
}

static int set_node(const struct key *k, char *field, const char *value, char *err, size_t errlen)
{
    size_t n = strlen(value);
    int ok = n >= 1 && n < k->size;
    for (size_t i = 0; ok && i < n; i++) {
        char ch = value[i];
        ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '-' || ch == '_';
    }
    if (!ok) {
        snprintf(err, errlen, "%s: must be 1 to %zu of A-Z a-z 0-9 - _", k->name, k->size - 1);
        return -1;
    }
    strcpy(field, value);
    return 0;
}

/* May hold a password: never echoed. */
static int set_redis(const struct key *k, char *field, const char *value, char *err, size_t errlen)
{
    if (strncmp(value, "redis://", 8) != 0 || strlen(value) >= k->size) {
        snprintf(err, errlen, "%s: must be a redis:// URL of at most %zu bytes", k->name,
                 k->size - 1);
        return -1;
    }
    strcpy(field, value);
    return 0;
}

static int set_onoff(const struct key *k, char *field, const char *value, char *err, size_t errlen)
{
    if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
        snprintf(err, errlen, "%s: '%s' is not on or off", k->name, value);
        return -1;
    }
    *(int *)(void *)field = strcmp(value, "on") == 0;
    return 0;
}

/* K_REGISTRATION, K_ANALYSIS: one of three names, stored as its index. */
static int set_choice(const struct key *k, char *field, const char *value, char *err, size_t errlen)
{
    static const char *const names[][3] = {
        {"open", "invite", "closed"}, /* enum accounts_registration */
        {"off", "request", "auto"},   /* enum analysis_mode */
    };
    const char *const *n = names[k->kind == K_ANALYSIS];
    for (int i = 0; i < 3; i++)
        if (strcmp(value, n[i]) == 0) {
            *(int *)(void *)field = i;
            return 0;
        }
    snprintf(err, errlen, "%s: '%s' is not %s, %s or %s", k->name, value, n[0], n[1], n[2]);
    return -1;
}

static int set_format(const struct key *k, char *field, const char *value, char *err, size_t errlen)
{
    int f = log_format_find(value);
    if (f < 0) {
        snprintf(err, errlen, "%s: '%s' is not text or json", k->name, value);
        return -1;
    }
    *(int *)(void *)field = f;
    return 0;
}

static int set_proxies(const struct key *k, char *field, const char *value, char *err,
                       size_t errlen)
{
    struct proxy_list l; /* checked here, parsed again where it is used (net/net.c) */
    if (strlen(value) >= k->size) {
        snprintf(err, errlen, "%s: value must be at most %zu bytes", k->name, k->size - 1);
        return -1;
    }
    if (proxy_list_parse(&l, value, err, errlen) != 0)
        return -1;
    strcpy(field, value);
    return 0;
}

static int set_origins(const struct key *k, char *field, const char *value, char *err,
                       size_t errlen)
{
    struct origin_list l; /* checked here, parsed again where it is used (net/net.c) */
    if (strlen(value) >= k->size) {
        snprintf(err, errlen, "%s: value must be at most %zu bytes", k->name, k->size - 1);
        return -1;
    }
    if (origin_list_parse(&l, value, err, errlen) != 0)
        return -1;
    strcpy(field, value);
    return 0;
}

static int set_level(const struct key *k, char *field, const char *value, char *err, size_t errlen)
{
    int lv = log_level_find(value);
    if (lv < 0) {
        snprintf(err, errlen, "%s: '%s' is not error, warn, info or debug", k->name, value);
        return -1;
    }
    *(int *)(void *)field = lv;
    return 0;
}

/* K_INT: a decimal integer from k->min to k->max. */
static int set_int(const struct key *k, char *field, const char *value, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < k->min || v > k->max) {
        snprintf(err, errlen, "%s: '%s' is not an integer from %ld to %ld", k->name, value, k->min,
                 k->max);
        return -1;
    }
    *(int *)(void *)field = (int)v;
    return 0;
}

int config_set(struct carcd_config *c, const char *key, const char *value, char *err, size_t errlen)
{
    const struct key *k = NULL;
    for (int i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].name, key) == 0)
            k = &keys[i];
    if (k == NULL) {
        snprintf(err, errlen, "unknown setting '%s' (see --help)", key);
        return -1;
    }
    char *field = (char *)c + k->off;
    switch (k->kind) {
    case K_STR:
    case K_URL:
        return set_str(k, field, value, err, errlen);
    case K_SECRET:
        return set_secret(k, field, value, err, errlen);
    case K_CONTACT:
        return set_contact(k, field, value, err, errlen);
    case K_STORAGE:
        return set_storage(k, field, value, err, errlen);
    case K_NODE:
        return set_node(k, field, value, err, errlen);
    case K_REDIS:
        return set_redis(k, field, value, err, errlen);
    case K_ONOFF:
        return set_onoff(k, field, value, err, errlen);
    case K_FORMAT:
        return set_format(k, field, value, err, errlen);
    case K_REGISTRATION:
    case K_ANALYSIS:
        return set_choice(k, field, value, err, errlen);
    case K_PROXIES:
        return set_proxies(k, field, value, err, errlen);
    case K_ORIGINS:
        return set_origins(k, field, value, err, errlen);
    case K_LEVEL:
        return set_level(k, field, value, err, errlen);
    default:
        return set_int(k, field, value, err, errlen);
    }
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

int config_file(struct carcd_config *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[1024], msg[256];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        char *s = trim(line);
        if (*s == '\0')
            continue;
        char *eq = strchr(s, '=');
        if (eq == NULL) {
            snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
            rc = -1;
            break;
        }
        *eq = '\0';
        if (config_set(c, trim(s), trim(eq + 1), msg, sizeof msg) != 0) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

void config_usage(FILE *out)
{
    fprintf(out, "usage: carcd [--config FILE] [--KEY VALUE | --KEY=VALUE]...\n"
                 "\n"
                 "The Carcassonne game server: HTTP and WebSocket (/ws) on one port.\n"
                 "A config file holds `KEY = VALUE` lines with the same keys; flags override it.\n"
                 "\n"
                 "  -c, --config FILE        read settings from FILE\n"
                 "  -h, --help               print this help\n"
                 "      --version            print the version\n"
                 "      --backup FILE        copy <data-dir>/carcd.db to FILE and exit\n"
                 "      --import-db FILE     copy every room, record and account of the SQLite\n"
                 "                           file FILE into the configured storage and exit\n"
                 "      --export-db FILE     copy the configured storage into a new SQLite file\n"
                 "                           FILE and exit\n");
    for (int i = 0; i < NKEYS; i++)
        fprintf(out, "      --%-19s %s\n", keys[i].name, keys[i].help);
}

static int onoff_key(const char *name)
{
    for (int i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].name, name) == 0)
            return keys[i].kind == K_ONOFF;
    return 0;
}

/* Split argv[*i] into key and value; advances *i past a separate value (an
 * on/off key with no value after it: "on"). */
static int flag_kv(int argc, char **argv, int *i, char *key, size_t keylen, const char **value,
                   char *err, size_t errlen)
{
    const char *a = argv[*i];
    if (strcmp(a, "-c") == 0)
        a = "--config";
    if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
        snprintf(err, errlen, "unexpected argument '%s' (see --help)", a);
        return -1;
    }
    a += 2;
    const char *eq = strchr(a, '=');
    size_t n = eq != NULL ? (size_t)(eq - a) : strlen(a);
    if (n >= keylen) {
        snprintf(err, errlen, "unknown flag '--%s'", a);
        return -1;
    }
    memcpy(key, a, n);
    key[n] = '\0';
    if (eq != NULL) {
        *value = eq + 1;
        return 0;
    }
    /* An on/off setting alone (`--accept-damaged-data`) means on. */
    if (onoff_key(key) && (*i + 1 >= argc || strncmp(argv[*i + 1], "-", 1) == 0)) {
        *value = "on";
        return 0;
    }
    if (*i + 1 >= argc) {
        snprintf(err, errlen, "--%s needs a value", key);
        return -1;
    }
    *value = argv[++*i];
    return 0;
}

/* E-mail's settings together: smtp-url "off" is none; with a relay, a
 * mail-from of one '@' and printable ASCII (no spaces, '<' or '>': it goes
 * into the SMTP envelope). 0, or -1 with err (the URL never echoed). */
static int mail_check(struct carcd_config *c, char *err, size_t errlen)
{
    if (strcmp(c->smtp_url, "off") == 0)
        c->smtp_url[0] = '\0';
    if (c->smtp_url[0] == '\0')
        return 0;
    if (strncmp(c->smtp_url, "smtp://", 7) != 0 && strncmp(c->smtp_url, "smtps://", 8) != 0) {
        snprintf(err, errlen, "smtp-url: must be an smtp:// or smtps:// URL (or off)");
        return -1;
    }
    if (strncmp(c->public_url, "http://", 7) != 0 && strncmp(c->public_url, "https://", 8) != 0) {
        snprintf(err, errlen,
                 "public-url: smtp-url is set, so carcd needs the address players reach it at"
                 " (http:// or https://) for the links of its e-mail, the unsubscribe link first");
        return -1;
    }
    const char *at = strchr(c->mail_from, '@');
    int ok = at != NULL && at != c->mail_from && at[1] != '\0' && strchr(at + 1, '@') == NULL;
    for (const char *p = c->mail_from; ok && *p != '\0'; p++)
        ok = *p > 0x20 && *p < 0x7f && *p != '<' && *p != '>';
    if (!ok) {
        snprintf(err, errlen,
                 "mail-from: smtp-url is set, so carcd needs the From address of its e-mail"
                 " (one '@', printable ASCII, no spaces or angle brackets)");
        return -1;
    }
    return 0;
}

int config_load(struct carcd_config *c, int argc, char **argv, FILE *out, char *err, size_t errlen)
{
    config_defaults(c);
    const char *file = NULL;
    char key[64];
    const char *value;
    /* First pass: help, version and the config file. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            config_usage(out);
            return 1;
        }
        if (strcmp(argv[i], "--version") == 0) {
            fprintf(out, "carcd 0.1\n");
            return 1;
        }
        if (flag_kv(argc, argv, &i, key, sizeof key, &value, err, errlen) != 0)
            return -1;
        if (strcmp(key, "config") == 0)
            file = value;
    }
    if (file != NULL && config_file(c, file, err, errlen) != 0)
        return -1;
    for (int i = 1; i < argc; i++) {
        if (flag_kv(argc, argv, &i, key, sizeof key, &value, err, errlen) != 0)
            return -1;
        if (strcmp(key, "config") != 0 && config_set(c, key, value, err, errlen) != 0)
            return -1;
    }
    return mail_check(c, err, errlen);
}
