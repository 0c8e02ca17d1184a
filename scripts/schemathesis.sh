#!/usr/bin/env bash
# Runs schemathesis (PyPI, in a venv) with every check against a live `rampart serve` on loopback: the public
# listener for the app routes, the admin listener (with an operator token) for the operator routes. Any failure
# fails the script. Bounded: a fixed seed, RAMPART_SCHEMATHESIS_EXAMPLES (default 30) examples per operation, and
# each run under 5 minutes.
#
#   bash scripts/schemathesis.sh          after `swift build` (uses .build/debug/rampart; builds it if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

source scripts/python-venv.sh   # schemathesis, PyJWT and cryptography in $venv
"$venv/bin/schemathesis" --version >/dev/null   # fails the script when the install did

rampart=.build/debug/rampart
[ -x "$rampart" ] || swift build --product rampart

work=$(mktemp -d)
serve_pid=""
cleanup() {
    if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# The simulator's root, so the service runs as in the tests; a fresh operator token.
"$rampart" appattest simulate --team-id ABCDE12345 --bundle-id com.example.app --challenge AAAA \
    --out-dir "$work/sim" >/dev/null
python3 -c 'import secrets; print(secrets.token_hex(32))' >"$work/token"
"$rampart" serve --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --db "sqlite:$work/st.db" \
    --team-id ABCDE12345 --bundle-id com.example.app --environment development --root "$work/sim/root.pem" \
    --operator-token-file "$work/token" --subject-header X-User-Id --demo \
    --json >"$work/started.json" 2>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 1 100); do
    grep -q '}' "$work/started.json" 2>/dev/null && break
    kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.1
done
public=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["listening"])' "$work/started.json")
admin=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["admin"])' "$work/started.json")
echo "schemathesis: public $public, admin $admin"

run() {
    timeout 300 "$venv/bin/schemathesis" --config-file scripts/schemathesis/schemathesis.toml \
        run Sources/RampartAttestService/OpenAPI/openapi.json --checks all \
        --max-examples "${RAMPART_SCHEMATHESIS_EXAMPLES:-30}" --seed 1 --generation-database none --no-color "$@"
}
operator_paths='^/(metrics|v1/keys/.*|v1/verify)$'
# The subject comes from the X-User-Id header, as the proxy in front of a real deployment would set it.
run --url "$public" --exclude-path-regex "$operator_paths" -H "X-User-Id: schemathesis"
run --url "$admin" --include-path-regex "$operator_paths" -H "Authorization: Bearer $(cat "$work/token")"
echo "schemathesis: no failures"
