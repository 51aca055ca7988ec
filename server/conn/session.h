/* session.h: one client connection as the lobby and rooms see it, whatever
 * carries it (a websocket in net/net.c, a fake in tests).
 *
 * A session owns a bounded queue of outbound messages (shared buffers, see
 * sbuf.h), the reassembly buffer of the inbound message, its rate buckets and
 * its room membership. Rooms and the lobby only append to the queue; the
 * transport drains it through session_peek()/session_pop() when the socket is
 * writable, and learns of work through the sink:
 *
 *   wake(s)   the queue went from empty to non-empty: ask for a write
 *   close(s)  s->close_code/close_reason are set: close the connection, after
 *             sending what is queued when s->close_flush, else at once
 *
 * The sink functions may be called from inside any handler, for any session
 * (a broadcast overflowing another client's queue): they must only schedule. */
#ifndef CARCD_SESSION_H
#define CARCD_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "conn/limits.h"
#include "conn/sbuf.h"

/* WebSocket close codes carcd uses (PROTOCOL.md "Close codes"). */
enum session_close_code {
    SESSION_CLOSE_GOING_AWAY = 1001, /* server shutting down or restarting */
    SESSION_CLOSE_PROTOCOL = 1002,   /* a frame lws lets through breaks RFC 6455 (net_rx.h) */
    SESSION_CLOSE_POLICY = 1008,     /* flooding, too many connections from one address */
    SESSION_CLOSE_TOO_BIG = 1009,    /* message over limits.message_bytes */
    SESSION_CLOSE_TAKEOVER = 4000,   /* a newer connection resumed this seat */
    SESSION_CLOSE_OVERFLOW = 4001,   /* outbound queue overflow: the client does not read */
    SESSION_CLOSE_IDLE = 4002,       /* no message for limits.idle_timeout seconds */
    SESSION_CLOSE_MOVED = 4003       /* the room went to another node of the cluster */
};

/* An account's name with its NUL (players/account.h ACCOUNT_NAME_MAX + 1,
 * with room to spare: conn/ cannot include players/). */
#define SESSION_ACCOUNT_NAME 32

struct session;
struct room;

struct session_sink {
    void (*wake)(struct session *s);
    void (*close)(struct session *s);
};

/* Where a session reports what it queued and how the server closed it: the
 * metrics, which conn/ may not call (they are on its floor). The lobby sets
 * it when it takes the session (lobby_session_open); NULL reports nothing. */
struct session_tally {
    void (*sent)(int type, int code); /* a message of server type `type` (enum
                                         proto_server_type; an error's `code`) was queued */
    void (*closed)(int code);         /* the server asked to close with this close code */
};

/* A token bucket: `rate` tokens per `period` ms, at most `burst`, starting full. */
struct bucket {
    int64_t level; /* in units of 1/period of a token */
    uint64_t last; /* ms */
};

struct session {
    const struct session_sink *sink;
    const struct session_tally *tally; /* the lobby's, or NULL */
    void *conn;                        /* the transport's handle, opaque here */
    unsigned long id;                  /* for logs */
    char peer[64];                     /* peer address as text, "" when unknown */
    int counted;                       /* counted in the lobby's per-address table */
    int open;                          /* known to the lobby (between open and close) */

    /* The account the connection is signed in as (the carcd_session cookie
     * of its upgrade, looked up before its first message is read: net/),
     * or 0 and "" for a guest. A seat it takes belongs to the account
     * (game/room.h). Set by the transport before the lobby reads a message. */
    long long account;
    char account_name[SESSION_ACCOUNT_NAME];

    /* Room membership; written by room.c only. */
    struct room *room;             /* NULL when in no room */
    int seat;                      /* seat index while seated, -1 for a spectator */
    struct session *rnext, *rprev; /* the room's spectators */
    unsigned held;                 /* messages the room holds for s until a commit ... */
    size_t held_bytes;             /* ... and their bytes: both count against the queue's bounds */

    /* The lobby's idle list, least recently active first. */
    struct session *inext, *iprev;
    int listed;       /* on that list */
    uint64_t last_ms; /* when the last message arrived */

    struct bucket msg, flood, chat, create;

    /* A request waiting for the cluster (roomnode.h: a room being looked up
     * or taken over, a lease for a new room), or NULL; the lobby's. */
    struct roomnode_wait *wait;

