/* Placeholder until the protocol suite lands: replace, do not keep. */
#include "tests.h"

Suite *suite_protocol(void)
{
    return suite_create("protocol");
}
