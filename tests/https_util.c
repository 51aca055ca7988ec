/* https_util.c: see https_util.h. */
#include "https_util.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void hu_start(struct hu_server *s, const char *script, const char *const *args)
{
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "/tmp/carc-https-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(s->dir));
    snprintf(s->cert, sizeof s->cert, "%s/cert.pem", s->dir);
    snprintf(s->key, sizeof s->key, "%s/key.pem", s->dir);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
             " -keyout %s -out %s -days 1 -subj /CN=localhost"
             " -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null",
             s->key, s->cert);
    ck_assert_int_eq(system(cmd), 0);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    s->pid = fork();
    ck_assert_int_ge(s->pid, 0);
    if (s->pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        const char *argv[16];
        int n = 0;
        argv[n++] = "python3";
        argv[n++] = script;
        argv[n++] = s->cert;
        argv[n++] = s->key;
        for (int i = 0; args != NULL && args[i] != NULL && n < 15; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        execv("/usr/bin/python3", (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    s->out = fds[0];
    size_t len = 0;
    while (len < sizeof s->line - 1 && strchr(s->line, '\n') == NULL) {
        ssize_t n = read(s->out, s->line + len, sizeof s->line - 1 - len);
        ck_assert_msg(n > 0, "%s did not start", script);
        len += (size_t)n;
        s->line[len] = '\0';
    }
    *strchr(s->line, '\n') = '\0';
    s->port = atoi(s->line);
    ck_assert_int_gt(s->port, 0);
}

void hu_stop(struct hu_server *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
    }
    if (s->out > 0)
        close(s->out);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", s->dir);
    if (s->dir[0] != '\0' && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", s->dir);
    s->pid = 0;
    s->out = -1;
}
