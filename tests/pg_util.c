/* pg_util.c: see pg_util.h. */
#include "pg_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests.h"

void pgu_query(const char *q, char *out, size_t size, void (*wait)(void *), void *arg)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "psql \"$CARC_PG_URL\" -XAtqc \"%s\"", q);
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    int fd = fileno(f);
    if (wait != NULL)
        ck_assert_int_eq(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
    size_t n = 0;
    for (int i = 0; i < 30000; i++) {
        ssize_t got = read(fd, out + n, size - 1 - n);
        if (got == 0 || (got > 0 && (n += (size_t)got) == size - 1))
            break;
        ck_assert_msg(got > 0 || errno == EAGAIN, "psql: %s", strerror(errno));
        if (got < 0)
            wait(arg);
    }
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    ck_assert_int_eq(pclose(f), 0);
}
