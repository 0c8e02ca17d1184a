#!/usr/bin/env bash
# Bounded libFuzzer runs of every fuzz target; exits non-zero (failing CI) when any target crashes, leaks, times out
# or breaks an invariant.
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET]     default 60; .ci/run passes $RAMPART_FUZZ_SECONDS
#   bash scripts/fuzz.sh 30 FuzzDER               only the named targets
#
# How a target is built
#   Each target is an executable target `Fuzz<Thing>` in Fuzz/Fuzz<Thing>/ or Fuzz/<Thing>/ (declared in Package.swift under
#   "Fuzz targets", depending on FuzzSupport) with one function `check(_ bytes: [UInt8])` that must never crash.
#   - A plain `swift build` / `swift test` builds it as a replay tool: `swift run FuzzDER crash-file-or-dir...`.
#   - This script builds it in release mode (about five times the executions per second of a debug build; overflow
#     checks and preconditions stay on) in its own scratch path (.build/fuzz, so normal builds are not invalidated)
#     with `-sanitize=fuzzer,address -DFUZZING -use-ld=lld`. Under FUZZING the file exports
#     `@_cdecl("LLVMFuzzerTestOneInput")` and an entry point `@_cdecl("<Target>_main")` that calls
#     `FuzzInput.runLibFuzzer` (libFuzzer's LLVMFuzzerRunDriver). The entry point must carry that name because
#     SwiftPM links executables with their entry point renamed to `<Target>_main` and `main` defined as it.
#     lld is used because GNU gold crashes on the sanitizer objects.
#   Copy Fuzz/FuzzDER/FuzzDER.swift for a new target, add it to Package.swift (with `exclude: ["Seeds"]`) and to
#   `targets` below.
#
# Seeds
#   Fuzz/<Target>/Seeds/ (or Fuzz/<Thing>/Seeds/ for a target in Fuzz/<Thing>/) holds small inputs made by us. Each run starts from a copy of them in
#   .build/fuzz/corpus/<Target> (kept between local runs, so coverage accumulates); crashes are written to
#   .build/fuzz/artifacts/<Target>/ and the script prints how to replay them.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"

# The fuzz targets. Add yours here (and in Package.swift).
targets=(
    FuzzDER
    FuzzPEM
    FuzzCertificate
    FuzzSealHeader
    FuzzPublicKey
    FuzzPinConfiguration
    FuzzVaultFile
    FuzzCBOR
    FuzzJSON
    FuzzSwiftLexer
    FuzzObjectiveCLexer
    FuzzRequestHead
    FuzzSignedPinSet
    FuzzAuthenticatorData
    FuzzAttestationObject
    FuzzServiceRouter
    FuzzJWS
    FuzzKeyDescription
)

seconds="${1:-60}"
shift || true
[ $# -gt 0 ] && targets=("$@")
case "$seconds" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]" >&2; exit 2 ;; esac

build_flags=(-c release --scratch-path .build/fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld)
for target in "${targets[@]}"; do
    echo "== building $target (libFuzzer + AddressSanitizer)"
    mkdir -p .build/fuzz
    if ! swift build "${build_flags[@]}" --product "$target" >".build/fuzz/$target.build.log" 2>&1; then
        grep -v -e "Cannot export local symbol" -e "prohibited flag" ".build/fuzz/$target.build.log" | tail -40 >&2
        echo "fuzz.sh: $target did not build" >&2
        exit 1
    fi
done

failed=()
for target in "${targets[@]}"; do
    corpus=".build/fuzz/corpus/$target"
    artifacts=".build/fuzz/artifacts/$target"
    log=".build/fuzz/$target.log"
    mkdir -p "$corpus" "$artifacts"
    for seeds in "Fuzz/$target/Seeds" "Fuzz/${target#Fuzz}/Seeds"; do
        if [ -d "$seeds" ]; then cp -n "$seeds/"* "$corpus/" 2>/dev/null || true; fi
    done
    echo "== fuzzing $target for ${seconds}s (corpus $corpus)"
    # A target may suppress leaks that are not ours (Foundation's own) with Fuzz/<Target>/lsan.supp; each line says why.
    lsan=""
    if [ -f "Fuzz/$target/lsan.supp" ]; then lsan="suppressions=Fuzz/$target/lsan.supp"; fi
    if LSAN_OPTIONS="$lsan" ".build/fuzz/release/$target" "$corpus" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1; then
        grep -E "^(Done|stat::number_of_executed_units|stat::new_units_added)" "$log" | sed "s/^/   /" || true
    else
        echo "!! $target FAILED; last lines of $log:" >&2
        tail -40 "$log" >&2
        echo "!! reproduce with: swift run $target $artifacts/<crash-file>" >&2
        failed+=("$target")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: crashes in: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz.sh: ${#targets[@]} targets, ${seconds}s each, no crash"
