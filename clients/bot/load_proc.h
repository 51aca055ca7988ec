/* load_proc.h: the server process as carc-load sees it from outside: start a
 * carcd of its own on loopback (and stop it, removing its data folder), its
 * CPU time, resident memory and open descriptors from /proc, and the loop
 * figures of its GET /api/stats. One server per process (file-level state,
 * as carc-load is single-threaded). */
#ifndef CARC_LOAD_PROC_H
#define CARC_LOAD_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* Start carcd on 127.0.0.1, port 0, a temporary data folder and limits wide
 * enough for `conns` connections and `rooms` rooms, with extra[0..nextra)
 * appended to its arguments; read its startup line. Returns its pid and the
 * WebSocket URL in url, or -1. */
pid_t load_server_start(const char *carcd, char **extra, int nextra, int conns, int rooms,
                        char *url, size_t urlsize);

/* SIGTERM the server started above, wait for it, remove its data folder. */
void load_server_stop(void);

/* CPU time (user + system) of pid in seconds, VmRSS in KiB, open file
 * descriptors; -1 when unknown. */
double load_cpu_s(pid_t pid);
long load_rss_kib(pid_t pid);
long load_fd_count(pid_t pid);

/* GET /api/stats from the server at url (ws://HOST:PORT/ws) and print its
 * loop and storage figures. Blocking: call it once the games are over. */
void load_print_loop_stats(const char *url);

#endif
