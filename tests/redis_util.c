/* redis_util.c: see redis_util.h. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "redis_util.h"

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One line of fd (without CRLF); -1 when the socket closed or timed out. */
static int read_line(int fd, char *out, size_t size)
{
    size_t n = 0;
    for (;;) {
        char c;
        if (read(fd, &c, 1) != 1)
            return -1;
        if (c == '\n')
            break;
        if (c != '\r' && n + 1 < size)
            out[n++] = c;
    }
    out[n] = '\0';
    return 0;
}

/* A raw command over a new connection; -1 when the server does not answer. */
static int raw(const struct ru_server *s, const char *cmd, char *out, size_t size)
{
    int fd = dial(s->port);
    if (fd < 0)
        return -1;
    char line[512];
    int n = 0;
    if (s->pass[0] != '\0')
        n = snprintf(line, sizeof line, "AUTH %s\r\n", s->pass);
    snprintf(line + n, sizeof line - (size_t)n, "%s\r\n", cmd);
    if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
        close(fd);
        return -1;
    }
    char buf[512];
    if (s->pass[0] != '\0' && read_line(fd, buf, sizeof buf) != 0) {
        close(fd);
        return -1;
    }
    int rc = read_line(fd, buf, sizeof buf);
    if (rc == 0 && buf[0] == '$' && strcmp(buf, "$-1") != 0)
        rc = read_line(fd, out, size);
    else if (rc == 0 && strcmp(buf, "$-1") == 0)
        snprintf(out, size, "(nil)");
    else if (rc == 0 && (buf[0] == '+' || buf[0] == ':'))
        snprintf(out, size, "%s", buf + 1);
    else if (rc == 0)
        snprintf(out, size, "%s", buf);
    close(fd);
    return rc;
}

static void spawn(struct ru_server *s)
{
    char port[16];
    snprintf(port, sizeof port, "%d", s->port);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        char log[96];
        snprintf(log, sizeof log, "%s/redis.log", s->dir);
        const char *argv[24];
        int n = 0;
        argv[n++] = "redis-server";
        argv[n++] = "--port";
        argv[n++] = port;
        argv[n++] = "--bind";
        argv[n++] = "127.0.0.1";
        argv[n++] = "--dir";
        argv[n++] = s->dir;
        argv[n++] = "--save";
        argv[n++] = "";
        argv[n++] = "--appendonly";
        argv[n++] = "no";
        argv[n++] = "--logfile";
        argv[n++] = log;
        argv[n++] = "--daemonize";
        argv[n++] = "no";
        if (s->pass[0] != '\0') {
            argv[n++] = "--requirepass";
            argv[n++] = s->pass;
        }
        argv[n] = NULL;
        execvp("redis-server", (char *const *)argv);
        _exit(127);
    }
    s->pid = pid;
    char out[64];
    for (int i = 0; i < 500; i++) {
        if (raw(s, "PING", out, sizeof out) == 0 && strcmp(out, "PONG") == 0)
            return;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            s->pid = 0;
            ck_abort_msg("redis-server exited at start (apt-get install redis-server; see %s)",
                         s->dir);
        }
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    ck_abort_msg("redis-server on port %d did not answer within 5 s", s->port);
}

void ru_start(struct ru_server *s, const char *pass)
{
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "/tmp/carc-redis-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(s->dir));
    if (pass != NULL)
        snprintf(s->pass, sizeof s->pass, "%s", pass);
    s->port = free_port();
    spawn(s);
}

void ru_restart(struct ru_server *s)
{
    ck_assert_int_eq(s->pid, 0);
    spawn(s);
}

void ru_kill(struct ru_server *s)
{
    if (s->pid == 0)
        return;
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = 0;
}

void ru_pause(struct ru_server *s)
{
    kill(s->pid, SIGSTOP);
}

void ru_resume(struct ru_server *s)
{
    kill(s->pid, SIGCONT);
}

void ru_stop(struct ru_server *s)
{
    ru_kill(s);
    if (s->dir[0] != '\0') {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
        if (system(cmd) != 0)
            fprintf(stderr, "redis_util: cannot remove %s\n", s->dir);
        s->dir[0] = '\0';
    }
}

void ru_url(const struct ru_server *s, char *out, size_t size)
{
    if (s->pass[0] != '\0')
        snprintf(out, size, "redis://:%s@127.0.0.1:%d", s->pass, s->port);
    else
        snprintf(out, size, "redis://127.0.0.1:%d", s->port);
}

void ru_cmd(const struct ru_server *s, const char *cmd, char *out, size_t size)
{
    ck_assert_msg(raw(s, cmd, out, size) == 0, "redis-server did not answer %s", cmd);
}

static void on_tick(uv_timer_t *t)
{
    (void)t;
}

int ru_loop_until(uv_loop_t *loop, const int *flag, int ms)
{
    uv_timer_t tick;
    uv_timer_init(loop, &tick);
    uv_timer_start(&tick, on_tick, 5, 5);
    uv_update_time(loop);
    uint64_t end = uv_now(loop) + (uint64_t)ms;
    while ((flag == NULL || !*flag) && uv_now(loop) < end)
        uv_run(loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&tick, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
    return flag != NULL ? *flag : 0;
}

void ru_loop_for(uv_loop_t *loop, int ms)
{
    ru_loop_until(loop, NULL, ms);
}
