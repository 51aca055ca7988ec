/* fuzz_msg.c: libFuzzer harness for the client-message decoder
 * (proto_msg_decode, protocol/msg.c). The input is one message's text; a
 * decoded message's id is echoed through the error encoder as a reply would. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct proto_msg m;
    struct proto_error err;
    int rc = proto_msg_decode((const char *)data, size, &m, &err);
    free(proto_encode_error(rc < 0 ? rc : CARC_E_INVAL, "fuzz", m.id));
    return 0;
}
