#!/usr/bin/env bash
# Builds the release binaries as they are deployed (scripts/build-release.sh, as scripts/serve.sh does) and runs
# rampart-bench. Arguments go to rampart-bench:
#
#   bash scripts/bench.sh               every benchmark
#   bash scripts/bench.sh seal          1 GiB file encryption against cp, dd and age (RAMPART_BENCH_SEAL_MB to change)
#   bash scripts/bench.sh service       rampart serve driven by rampart-load (RAMPART_BENCH_POSTGRES_URL for PostgreSQL)
#   bash scripts/bench.sh service --setup sqlite --flow two-round-trips --concurrency 64
#                                       one run of its matrix (--setup, --flow, --concurrency: each repeatable)
#   bash scripts/bench.sh --help        the list
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh
if ! command -v age >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing age (the seal benchmark's peer)" >&2
    $sudo apt-get install -y -qq --no-install-recommends age >/dev/null || echo "bench.sh: age not installed" >&2
fi
bash scripts/build-release.sh rampart rampart-bench rampart-load
exec .build/release/rampart-bench "$@"
