#!/usr/bin/env bash
# The main job. Until the attestation service lands this prints the pins of the sample chain.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh
swift build -c release --product rampart
.build/release/rampart --help
