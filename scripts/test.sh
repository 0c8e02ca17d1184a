#!/usr/bin/env bash
# Runs Rampart's whole test suite on a fresh Debian 12 machine: installs packages, starts a throwaway PostgreSQL
# cluster for the PostgreSQL store tests, builds with warnings as errors, and runs `swift test` inside a private D-Bus
# session with an unlocked throwaway GNOME Keyring (scripts/with-keyring.sh) for the Secret Service tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh
source scripts/postgres.sh
source scripts/python-venv.sh   # PyJWT for the token interoperability tests (and schemathesis)

swift package dump-package | python3 scripts/check-app-dependencies.py   # issue #11: nothing an app adds reaches a C library
python3 scripts/check-apple-build.py   # issue #26: each declared Apple platform compiles the app-side modules (self-test first)
swift build --build-tests -Xswiftc -warnings-as-errors \
    --explicit-target-dependency-import-check error -Xswiftc -require-explicit-sendable
bash scripts/with-keyring.sh swift test --skip-build --parallel --num-workers 2 "$@"
