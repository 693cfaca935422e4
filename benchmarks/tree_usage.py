"""Run a command and report its wall time, the CPU time of its whole process tree and the
peak memory of the tree (RSS and PSS summed over its processes, sampled every 50 ms).

Usage:
    python benchmarks/tree_usage.py puzzlesat solve rubik FILE --workers 2

RSS counts pages shared between processes once per process; PSS divides them among the
processes sharing them (Linux ``/proc/PID/smaps_rollup``), so it is the fairer total.  The
CPU time is that of every descendant the command waited for (``RUSAGE_CHILDREN``).
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time

import psutil

SAMPLE = 0.05  # seconds between samples


def pss(pid: int) -> int:
    """Proportional set size of a process in bytes (0 if it is gone or unreadable)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def main(argv: list[str]) -> int:
    """Run ``argv``, print its output's last lines and the figures."""
    if not argv:
        sys.exit(__doc__)
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    root = psutil.Process(proc.pid)
    peak_rss = peak_pss = most = 0
    while proc.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            break
        rss = 0
        for p in tree:
            try:
                rss += p.memory_info().rss
            except psutil.Error:
                pass
        peak_rss = max(peak_rss, rss)
        peak_pss = max(peak_pss, sum(pss(p.pid) for p in tree))
        most = max(most, len(tree))
        time.sleep(SAMPLE)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    for text in (out, err):
        if text.strip():
            print(text.strip().splitlines()[-1])
    print(
        f"wall {wall:.2f} s, CPU of the tree {cpu:.2f} s, peak RSS {peak_rss / 1e9:.2f} GB, "
        f"peak PSS {peak_pss / 1e9:.2f} GB, processes {most}, exit {proc.returncode}"
    )
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
