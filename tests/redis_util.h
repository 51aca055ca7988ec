/* redis_util.h: a real Redis server for the cluster tests (test_cluster.c):
 * Debian's redis-server started on a free loopback port in a scratch
 * directory, with no persistence, and stopped, paused or restarted on
 * demand. A raw inline-command helper reads the server's state without the
 * client under test. Helpers fail the running Check test instead of
 * returning an error. */
#ifndef CARC_REDIS_UTIL_H
#define CARC_REDIS_UTIL_H

#include <stddef.h>
#include <sys/types.h>

struct uv_loop_s;

struct ru_server {
    char dir[64];
    int port;
    pid_t pid;     /* 0: not running */
    char pass[32]; /* requirepass, or "" */
};

/* Start a server (pass NULL or a password) and wait until it answers PING (5 s at most). */
void ru_start(struct ru_server *s, const char *pass);
/* Start it again on the same port and directory (after ru_kill). */
void ru_restart(struct ru_server *s);
/* SIGKILL it and wait for it. */
void ru_kill(struct ru_server *s);
/* SIGSTOP, SIGCONT. */
void ru_pause(struct ru_server *s);
void ru_resume(struct ru_server *s);
/* Kill it if running and remove the directory. */
void ru_stop(struct ru_server *s);
/* "redis://127.0.0.1:PORT" (with ":pass@" when the server has one). */
void ru_url(const struct ru_server *s, char *out, size_t size);
/* Send one inline command (e.g. "GET k") and put the reply's text in out:
 * "+OK" -> "OK", ":5" -> "5", "$n" -> the string, "$-1" -> "(nil)",
 * "-ERR x" -> "-ERR x". */
void ru_cmd(const struct ru_server *s, const char *cmd, char *out, size_t size);

/* Run loop until *flag is set or ms pass; returns *flag. */
int ru_loop_until(struct uv_loop_s *loop, const int *flag, int ms);
/* Run loop for ms (timers fire, replies arrive). */
void ru_loop_for(struct uv_loop_s *loop, int ms);

#endif
