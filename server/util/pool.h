/* pool.h: the size of libuv's thread pool, as libuv reads it, for the
 * users of that pool that must leave storage a thread (bots, analyses). */
#ifndef UTIL_POOL_H
#define UTIL_POOL_H

/* The pool's threads but one, at least 1: UV_THREADPOOL_SIZE read as libuv's
 * threadpool.c init_threads reads it (unset is 4, below 1 is 1, at most 1024),
 * less the thread that stays for storage's commits and reads. */
int pool_threads_spare(void);

#endif
