/* status.h: the server's status codes, in one number space with the
 * engine's (common/err.h).
 *
 * The engine's codes are -1 .. -(CARC__EPOS_COUNT - 1) and carry wire names;
 * the server's own codes (Redis client, leases) continue below them, so a
 * status that travels from one module to another (a lease callback handing
 * on a Redis status, a room refusing with the engine's CARC_E_STORAGE) can
 * never be read as something else. A new module adds its codes here, at the
 * end of the table: numbers are not stored anywhere, but keep them stable for
 * logs. */
#ifndef CARCD_UTIL_STATUS_H
#define CARCD_UTIL_STATUS_H

#include "err.h"

/* X(name, text): the server's codes. */
#define SRV_STATUS_MAP(X)                                                                          \
    /* the Redis client (cluster/redis.h) */                                                       \
    X(REDIS_E_DOWN, "not connected to Redis")                                                      \
    X(REDIS_E_TIMEOUT, "Redis did not answer in time")                                             \
    X(REDIS_E_CLOSED, "the Redis client is closing")                                               \
    X(REDIS_E_URL, "not a redis:// URL")                                                           \
    X(REDIS_E_ARGS, "too many or too long command arguments")                                      \
    /* room leases (cluster/lease.h); they also hand on the Redis client's codes */                \
    X(LEASE_E_HELD, "another node holds the room's lease")                                         \
    X(LEASE_E_BUSY, "this node already holds or is taking the room's lease")                       \
    X(LEASE_E_REPLY, "Redis answered the lease script with something unexpected")                  \
    X(LEASE_E_ARGS, "bad node id, room id or times")                                               \
    /* ratings (players/rating.h) */                                                               \
    X(RATING_E_ARGS, "a rating or a result out of range")                                          \
    /* accounts, sessions, invites and ratings in the database (store/accounts.h) */               \
    X(STORE_E_EXISTS, "the name or key is taken")                                                  \
    X(STORE_E_NOT_FOUND, "no such row")                                                            \
    X(STORE_E_USED, "the invite was already used")                                                 \
    X(STORE_E_EXPIRED, "the invite has expired")                                                   \
    X(STORE_E_DB, "the database failed")                                                           \
    X(STORE_E_ARGS, "an empty or too long name, key, id or pool")                                  \
    /* the accounts service (players/accounts.h) */                                                \
    X(ACCOUNTS_E_NAME, "that name cannot be an account's")                                         \
    X(ACCOUNTS_E_PASSWORD, "that password cannot be an account's")                                 \
    X(ACCOUNTS_E_TAKEN, "that name is taken")                                                      \
    X(ACCOUNTS_E_INVITE, "an unused invite is needed")                                             \
    X(ACCOUNTS_E_CLOSED, "registration is closed")                                                 \
    X(ACCOUNTS_E_CREDENTIALS, "wrong name or password")                                            \
    X(ACCOUNTS_E_RATE, "too many failed sign-ins: wait")                                           \
    X(ACCOUNTS_E_SESSION, "not signed in")                                                         \
    X(ACCOUNTS_E_STORAGE, "the accounts database failed")                                          \
    X(ACCOUNTS_E_UNKNOWN, "no account has that name")                                              \
    X(ACCOUNTS_E_INVITES_OFF, "members cannot make invites on this server")                        \
    X(ACCOUNTS_E_INVITES_MAX, "too many unused invites")                                           \
    /* Web Push (notify/webpush.h) */                                                              \
    X(WEBPUSH_E_KEY, "not a P-256 public key, or a bad auth secret")                               \
    X(WEBPUSH_E_SIZE, "the payload is too long or the output too short")                           \
    X(WEBPUSH_E_CRYPTO, "the cryptography library failed")                                         \
    /* outbound HTTPS (notify/outbound.h) */                                                       \
    X(OUTBOUND_E_FULL, "too many outbound requests under way")                                     \
    X(OUTBOUND_E_URL, "not an https:// URL, or too long")                                          \
    X(OUTBOUND_E_CLOSED, "the outbound client is closing")                                         \
    X(OUTBOUND_E_TIMEOUT, "the request timed out")                                                 \
    X(OUTBOUND_E_CONNECT, "could not resolve or connect to the host")                              \
    X(OUTBOUND_E_TLS, "the TLS handshake or the certificate failed")                               \
    X(OUTBOUND_E_FAILED, "the request failed")                                                     \
    X(OUTBOUND_E_PRIVATE, "the host is at a loopback, private or link-local address")

#define SRV__SPOS(name, text) SRV__SPOS_##name,
enum { SRV__SPOS_FIRST = CARC__EPOS_COUNT - 1, SRV_STATUS_MAP(SRV__SPOS) SRV__SPOS_END };
#undef SRV__SPOS

#define SRV__SNEG(name, text) name = -SRV__SPOS_##name,
enum srv_status { SRV_STATUS_MAP(SRV__SNEG) };
#undef SRV__SNEG

/* The lowest (most negative) status any module returns. */
#define SRV_STATUS_MIN (-(SRV__SPOS_END - 1))

/* A status' name: "OK" for 0, the engine's wire name for an engine code
 * ("storage_error"), the identifier for a server code ("REDIS_E_DOWN"),
 * "unknown_status" otherwise. Never NULL; static storage. */
const char *srv_status_name(int status);
/* A sentence for any status, as srv_status_name. */
const char *srv_status_str(int status);

#endif
