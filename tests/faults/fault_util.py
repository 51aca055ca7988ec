"""Measurements the fault modules share: a process's CPU share over a window, and lines of
its log that match."""

import os
import re
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid):
    """utime + stime of pid, in clock ticks (/proc/PID/stat fields 14 and 15)."""
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]) + int(rest[12])


def cpu_share(pid, seconds):
    """The fraction of one core pid used over the next `seconds` (1.0 = a whole core)."""
    t0, c0 = time.monotonic(), cpu_ticks(pid)
    time.sleep(seconds)
    t1, c1 = time.monotonic(), cpu_ticks(pid)
    return (c1 - c0) / CLK_TCK / (t1 - t0)


def lines_matching(server, needle, since=0):
    """server.lines[since:] that contain needle."""
    return [ln for ln in server.lines[since:] if needle in ln]


SUPPRESSED_RE = re.compile(r"\((\d+) more like this suppressed\)")


def lines_counted(server, needle, since=0):
    """How many lines containing needle carcd meant to log: those written, plus the ones its
    rate limit held back and counted on a later line (server/util/log.h: "(N more like this
    suppressed)"). A line that only reports held-back ones may come as late as a second after."""
    n = 0
    for ln in lines_matching(server, needle, since):
        m = SUPPRESSED_RE.search(ln)
        n += 1 + (int(m.group(1)) if m else 0)
    return n
