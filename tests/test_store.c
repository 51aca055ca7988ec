/* Placeholder until the store suite lands: replace, do not keep. */
#include "tests.h"

Suite *suite_store(void)
{
    return suite_create("store");
}
