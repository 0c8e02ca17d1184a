#!/usr/bin/env bash
# Counts the instructions `rampart serve` spends per protected request: the service runs under callgrind (valgrind)
# while `rampart-bench service` drives it (SQLite, two round trips, concurrency 8), and
# scripts/bench-instructions.py divides the profile by the requests served. Unlike requests/s and CPU time, the
# counts do not move with the host's speed, so they compare two builds on a shared machine:
#
#   bash scripts/bench-instructions.sh            20 s under callgrind (about a minute with the release build)
#   RAMPART_BENCH_SECONDS=40 bash scripts/bench-instructions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
if ! command -v valgrind >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing valgrind" >&2
    $sudo apt-get install -y -qq --no-install-recommends valgrind >/dev/null
fi
source scripts/install-deps.sh
bash scripts/build-release.sh rampart rampart-bench rampart-load
release="$(pwd)/.build/release"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# rampart-bench runs the `rampart` next to itself: here, one that runs the real one under callgrind.
cp "$release/rampart-bench" "$release/rampart-load" "$work/"
cat >"$work/rampart" <<EOF
#!/bin/sh
exec valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$work/callgrind.%p" \
    "$release/rampart" "\$@" 2>>"$work/valgrind.log"
EOF
chmod +x "$work/rampart"
(cd "$work" && ./rampart-bench --seconds "${RAMPART_BENCH_SECONDS:-20}" service --setup sqlite \
    --flow two-round-trips --concurrency 8 >/dev/null)
profiles=("$work"/callgrind.*)
if [ ! -s "${profiles[0]}" ]; then
    echo "bench-instructions: callgrind wrote no profile; valgrind said:" >&2
    tail -20 "$work/valgrind.log" >&2 || true
    exit 1
fi
python3 scripts/bench-instructions.py "${profiles[0]}"
