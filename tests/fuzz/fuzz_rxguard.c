/* fuzz_rxguard.c: libFuzzer harness for server/conn/rxguard.c. The input's first
 * byte picks a read size (1 to 255 bytes; 0: the rest at once), the rest is a
 * client's byte stream: up to its first "\r\n\r\n" the upgrade request, then
 * frames. The scanner, fed the stream in reads of that size, must agree with
 * a plain parser over the whole buffer written here: the same verdict on
 * bytes before the handshake's answer, and the same first unmasked frame (its
 * header's second byte), or none. Any disagreement aborts. The same stream is
 * also fed with bounds on request heads (small ones, so that they are met):
 * a verdict is one of the statuses rxguard.h names, and nothing follows it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conn/rxguard.h"
#include "err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Offset of the header byte that shows the first unmasked frame in p[0..n),
 * or n when every whole or partial frame there is masked. */
static size_t first_unmasked(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i + 1 < n) {
        if (!(p[i + 1] & 0x80))
            return i + 1;
        uint64_t len = p[i + 1] & 0x7f;
        size_t ext = len == 126 ? 2 : len == 127 ? 8 : 0;
        if (i + 2 + ext > n)
            return n;
        if (ext > 0) {
            len = 0;
            for (size_t k = 0; k < ext; k++)
                len = len << 8 | p[i + 2 + k];
        }
        if (len >= n)
            return n; /* the frame runs past the buffer (and no sum overflows) */
        uint64_t next = (uint64_t)i + 2 + ext + 4 + len;
        if (next >= n)
            return n;
        i = (size_t)next;
    }
    return n;
}

/* The stream in reads of step bytes with bounds on heads: each read 0, or one
 * verdict (then done); the verdict a status of rxguard.h's with a reason. */
static void heads_judged(const uint8_t *p, size_t n, size_t step)
{
    static uint64_t known[2];
    known[0] = rxguard_name_hash("host", 4);
    known[1] = rxguard_name_hash("upgrade", 7);
    if (known[0] > known[1]) {
        uint64_t t = known[0];
        known[0] = known[1];
        known[1] = t;
    }
    static const struct rxguard_http_limits lim = {64, 4, 6, 32, 256, known, 2};
    struct rxguard g;
    rxguard_http_start(&g, &lim);
    for (size_t i = 0, k; i < n; i += k) {
        k = n - i < step ? n - i : step;
        int rc = rxguard_bytes_scan(&g, p + i, k);
        if (rc == 0)
            continue;
        if (rc != CARC_E_TOO_BIG || g.mode != RXGUARD_DONE || g.why == NULL ||
            (g.status != 400 && g.status != 414 && g.status != 431))
            abort();
        if (i + k < n && rxguard_bytes_scan(&g, p + i + k, n - i - k) != 0)
            abort(); /* nothing after a verdict */
        return;
    }
    if (g.mode != RXGUARD_HTTP || g.head >= lim.head_max || g.target >= lim.target_max)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t step = data[0] ? data[0] : SIZE_MAX;
    const uint8_t *p = data + 1;
    size_t n = size - 1, head = n;
    heads_judged(p, n, step);
    for (size_t i = 0; i + 3 < n; i++)
        if (memcmp(p + i, "\r\n\r\n", 4) == 0) {
            head = i + 4;
            break;
        }
    struct rxguard g;
    rxguard_http_start(&g, NULL); /* no bounds on heads: HTTP mode never reports */
    for (size_t i = 0, k; i < head; i += k) {
        k = head - i < step ? head - i : step;
        if (rxguard_bytes_scan(&g, p + i, k) != 0)
            abort(); /* HTTP mode never reports */
    }
    if (head == n) {
        /* No end of headers, or nothing after it: the handshake is fine only
         * when the stream ends right after a blank line (or nothing came). */
        int ok = n == 0 || (n >= 4 && memcmp(p + n - 4, "\r\n\r\n", 4) == 0);
        if ((rxguard_ws_start(&g) == 0) != ok)
            abort();
        return 0;
    }
    /* Frames right behind the request: refused, unless fed after the start. */
    struct rxguard early = g;
    if (rxguard_ws_start(&g) != 0)
        abort();
    rxguard_bytes_scan(&early, p + head, 1);
    if (rxguard_ws_start(&early) != CARC_E_INVAL)
        abort();
    size_t want = first_unmasked(p + head, n - head), got = n - head;
    for (size_t i = head, k; i < n; i += k) {
        k = n - i < step ? n - i : step;
        uint64_t before = g.total;
        if (rxguard_bytes_scan(&g, p + i, k) != 0) {
            /* Reported in this read: the unmasked header byte is in it. */
            got = (size_t)(before - head);
            if (want < got || want >= got + k)
                abort();
            return 0;
        }
    }
    if (want != got)
        abort();
    return 0;
}
