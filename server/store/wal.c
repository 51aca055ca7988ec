/* store/wal.c: SQLite's write-ahead log read the way SQLite's recovery reads
 * it, to learn what that recovery would drop (store.h "start-up checks").
 * SQLite keeps the frames up to the last commit before the first frame that
 * does not check, and says nothing of the rest: carcd looks first.
 *
 * Written from the documented format (https://www.sqlite.org/fileformat2.html
 * "The Write-Ahead Log File Format"), without SQLite:
 *
 *   header, 32 bytes, big-endian: magic 0x377f0682 (checksums over
 *   little-endian words) or 0x377f0683 (over big-endian words), version
 *   3007000, page size, checkpoint sequence, salt-1, salt-2, checksum-1,
 *   checksum-2 (over the header's first 24 bytes)
 *   frames: 24 bytes (page number, the database's size in pages after a
 *   commit or 0 before one, salt-1, salt-2, checksum-1, checksum-2), then
 *   the page. A frame's checksum runs on from the one before it (the
 *   header's for the first) over the frame's first 8 bytes and its page.
 *
 * A frame checks when its salts are the header's, its page number is not 0
 * and its checksum matches. After a checkpoint the next writer starts the log
 * over from the top with new salts: the older frames beyond the new ones keep
 * the old salts and are nobody's loss. Frames with the header's salts after
 * the first frame that fails are the ones a damaged log loses. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "util/mem.h"

#define WAL_HDR 32
#define WAL_FRAME_HDR 24
#define WAL_MAGIC 0x377f0682u
#define WAL_VERSION 3007000u

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* SQLite's checksum (walChecksumBytes): over n bytes (a multiple of 8) as
 * pairs of 32-bit words, running on from s. */
static void cksum(int big, const uint8_t *a, size_t n, uint32_t s[2])
{
    uint32_t s1 = s[0], s2 = s[1];
    for (size_t i = 0; i + 8 <= n; i += 8) {
        s1 += (big ? be32(a + i) : le32(a + i)) + s2;
        s2 += (big ? be32(a + i + 4) : le32(a + i + 4)) + s1;
    }
    s[0] = s1;
    s[1] = s2;
}

static int page_size_ok(uint32_t n)
{
    return n >= 512 && n <= 65536 && (n & (n - 1)) == 0;
}

/* Exactly n bytes at off, or -1: a read error (errno), or the file ended
 * (errno 0). */
