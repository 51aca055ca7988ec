/* carc-verify: check that a game record's draw was fair (PROTOCOL.md "The fair draw").
 *
 * Usage: carc-verify FILE     (FILE "-" reads standard input)
 *
 * Recomputes from the record alone: the commitment (SHA-256 of the secret), the seed (derived
 * from the secret and every player's entropy), and the draw order (the engine deals from that
 * seed and replays the moves: every move's tile must be the one drawn). Prints one line:
 *   verified: ...                      exit 0
 *   FAILED: <what does not match>      exit 1
 *   not verifiable: no commitment      exit 1 (a record from before the fair draw)
 *   not a valid record: <why>          exit 1 (unreadable, malformed)
 * and 64 for a usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fair.h"
#include "record_json.h"
#include "tool_io.h"

#define EX_USAGE 64

/* The game is large (board and union-find arrays): keep it off the stack. */
static struct carc_game game;
static struct carc_record rec;

int main(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fprintf(stderr, "usage: carc-verify FILE\n"
                        "  Checks the fair draw of the game record in FILE (\"-\" for standard\n"
                        "  input): commitment, seed derivation and draw order. Exit 0 when\n"
                        "  verified, 1 when not (the reason is printed).\n");
        return EX_USAGE;
    }
    const char *path = argv[1];
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        printf("not a valid record: cannot open %s\n", path);
        return 1;
    }
    size_t len = 0;
    char *text = tool_input_read(f, PROTO_RECORD_MAX_BYTES, &len);
    if (f != stdin)
        fclose(f);
    if (text == NULL) {
        printf("not a valid record: cannot read %s\n", path);
        return 1;
    }
    struct proto_error perr;
    proto_error_init(&perr);
    int rc = proto_record_load(text, len, 0, &rec, &perr);
    free(text);
    if (rc != 0) {
        printf("not a valid record: %s: %s\n", carc_err_name(perr.code), perr.text);
        return 1;
    }
    char why[512];
    int v = carc_fair_verify(&rec, &game, why, sizeof why);
    if (v == CARC_FAIR_VERIFIED)
        printf("verified: %s\n", why);
    else if (v == CARC_FAIR_NONE)
        printf("%s\n", why);
    else
        printf("FAILED: %s\n", why);
    return v == CARC_FAIR_VERIFIED ? 0 : 1;
}
