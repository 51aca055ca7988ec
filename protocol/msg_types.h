/* msg_types.h: the message types of protocol v2, one table per direction
 * (PROTOCOL.md "Client messages" and "Server messages").
 *
 * These two lists are the only place the types are named. Everything else
 * expands them: the enums proto_type and proto_server_type (msg.h), the
 * decoders of both sides (msg.c, client.c), the frame every server encoder
 * writes, the metrics' label values (server/metrics/), and the JSON Schema
 * generator (protocol/schema/gen.py), which reads this file and refuses to
 * write when its schemas name other messages than these.
 *
 * X(NAME, "wire"): the enum constant is PROTO_T_NAME (client) or PROTO_S_NAME
 * (server). The order is the enums' and the metrics' series order: append new
 * types at the end. gen.py reads the X(NAME, "wire") entries between the
 * #define and the end of its macro, so keep them literal (no nested macros). */
#ifndef PROTO_MSG_TYPES_H
#define PROTO_MSG_TYPES_H

/* What clients send. */
#define PROTO_CLIENT_TYPES(X)                                                                      \
    X(LIST, "list")                                                                                \
    X(CREATE, "create")                                                                            \
    X(JOIN, "join")                                                                                \
    X(RESUME, "resume")                                                                            \
    X(WATCH, "watch")                                                                              \
    X(LEAVE, "leave")                                                                              \
    X(START, "start")                                                                              \
    X(PLAY, "play")                                                                                \
    X(CHAT, "chat")                                                                                \
    X(SYNC, "sync")                                                                                \
    X(PING, "ping")                                                                                \
    X(ADD_BOT, "add_bot")                                                                          \
    X(REMOVE_BOT, "remove_bot")                                                                    \
    X(HISTORY, "history")                                                                          \
    X(ENTROPY, "entropy")                                                                          \
    X(REMATCH, "rematch")

/* What the server sends. */
#define PROTO_SERVER_TYPES(X)                                                                      \
    X(WELCOME, "welcome")                                                                          \
    X(ROOMS, "rooms")                                                                              \
    X(JOINED, "joined")                                                                            \
    X(WATCHING, "watching")                                                                        \
    X(LEFT, "left")                                                                                \
    X(STATE, "state")                                                                              \
    X(DELTA, "delta")                                                                              \
    X(ACK, "ack")                                                                                  \
    X(SYNCED, "synced")                                                                            \
    X(LEGAL, "legal")                                                                              \
    X(CHAT, "chat")                                                                                \
    X(PONG, "pong")                                                                                \
    X(HISTORY, "history")                                                                          \
    X(ERROR, "error")                                                                              \
    X(NOTICE, "notice")                                                                            \
    X(REDIRECT, "redirect")                                                                        \
    X(REMATCH, "rematch")

#endif
