#!/usr/bin/env bash
# Runs a command with a private, unlocked GNOME Keyring on a private D-Bus session bus, so the Secret Service tests
# can run headless without touching anyone's real keyring. The keyring lives in a temporary directory that is removed
# afterwards. Without dbus-run-session or gnome-keyring-daemon the command runs as is (those tests then skip).
#
# USAGE: bash scripts/with-keyring.sh swift test [ARGS...]
set -euo pipefail

if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
    echo "with-keyring: dbus-run-session or gnome-keyring-daemon is missing; Secret Service tests will skip" >&2
    exec "$@"
fi

keyring_home=$(mktemp -d)
trap 'rm -rf "$keyring_home"' EXIT
export RAMPART_KEYRING_HOME="$keyring_home"

dbus-run-session -- bash -c '
    set -euo pipefail
    # The daemon keeps its keyrings under its own HOME/XDG dirs: point them at the throwaway directory.
    eval "$(printf %s rampart-test-keyring | env HOME="$RAMPART_KEYRING_HOME" \
        XDG_DATA_HOME="$RAMPART_KEYRING_HOME/data" XDG_CONFIG_HOME="$RAMPART_KEYRING_HOME/config" \
        gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)"
    export GNOME_KEYRING_CONTROL RAMPART_SECRET_SERVICE_TESTS=1
    "$@"
' with-keyring "$@"
