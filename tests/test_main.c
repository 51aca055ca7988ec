/* The single test runner: every suite of tests.h, one SRunner.
 * Run from the repository root (tests read tests/data/ and ../shared/). */
#include <stdlib.h>

#include "tests.h"

const char *test_shared_dir(void)
{
    const char *d = getenv("CARC_SHARED");
    return d != NULL && d[0] != '\0' ? d : "../shared";
}

int main(void)
{
    SRunner *sr = srunner_create(suite_common());
    srunner_add_suite(sr, suite_tiles());
    srunner_add_suite(sr, suite_moves());
    srunner_add_suite(sr, suite_score());
    srunner_add_suite(sr, suite_expansions());
    srunner_add_suite(sr, suite_record());
    srunner_add_suite(sr, suite_replay());
    srunner_add_suite(sr, suite_protocol());
    srunner_add_suite(sr, suite_room());
    srunner_add_suite(sr, suite_store());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
