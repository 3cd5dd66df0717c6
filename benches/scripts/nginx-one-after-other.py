#!/usr/bin/env python3
"""A file against nginx, one server after the other, measured two ways at once.

An independent check of `cargo xtask bench-nginx` (which it does not share code with): nginx
1.22 (one worker, `sendfile on`, `access_log off`) and bindery's `bench-plain --zero-copy`
(`ServeCatalog` on `ZeroCopyListener`), each pinned to core 0, `wrk -t1 -c50` pinned to core 1;
each bindery run right after its nginx run; the median of the pairs' ratios. For every run it
records two figures per request:

- the server's own CPU: user + system time of its processes (`/proc/<pid>/stat`), what
  `bench-nginx` reports;
- core 0's busy time (`/proc/stat`, every field but idle and iowait): the server's CPU plus
  what the kernel does on that core outside any process's account (softirq: the loopback
  receive path of what the server sends, and of wrk's ACKs).

Run from the workspace root after `cargo xtask bench-nginx --only vue` (which installs the bench
binaries in target/bench/bin and writes nginx's document root): python3
benches/scripts/nginx-one-after-other.py [vue|17mib] [pairs] [seconds]. vue is vue.min.js
(105 KiB), 17mib the 17 MiB file of noise. Loopback only, bounded in time.
"""

import os
import re
import signal
import statistics
import subprocess
import sys
import time

# Each file: its path under nginx's root, and under bench-plain's.
FILES = {"vue": ("/vue.min.js", "/web/vue.min.js"), "17mib": ("/noise.bin", "/large/noise.bin")}
FILE = sys.argv[1] if len(sys.argv) > 1 else "vue"
PAIRS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
SECONDS = int(sys.argv[3]) if len(sys.argv) > 3 else 10
if FILE not in FILES:
    sys.exit(f"unknown file {FILE!r}: expected one of {', '.join(FILES)}")
ROOT = os.path.abspath("target/bench/nginx/root")
WORK = os.path.abspath("target/bench/one-after-other")
TICK = os.sysconf("SC_CLK_TCK")


def core0_busy():
    """Core 0's busy ticks: every field of its /proc/stat line but idle and iowait."""
    with open("/proc/stat") as stat:
        for line in stat:
            if line.startswith("cpu0 "):
                fields = [int(value) for value in line.split()[1:]]
                return sum(fields) - fields[3] - fields[4]
    raise RuntimeError("no cpu0 line")


def process_ticks(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(child) for child in listing.read().split()]
    except FileNotFoundError:
        return []


def start_nginx(port):
    os.makedirs(WORK, exist_ok=True)
    conf = os.path.join(WORK, f"nginx-{port}.conf")
    with open(conf, "w") as out:
        out.write(
            "user root;\nworker_processes 1;\ndaemon off;\n"
            f"pid {WORK}/nginx-{port}.pid;\nerror_log {WORK}/error.log warn;\n"
            "events { worker_connections 1024; }\n"
            "http { access_log off; sendfile on; keepalive_requests 100000000; "
            "keepalive_timeout 300s;\n"
            "types { text/javascript js; application/octet-stream bin; }\n"
            f"server {{ listen 127.0.0.1:{port}; root {ROOT}; }} }}\n"
        )
    process = subprocess.Popen(["taskset", "-c", "0", "nginx", "-c", conf],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    return process, f"127.0.0.1:{port}", FILES[FILE][0]


def start_bindery():
    process = subprocess.Popen(["taskset", "-c", "0", "target/bench/bin/bench-plain", "--zero-copy"],
                               stdout=subprocess.PIPE, text=True)
    for line in process.stdout:
        found = re.search(r"addr=(\S+)", line)
        if found:
            return process, found.group(1), FILES[FILE][1]
    raise RuntimeError("bench-plain did not say where it listens")


def run(process, address, path):
    pids = [process.pid] + children(process.pid)
    before = (process_ticks(pids), core0_busy())
    out = subprocess.run(["taskset", "-c", "1", "wrk", "-t1", "-c50", f"-d{SECONDS}s",
                          f"http://{address}{path}"], capture_output=True, text=True).stdout
    after = (process_ticks(pids), core0_busy())
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    per = lambda ticks: ticks / TICK / requests * 1e6
    return per(after[0] - before[0]), per(after[1] - before[1]), requests / SECONDS


def main():
    nginx = start_nginx(18089)
    bindery = start_bindery()
    try:
        for server in (nginx, bindery):  # warm
            run(*server)
        rows = []
        for pair in range(PAIRS):
            reference = run(*nginx)
            contender = run(*bindery)
            rows.append((reference, contender))
            print(f"pair {pair + 1}: nginx {reference[0]:.1f} µs own, {reference[1]:.1f} µs core 0, "
                  f"{reference[2]:.0f} req/s; bindery {contender[0]:.1f} µs own, "
                  f"{contender[1]:.1f} µs core 0, {contender[2]:.0f} req/s", flush=True)
        own = statistics.median(c[0] / r[0] for r, c in rows)
        core = statistics.median(c[1] / r[1] for r, c in rows)
        print(f"{FILE}: median of {PAIRS} pairs, bindery / nginx: own CPU {own:.2f}x, core 0 busy {core:.2f}x")
    finally:
        for process, _, _ in (nginx, bindery):
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=10)


if __name__ == "__main__":
    main()
