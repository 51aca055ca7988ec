/* test_memtrim.c: when server/util/memtrim.c decides to trim (a drop of min_drop
 * below the peak, at most once per interval), and that a trim gives freed
 * heap back to the system: 64 MB in small blocks, freed with one block kept
 * at the top of the heap (so free() alone cannot shrink it), must leave the
 * process's RSS lower after memtrim_run's job on a real loop than before. That part is skipped
 * where glibc's malloc is not the one in use (ASan, valgrind). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "util/memtrim.h"

START_TEST(test_due_needs_a_drop)
{
    struct memtrim m;
    memtrim_init(&m);
    ck_assert_int_eq(memtrim_due(&m, 10, 1000), 0);
    ck_assert_int_eq(memtrim_due(&m, 200, 2000), 0); /* growing: nothing freed */
    ck_assert_int_eq(memtrim_due(&m, 190, 3000), 0); /* 10 below the peak: too little */
    ck_assert_int_eq(memtrim_due(&m, 184, 4000), 1); /* 16 below */
    ck_assert_uint_eq(m.trims, 1);
    ck_assert_int_eq(m.peak, 184);                   /* the peak starts again from here */
    ck_assert_int_eq(memtrim_due(&m, 100, 5000), 0); /* within the interval */
    ck_assert_int_eq(memtrim_due(&m, 100, 4000 + m.interval_ms), 1);
    ck_assert_int_eq(memtrim_due(&m, 100, 4000 + 3 * m.interval_ms), 0); /* no new drop */
    ck_assert_uint_eq(m.trims, 2);
    /* A small drop right after a trim: given back once the count stays still
     * for an interval, once. */
    uint64_t t = 4000 + 4 * m.interval_ms;
    ck_assert_int_eq(memtrim_due(&m, 95, t), 0);
    ck_assert_int_eq(memtrim_due(&m, 95, t + m.interval_ms - 1), 0);
    ck_assert_int_eq(memtrim_due(&m, 95, t + m.interval_ms), 1);
    ck_assert_int_eq(memtrim_due(&m, 95, t + 5 * m.interval_ms), 0);
    ck_assert_uint_eq(m.trims, 3);
}
END_TEST

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

static int glibc_malloc(void)
{
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
    return 0;
#else
    const char *pre = getenv("LD_PRELOAD");
    return pre == NULL || strstr(pre, "vgpreload") == NULL;
#endif
}

START_TEST(test_trim_returns_memory)
{
    if (!glibc_malloc())
        return;
    enum { N = 64 * 1024, SIZE = 1000 };
    char **blocks = malloc(N * sizeof *blocks);
    ck_assert_ptr_nonnull(blocks);
    for (int i = 0; i < N; i++) {
        blocks[i] = malloc(SIZE);
        ck_assert_ptr_nonnull(blocks[i]);
        memset(blocks[i], i & 0xff, SIZE);
    }
    char *top = malloc(SIZE); /* pins the top of the heap */
    ck_assert_ptr_nonnull(top);
    for (int i = 0; i < N; i++)
        free(blocks[i]);
    long before = rss_kib();
    struct memtrim m;
    memtrim_init(&m);
    ck_assert_int_eq(memtrim_due(&m, 100, 1), 0);
    ck_assert_int_eq(memtrim_due(&m, 0, 2), 1); /* a drop of 100 */
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    memtrim_run(&m, &loop);
    ck_assert_int_eq(m.busy, 1);
    uv_run(&loop, UV_RUN_DEFAULT); /* the trim on the pool, then its after callback */
    ck_assert_int_eq(m.busy, 0);
    uv_loop_close(&loop);
    long after = rss_kib();
    ck_assert_msg(after < before - 32 * 1024, "RSS %ld KiB before the trim, %ld after", before,
                  after);
    free(top);
    free(blocks);
}
END_TEST

Suite *suite_memtrim(void)
{
    Suite *s = suite_create("memtrim");
    TCase *tc = tcase_create("memtrim");
    tcase_add_test(tc, test_due_needs_a_drop);
    tcase_add_test(tc, test_trim_returns_memory);
    suite_add_tcase(s, tc);
    return s;
}
