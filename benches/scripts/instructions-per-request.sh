#!/usr/bin/env bash
# Instructions the server executes per request, counted by callgrind: a figure that does not
# drift with the shared cores' load, for comparing two builds of bench-server (or any server
# that prints `addr=<host:port>` and takes `--addr`) on the same path.
#
#   benches/scripts/instructions-per-request.sh BINARY PATH [ACCEPT-ENCODING]
#
# `SERVER_ARGS` adds flags to the server's command line (`SERVER_ARGS='--server bindery'`).
#
# Starts BINARY under valgrind on 127.0.0.1, warms it with 2 s of wrk, zeroes the counters,
# runs 6 s of wrk (one thread, four connections), dumps the counters and prints
# `<instructions> <requests> <instructions per request>`. Needs valgrind and wrk.
set -euo pipefail
binary=$1 path=$2 accept=${3:-}
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
# shellcheck disable=SC2086 # the flags are words
valgrind --tool=callgrind --callgrind-out-file="$work/out.%p" "$binary" --addr 127.0.0.1:0 \
    ${SERVER_ARGS:-} >"$work/log" 2>/dev/null &
server=$!
for _ in $(seq 150); do grep -q 'addr=' "$work/log" && break; sleep 0.2; done
addr=$(grep -o 'addr=[^ ]*' "$work/log" | cut -d= -f2)
[ -n "$addr" ] || { echo "the server did not start" >&2; exit 1; }
headers=()
[ -n "$accept" ] && headers=(-H "Accept-Encoding: $accept")
wrk -t1 -c4 -d2s "${headers[@]}" "http://$addr$path" >/dev/null
callgrind_control -z "$server" >/dev/null 2>&1
requests=$(wrk -t1 -c4 -d6s "${headers[@]}" "http://$addr$path" | grep -o '[0-9]* requests in' | cut -d' ' -f1)
callgrind_control -d "$server" >/dev/null 2>&1
sleep 1
dump=$(ls -v "$work"/out.*.* 2>/dev/null | tail -1)
instructions=$(grep -E '^(totals|summary):' "$dump" | head -1 | awk '{print $2}')
echo "$instructions $requests $((instructions / requests))"