    /* Outbound queue: a ring of shared buffers. */
    struct sbuf **q;
    unsigned qhead, qlen, qcap, qmax;
    size_t qbytes, qmax_bytes;
    size_t unsent;      /* bytes the transport took that the peer has not yet (the kernel's
                           send queue), counted with qbytes against qmax_bytes */
    unsigned long sent; /* messages handed to the transport so far */

    /* Inbound reassembly of one message. */
    char *rx;
    size_t rxlen, rxcap, rxmax;
    int rx_skip; /* the message being received is being discarded (binary) */

    int closing; /* close requested: nothing more is queued or handled */
    int close_code;
    int close_flush;
    char close_reason[64];
};

/* Prepare s (any previous content is ignored). Queue and message bounds come
 * from lim, which must outlive s. The buckets start full at time now (ms). */
void session_init(struct session *s, const struct session_sink *sink, void *conn,
                  const struct lobby_limits *lim, uint64_t now);
/* Free the queue and the reassembly buffer. s must be out of every room. */
void session_fini(struct session *s);

/* Queue b for sending (takes a new reference; the caller keeps its own).
 * Dropped when s is closing. Over the queue's bounds (messages, or queued plus
 * unsent bytes): close 4001, at once. */
void session_send(struct session *s, struct sbuf *b);
/* The same for malloc'd text from an encoder, whose ownership is taken. */
void session_send_text(struct session *s, char *text);

/* Oldest queued message (borrowed), or NULL. */
static inline struct sbuf *session_peek(const struct session *s)
{
    return s->qlen > 0 ? s->q[s->qhead] : NULL;
}
/* Drop the oldest queued message (the transport has written it). */
void session_pop(struct session *s);

/* The transport's writer for session_flush(): hand b, whole, to the
 * connection conn. Returns 0 when b is written and another may follow at once,
 * 1 when b is written (or taken in full by the transport's own buffer) but
 * nothing more may be written before the connection is writable again, -1
 * when b could not be written (the connection is failing). */
typedef int (*session_write_fn)(void *conn, struct sbuf *b);

/* One write burst: hand queued messages, oldest first, to write(s->conn, ..)
 * and pop each one written, until the queue is empty or write returns nonzero.
 * Returns 1 when messages remain queued, 0 when the queue is empty, -1 when
 * write failed (the message it refused stays queued). Does not touch
 * s->unsent: the transport measures it after the burst when the kernel is
 * full (net/net.c). */
int session_flush(struct session *s, session_write_fn write);

/* Ask the transport to close s with code and reason (<= 63 bytes). The first
 * request wins; later ones are ignored. flush: send what is queued first. */
void session_close(struct session *s, int code, const char *reason, int flush);

/* Reassembly. Append one fragment; final: it ends the message; remaining:
 * bytes the transport knows are still to come in this message (0 if unknown).
 * Returns 1 when s->rx[0..rxlen) holds a whole message (NUL-terminated),
 * 0 for more to come, -1 when the message would exceed the limit. */
int session_rx_append(struct session *s, const void *data, size_t len, size_t remaining, int final);
void session_rx_reset(struct session *s);
/* Charge one frame that lobby_session_message() will not see as a message of
 * its own (a binary message, a fragment before the last of a text message) to
 * the same buckets: the flood bucket always, the rate bucket when msg. Returns
 * 0, 1 when over the rate (answer rate_limited), -1 when flooding: s is then
 * closing with 1008, as the lobby closes a text flood. */
int session_rx_charge(struct session *s, const struct lobby_limits *l, uint64_t now, int msg);

/* The key the per-address limits count peer under (max-conns-per-ip,
 * create-rate-per-ip, lobby-rooms-per-ip): an IPv4 address as it is, an
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d) as that IPv4 address, any other
 * IPv6 address as its network of ipv6_prefix bits (32..128) written
 * "2001:db8:1:2::/64" (at 128 the address alone, canonical), anything that is
 * not an address as it is. One host gets a whole /64 from its provider, so
 * keying on the exact IPv6 address would give it 2^64 budgets. key gets at most
 * size - 1 bytes; 64 hold every form. Pure. */
void session_peer_key(const char *peer, int ipv6_prefix, char *key, size_t size);

/* Take one token. 0 when there was one, -1 when the bucket is empty. */
int bucket_take(struct bucket *b, uint64_t now, int rate, int burst, int64_t period);
void bucket_fill(struct bucket *b, int burst, int64_t period, uint64_t now);

#endif
