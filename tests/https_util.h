/* https_util.h: a local HTTPS endpoint for the tests of notify/: a
 * certificate for 127.0.0.1 and localhost made by `openssl req` in a
 * temporary directory, and a Python server script of tests/ started on it.
 * The script takes CERT KEY [ARGS...], listens on 127.0.0.1 port 0 and prints
 * one line on stdout starting with the port; its other words are kept. */
#ifndef CARC_TESTS_HTTPS_UTIL_H
#define CARC_TESTS_HTTPS_UTIL_H

#include <sys/types.h>

struct hu_server {
    char dir[64];
    char cert[128], key[128];
    pid_t pid;
    int out; /* the script's stdout, open until hu_stop */
    int port;
    char line[512]; /* its first line */
};

/* Start script (a path under tests/) with extra arguments (NULL-terminated
 * list, may be NULL); fails the test when it does not come up. */
void hu_start(struct hu_server *s, const char *script, const char *const *args);
void hu_stop(struct hu_server *s);

#endif
