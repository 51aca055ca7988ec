/* config.h: carcd's settings, from defaults, a config file and flags.
 *
 * One table names every setting; the same key is a flag (`--port 8080` or
 * `--port=8080`) and a config file line (`port = 8080`). Flags override the
 * file whatever their order. `carcd --help` prints the table. */
#ifndef CARCD_CONFIG_H
#define CARCD_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "conn/limits.h"

struct carcd_config {
    char listen[64]; /* address to bind; "0.0.0.0" or "*" for every interface */
    int port;        /* 0: the kernel picks one (printed at start) */
    char data_dir[256];
    char web_root[256];
    int log_level;              /* enum log_level */
    int log_format;             /* enum log_format */
    char trusted_proxies[1000]; /* proxy_list_parse's spec; "" = none */
    char allowed_origins[1000]; /* origin_list_parse's spec; "" = the request's own host only */
    int ping_interval;          /* seconds between websocket pings of a quiet connection; 0: off */
    int shutdown_grace;         /* milliseconds to wait for clients to close on SIGINT/SIGTERM */
    int storage; /* 1: rooms are kept in <data-dir>/carcd.db; 2: in PostgreSQL; 0: memory only */
    char postgres_url[1024]; /* storage 2: libpq's connection string; may hold a password */
    int storage_wait;        /* seconds to wait at start for a PostgreSQL that does not answer */
    int stale_room; /* seconds: stored rooms untouched that long are closed at start; 0: never */
    int storage_busy_ms;      /* how long a write waits for another program's lock */
    int storage_fsync;        /* 1: synchronous = FULL (fsync per commit); 0: NORMAL */
    int accept_damaged;       /* 1: start on SQLite files the start-up check found damaged */
    int bot_think_ms;         /* time a bot's search may take per move */
    int bot_searches;         /* bots' searches on the thread pool at once */
    int analysis;             /* enum analysis_mode: off, request, auto */
    int analysis_threads;     /* analyses on the thread pool at once */
    int analysis_ms_per_move; /* an analysis' budget per move (analysis/analysis.h) */
    int analysis_queue;       /* games held by the analyses' queue at most */
    int stall_threshold_ms;   /* a loop stall longer than this is charged to no clock; 0: off */
    char zoneinfo_dir[256];   /* the tz database clocks' time_zone names (util/tz.h) */
    int vacation_days;        /* an account's vacation bank, days a year; 0: no vacations */
    int test_clock;           /* tests: -1 off; else seconds the clocks start ahead, and
                                 POST /admin/clock moves them */
    int metrics_port;         /* 0: no metrics listener; else GET /metrics and /healthz there */
    char metrics_listen[64];
    char metrics_token[128]; /* "": /metrics on the public port is 404; else it needs
                                `Authorization: Bearer` this. A secret: never logged */
    char admin_token[256];   /* Bearer token of /admin/ (admin/admin.h); "": admin API refused */
    /* A cluster node (server/README.md "Clusters", docs/cluster.md): */
    char node_id[33];    /* this node's id in the cluster, [A-Za-z0-9_-]; "": one node alone */
    char redis_url[512]; /* redis://[[user]:password@]host[:port][/db]; may hold a password */
    int lease_ttl_ms;    /* how long a room's lease outlives its owner's last renewal */
    /* Accounts (players/accounts.h; server/README.md "Accounts"): */
    int registration;     /* enum accounts_registration: open, invite, closed */
    int session_days;     /* a session's life from sign-in */
    int hash_ops;         /* Argon2id passes of a new password hash */
    int hash_mem_kib;     /* ... and its memory, in KiB */
    int invite_days;      /* an invite's life from its making */
    int member_invites;   /* 1: members may make invites (POST /api/me/invites) */
    int ladder_min_games; /* rated games a player needs to appear on a ladder */
    /* Notifications (notify/; server/README.md "Notifications"): */
    char vapid_key_file[1024];   /* "": <data-dir>/vapid.pem */
    char push_contact[200];      /* a VAPID token's "sub" */
    char outbound_ca_file[1024]; /* "": the system's CAs only */
    int outbound_private;        /* 1: outbound requests may reach private addresses */
    int webhooks;                /* 1: accounts may give a webhook */
    int push_tests;              /* test notices an account may ask for per hour */
    char webhook_hosts[1000];    /* the hosts webhooks may name; "": any */
    char public_url[512];        /* carcd's address for players, for links; "": none */
    char smtp_url[512];          /* the mail relay; "": no e-mail (may hold a password) */
    char mail_from[256];         /* the From address of carcd's mail */
    int digest_hour;             /* the UTC hour of the daily digest (0..23) */
    struct lobby_limits limits;
};

void config_defaults(struct carcd_config *c);

/* Set one key from text. Returns 0, or -1 with a sentence in err. */
int config_set(struct carcd_config *c, const char *key, const char *value, char *err,
               size_t errlen);

/* Read `key = value` lines ('#' starts a comment, blank lines are skipped).
 * Returns 0, or -1 with "FILE:LINE: reason" in err. */
int config_file(struct carcd_config *c, const char *path, char *err, size_t errlen);

/* Defaults, then the file named by --config/-c (if any), then the other
 * flags. Returns 0 to run, 1 when --help or --version was printed on out, -1
 * with a sentence in err for a bad flag, value or file. */
int config_load(struct carcd_config *c, int argc, char **argv, FILE *out, char *err, size_t errlen);

void config_usage(FILE *out);

/* config_cmd.c. The files of --backup, --export-db and --import-db: NULL when
 * not given. */
struct config_file_flags {
    const char *backup, *export_db, *import_db;
};
/* The file flags out of argv, then the settings into cfg, the log set up and
 * the metrics ready. -1 to go on, else main's exit status: 0 after --help or
 * --version, 2 on a bad flag or setting (said on stderr). */
int config_settings_load(struct carcd_config *cfg, int *argc, char **argv,
                         struct config_file_flags *ff);
/* carcd --backup FILE: a consistent copy of <data-dir>/carcd.db, also while a
 * carcd serves from it. main's exit status. */
int config_backup_run(const struct carcd_config *cfg, const char *file);
/* carcd --export-db FILE / --import-db FILE (import 1): every room, record and
 * account row copied between the configured storage and a SQLite file.
 * main's exit status. */
int config_copy_run(const struct carcd_config *cfg, const char *file, int import);
/* --export-db or --import-db: the data directory made, then config_copy_run.
 * main's exit status. */
int config_copy_main(const struct carcd_config *cfg, const struct config_file_flags *ff);
/* The process made ready to serve: signals that would kill it ignored, the
 * descriptor limit raised, the data directory made. 0, or 1 (logged). */
int config_process_prepare(const struct carcd_config *cfg);

#endif
