#!/usr/bin/env bash
# Installs the Debian 12 packages Rampart builds and tests against. Safe to run repeatedly: packages already present
# are skipped without touching the network.
set -euo pipefail

packages=(
    libssl-dev openssl          # every primitive, X.509 path validation, TLS
    libsqlite3-dev              # the embedded store
    libpq-dev postgresql        # the shared store and its server for tests
    libsecret-1-dev gnome-keyring dbus-x11 libglib2.0-bin   # the Secret Service backend, tested headless
    libargon2-dev               # Argon2id
    libclang-rt-14-dev          # sanitizer runtimes for the fuzz targets
    libcurl4-openssl-dev        # linking FoundationNetworking statically (release builds use --static-swift-stdlib)
    python3-venv                # the venv of schemathesis and PyJWT (scripts/python-venv.sh)
    nginx caddy python3         # the gateway tests: real nginx (auth_request) and Caddy (forward_auth) in front of
                                # rampart serve and docs/examples/upstream.py, run unprivileged on loopback
    pkg-config ca-certificates curl   # curl: scripts/quickstart-backend.sh
)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing: ${missing[*]}" >&2
    $sudo apt-get update -qq
    # Installing nginx or caddy must not start their system services (port 80 as root): the tests start their own.
    # Debian's invoke-rc.d asks /usr/sbin/policy-rc.d; exit 101 means "do not start". An existing one is kept.
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
        $sudo chmod 755 "$policy"
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    if [ -n "$policy" ]; then $sudo rm -f "$policy"; fi
fi
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"
command -v swift >/dev/null || { echo "swift 6.1+ is required (https://swift.org/install)" >&2; exit 1; }
