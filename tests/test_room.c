/* Placeholder until the room suite lands: replace, do not keep. */
#include "tests.h"

Suite *suite_room(void)
{
    return suite_create("room");
}
