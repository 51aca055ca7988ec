/* limits.h: the bounds the lobby, rooms and sessions enforce, one struct that
 * config.c fills from settings and hands down (server/README.md "Limits and
 * close codes"). Plain data: no call reaches back into config. */
#ifndef CARCD_CONN_LIMITS_H
#define CARCD_CONN_LIMITS_H

/* The limits the lobby, rooms and sessions enforce (server/README.md "Limits and close codes"). */
struct lobby_limits {
    int message_bytes;           /* largest inbound message; larger: close 1009 */
    int rate, burst;             /* messages per second and burst; over: error rate_limited */
    int flood_rate, flood_burst; /* over this: close 1008 */
    int chat_rate, chat_burst;   /* chat messages per minute and burst; over: rate_limited */
    int queue_messages;          /* outbound queue bound per connection, messages ... */
    int queue_bytes;             /* ... and bytes; over: close 4001 */
    int held_bytes;              /* replies all rooms hold for their commits, each recipient's
                                    counted; over: the recipient is closed with 4001 */
    int conns_per_ip;            /* websocket connections per peer address; over: close 1008 */
    int ipv6_prefix;             /* the per-address limits count an IPv6 peer by its network
                                    of this many bits (session_peer_key); IPv4: exact */
    int max_rooms;               /* rooms on the server; over: error limit_reached */
    int idle_timeout;            /* seconds without a message before close 4002; 0: never */
    int history;                 /* deltas kept per room for resume and sync */
    int history_bytes;           /* ... as long as they add up to at most this */
    int room_ttl;                /* seconds a room with nobody connected is kept; 0: forever */
    int lobby_room_ttl;          /* the same for a room still in the lobby; 0: forever */
    int create_rate;             /* rooms a connection may create per minute (and burst) */
    int create_rate_ip;          /* ... and an address, over all its connections */
    int lobby_rooms_ip;          /* lobby rooms created from one address at once */
    int list_max;                /* rooms in one `rooms` answer */
    int takeover_grace;          /* seconds a disconnected player's turn waits for them (no
                                    clock) before a bot plays the seat; 0: never */
    int bot_pace;                /* ms a bot waits from the start of its turn before it
                                    thinks, while anyone watches; 0: at once */
    int bots_alone_grace;        /* seconds a game goes on with nobody connected before its
                                    bots and clocks pause; 0: never (then unwatched bots
                                    play at once) */
};

/* The shipped defaults (the values carcd --help prints). */
void lobby_limits_defaults(struct lobby_limits *l);

#endif
