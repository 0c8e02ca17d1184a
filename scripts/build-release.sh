#!/usr/bin/env bash
# Builds release products the way they are deployed; sourced or run by serve.sh and bench.sh.
#
#   bash scripts/build-release.sh rampart rampart-bench
#
# `rampart` comes with `rampart-service` (serve and demo, with libpq and libcurl), which it runs for
# those commands; install both side by side.
#
# - --static-swift-stdlib: the Swift runtime and Foundation are linked into the binary, so it needs no toolchain
#   at run time, starts faster and maps only the parts of Foundation it uses (about 5 MB less resident memory).
# - lld with -z pack-relative-relocs (DT_RELR, glibc 2.36+): the position-independent binary keeps its address-space
#   randomisation, but its ~500,000 relative relocations are stored in 15 KB instead of 1.9 MB that every start
#   would read (about 2.5 MB less resident memory).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
release_flags=(-c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
# `rampart` runs `rampart-service` (next to it) for serve and demo, so asking for one builds both.
products=()
for product in "$@"; do
    products+=("$product")
    if [[ "$product" == rampart ]]; then products+=(rampart-service); fi
done
for product in "${products[@]}"; do
    swift build "${release_flags[@]}" --product "$product"
done
