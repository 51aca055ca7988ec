/* limits.c: the shipped defaults of struct lobby_limits. */
#include "conn/limits.h"

void lobby_limits_defaults(struct lobby_limits *l)
{
    l->message_bytes = 16384;
    l->rate = 20;
    l->burst = 40;
    l->flood_rate = 40;
    l->flood_burst = 80;
    l->chat_rate = 30;
    l->chat_burst = 5;
    l->queue_messages = 256;
    l->queue_bytes = 1 << 20;
    l->held_bytes = 64 << 20;
    l->conns_per_ip = 64;
    l->ipv6_prefix = 64;
    l->max_rooms = 10000;
    l->idle_timeout = 600;
    l->history = 32;
    l->history_bytes = 8192;
    l->room_ttl = 3600;
    l->lobby_room_ttl = 120;
    l->create_rate = 5;
    l->create_rate_ip = 30;
    l->lobby_rooms_ip = 20;
    l->list_max = 200;
    l->takeover_grace = 60;
    l->bot_pace = 700;
    l->bots_alone_grace = 60;
}
