#!/usr/bin/env bash
# The main job. Until the attestation service lands this prints the subject, issuer and SPKI pin of every certificate
# in the committed sample chain (Examples/sample-chain.pem, made by scripts/make-sample-chain.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh
swift build -c release --product rampart
.build/release/rampart pins Examples/sample-chain.pem