static int read_at(int fd, void *buf, size_t n, off_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            errno = 0;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* The header: 0 with *big, salts and the running checksum when it checks,
 * else -1 with w->why. */
static int header_read(const uint8_t *h, struct store_wal *w, int *big, uint32_t salt[2],
                       uint32_t s[2])
{
    uint32_t magic = be32(h);
    if ((magic & ~1u) != WAL_MAGIC) {
        w->why = "its header has no WAL magic number";
        return -1;
    }
    if (be32(h + 4) != WAL_VERSION || !page_size_ok(be32(h + 8))) {
        w->why = "its header has an unknown version or page size";
        return -1;
    }
    *big = (int)(magic & 1);
    s[0] = s[1] = 0;
    cksum(*big, h, 24, s);
    if (s[0] != be32(h + 24) || s[1] != be32(h + 28)) {
        w->why = "its header's checksum does not match";
        return -1;
    }
    salt[0] = be32(h + 16);
    salt[1] = be32(h + 20);
    return 0;
}

/* Why frame f (its 24-byte header, then its page) does not check, or NULL
 * when it does (s then runs on over it). */
static const char *frame_check(const uint8_t *f, size_t page, int big, const uint32_t salt[2],
                               uint32_t s[2])
{
    if (be32(f + 8) != salt[0] || be32(f + 12) != salt[1])
        return "its salts are not the header's";
    if (be32(f) == 0)
        return "its page number is 0";
    uint32_t t[2] = {s[0], s[1]};
    cksum(big, f, 8, t);
    cksum(big, f + WAL_FRAME_HDR, page, t);
    if (t[0] != be32(f + 16) || t[1] != be32(f + 20))
        return "its checksum does not match";
    s[0] = t[0];
    s[1] = t[1];
    return NULL;
}

/* Every whole frame of fd, in order, into w (see store.h). */
static int frames_scan(int fd, const uint8_t *hdr, int hdr_ok, int big, uint32_t salt[2],
                       uint32_t s[2], struct store_wal *w, char *err, size_t errlen)
{
    size_t page = be32(hdr + 8), fsz = WAL_FRAME_HDR + page;
    uint8_t *f = mem_alloc(fsz);
    int checking = hdr_ok, rc = 0, bad_commit = 0;
    if (!hdr_ok)
        w->first_bad = 0;
    for (long i = 0; i < w->frames; i++) {
        if (read_at(fd, f, fsz, WAL_HDR + (off_t)i * (off_t)fsz) != 0) {
            snprintf(err, errlen, "cannot read frame %ld of the log: %s", i + 1,
                     errno != 0 ? strerror(errno) : "it is shorter than it was");
            rc = -1;
            break;
        }
        int commit = be32(f + 4) != 0;
        if (i == 0 && !hdr_ok) { /* the first frame is always of the log's current round */
            salt[0] = be32(f + 8);
            salt[1] = be32(f + 12);
        }
        if (checking) {
            const char *why = frame_check(f, page, big, salt, s);
            if (why == NULL) {
                if (commit) {
                    w->valid = i + 1;
                    w->commits++;
                }
                continue;
            }
            checking = 0;
            w->first_bad = i;
            w->why = why;
            bad_commit = commit;
        }
        if (be32(f + 8) == salt[0] && be32(f + 12) == salt[1]) {
            w->lost_frames++;
            w->lost_commits += commit;
        }
    }
    free(f);
    /* Only the first bad frame is a commit of this round, and earlier rounds
     * may lie under it (the checkpoint sequence is not 0): a crash between
     * the two writes of a commit frame (its header, then its page) leaves
     * exactly this, the new header over an old page, and that transaction was
     * never acknowledged. */
    w->torn = hdr_ok && bad_commit && w->lost_commits == 1 && be32(hdr + 12) != 0;
    return rc;
}

int store_wal_scan(const char *path, struct store_wal *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->first_bad = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    uint8_t hdr[WAL_HDR];
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    w->exists = 1;
    w->size = (long long)st.st_size;
    if (w->size < WAL_HDR) { /* empty (new, or truncated by a checkpoint): nothing to lose */
        close(fd);
        return 0;
    }
    if (read_at(fd, hdr, WAL_HDR, 0) != 0) {
        snprintf(err, errlen, "cannot read %s: %s", path,
                 errno != 0 ? strerror(errno) : "it is shorter than it was");
        close(fd);
        return -1;
    }
    int big = 0;
    uint32_t salt[2] = {0, 0}, s[2] = {0, 0};
    int hdr_ok = header_read(hdr, w, &big, salt, s) == 0;
    if (!hdr_ok && !page_size_ok(be32(hdr + 8))) {
        /* No frame can be told apart: all of it is lost, if it held any. */
        w->header_bad = w->size > WAL_HDR;
        close(fd);
        return 0;
    }
    w->page_size = (int)be32(hdr + 8);
    w->frames = (long)((w->size - WAL_HDR) / (WAL_FRAME_HDR + w->page_size));
    if (!hdr_ok) {
        w->header_bad = w->frames > 0;
        big = (int)(be32(hdr) & 1);
    }
    int rc = frames_scan(fd, hdr, hdr_ok, big, salt, s, w, err, errlen);
    close(fd);
    if (rc == 0 && !store_wal_damaged(w) && !w->torn)
        w->first_bad = -1; /* an old round's frames, or a write cut short: nothing committed */
    return rc;
}

/* A header that names no page size hides whatever follows it; otherwise only
 * commits count: frames without one were never acknowledged, nor was a
 * commit torn by the crash. */
int store_wal_damaged(const struct store_wal *w)
{
    return (w->header_bad && w->page_size == 0) || (w->lost_commits > 0 && !w->torn);
}
