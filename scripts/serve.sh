#!/usr/bin/env bash
# The main job: builds `rampart` and runs the App Attest service (`rampart serve`) on the embedded SQLite store.
#
#   bash scripts/serve.sh                          127.0.0.1:8080, ./rampart.db (WAL), Apple's App Attest root
#   RAMPART_TEAM_ID=ABCDE12345 RAMPART_BUNDLE_ID=com.example.app bash scripts/serve.sh     your app's identity
#   RAMPART_LISTEN=0.0.0.0:8080 RAMPART_DB=/var/lib/rampart/attest.db bash scripts/serve.sh
#   RAMPART_SUBJECT_HEADER=X-Authenticated-User bash scripts/serve.sh   the header your proxy sets (default X-User-Id)
#   bash scripts/serve.sh --config serve.json      any `rampart serve` options replace the defaults above
#
# SIGTERM or Ctrl-C drains the requests in flight and exits 0. `rampart demo` plays the whole flow on a simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh
bash scripts/build-release.sh rampart
if [ $# -eq 0 ]; then
    set -- --listen "${RAMPART_LISTEN:-127.0.0.1:8080}" --db "sqlite:${RAMPART_DB:-rampart.db}" \
        --team-id "${RAMPART_TEAM_ID:-ABCDE12345}" --bundle-id "${RAMPART_BUNDLE_ID:-com.example.app}" \
        --environment "${RAMPART_ENVIRONMENT:-production}" \
        --subject-header "${RAMPART_SUBJECT_HEADER:-X-User-Id}"
    [ -n "${RAMPART_TEAM_ID:-}" ] ||
        echo "serve.sh: serving the example app ABCDE12345.com.example.app; set RAMPART_TEAM_ID and RAMPART_BUNDLE_ID" \
            "for yours; the subject is the ${RAMPART_SUBJECT_HEADER:-X-User-Id} header, which your proxy must set and" \
            "strip from clients (try '.build/release/rampart demo' for the whole flow)" >&2
fi
exec .build/release/rampart serve "$@"
