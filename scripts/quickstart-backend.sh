#!/usr/bin/env bash
# The backend path on one machine, in minutes: `rampart serve` with docs/examples/rampart.json, the example upstream
# (docs/examples/upstream.py) and nginx with docs/examples/nginx.conf, all on loopback, and a simulated App Attest
# device (`rampart device`) whose app matches the service's configuration. HTTP Basic (alice / secret) stands in for
# your own authentication, as in the nginx example.
#
#   bash scripts/quickstart-backend.sh           start the three, print the commands to try, run until Ctrl-C
#   bash scripts/quickstart-backend.sh --check   play the path once and stop: register a key through nginx, use
#                                                points with a signed request, see it refused unsigned and through '..;';
#                                                exit 0 when every answer is the expected one
#
# Ports (the example files' own): nginx 8000, rampart 8080 (admin 8081), the upstream 9000; override them with
# QUICKSTART_NGINX_PORT, QUICKSTART_RAMPART_PORT, QUICKSTART_ADMIN_PORT and QUICKSTART_UPSTREAM_PORT. Everything
# lives in .quickstart/ (QUICKSTART_DIR): the database, the device, nginx's files and each process's log. Delete it
# to start over. RAMPART_BIN names a directory holding rampart and rampart-service (default: a release build, made
# by scripts/build-release.sh as scripts/serve.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
check=false
[ "${1:-}" = "--check" ] && check=true
source scripts/install-deps.sh
if [ -z "${RAMPART_BIN:-}" ]; then
    bash scripts/build-release.sh rampart
    RAMPART_BIN="$PWD/.build/release"
fi
rampart="$RAMPART_BIN/rampart"
nginx_port=${QUICKSTART_NGINX_PORT:-8000}
rampart_port=${QUICKSTART_RAMPART_PORT:-8080}
admin_port=${QUICKSTART_ADMIN_PORT:-8081}
upstream_port=${QUICKSTART_UPSTREAM_PORT:-9000}
dir=$(realpath -m "${QUICKSTART_DIR:-.quickstart}")
mkdir -p "$dir/nginx"

pids=()
stop() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap stop EXIT

# Waits until something answers on 127.0.0.1:$1, or fails naming the log to read.
wait_for() {
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "quickstart: nothing listens on 127.0.0.1:$1 after 10 s; see $2" >&2
    exit 1
}

# The device: a simulated Apple App Attest CA whose root the service trusts, and the app it plays.
if [ ! -f "$dir/device/device.json" ]; then
    "$rampart" device init "$dir/device" --team-id ABCDE12345 --bundle-id com.example.app \
        --environment development >/dev/null
fi

# The service: the example configuration, with the device's root and environment and the ports above.
python3 - "$dir" "$rampart_port" "$admin_port" <<'PY'
import json, sys
directory, port, admin = sys.argv[1], sys.argv[2], sys.argv[3]
config = json.load(open("docs/examples/rampart.json"))
config.update({
    "listen": f"127.0.0.1:{port}", "adminListen": f"127.0.0.1:{admin}",
    "database": f"sqlite:{directory}/rampart.db", "environment": "development",
    "root": f"{directory}/device/ca/root.pem",
})
json.dump(config, open(f"{directory}/rampart.json", "w"), indent=2)
PY
"$rampart" serve --config "$dir/rampart.json" 2>"$dir/rampart.log" >/dev/null &
pids+=($!)
python3 docs/examples/upstream.py "$upstream_port" >"$dir/upstream.log" 2>&1 &
pids+=($!)

# nginx: the example site as printed in the backend guide, inside a main configuration that keeps its files here.
printf 'alice:{PLAIN}secret\n' >"$dir/nginx/api.htpasswd"
sed -e "s|listen 127.0.0.1:8000;|listen 127.0.0.1:$nginx_port;|" -e "s|127.0.0.1:8080|127.0.0.1:$rampart_port|" \
    -e "s|127.0.0.1:9000|127.0.0.1:$upstream_port|" -e "s|/etc/nginx/api.htpasswd|$dir/nginx/api.htpasswd|" \
    docs/examples/nginx.conf >"$dir/nginx/site.conf"
cat >"$dir/nginx/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log notice;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/nginx/client_body;
    proxy_temp_path $dir/nginx/proxy;
    fastcgi_temp_path $dir/nginx/fastcgi;
    uwsgi_temp_path $dir/nginx/uwsgi;
    scgi_temp_path $dir/nginx/scgi;
    include $dir/nginx/site.conf;
}
EOF
nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -e "$dir/nginx/error.log" &
pids+=($!)
wait_for "$rampart_port" "$dir/rampart.log"
wait_for "$upstream_port" "$dir/upstream.log"
wait_for "$nginx_port" "$dir/nginx/error.log"

gateway="http://127.0.0.1:$nginx_port"
user="Authorization: Basic $(printf 'alice:secret' | base64)"
if ! $check; then
    cat <<EOF
Rampart is checking every request nginx receives on $gateway (logs in $dir). Try, as the user alice:

  $rampart device register --dir $dir/device --server $gateway -H '$user'
  $rampart device request --dir $dir/device --server $gateway -H '$user' -i \\
      POST /api/points/use --data '{"amount":100}'
  curl -si -u alice:secret '$gateway/api/points/use' -X POST --data '{"amount":100}'     # unsigned: 401
  curl -si -u alice:secret '$gateway/api/feed/..;/points/balance'                         # 403 invalidTarget
  $rampart routes --config $dir/rampart.json GET /api/feed/today

Ctrl-C stops nginx, the upstream and rampart serve.
EOF
    wait
    exit 0
fi

# --check: the path, answer by answer.
expect() {
    local what=$1 wanted=$2 got=$3
    if [ "$got" != "$wanted" ]; then
        echo "quickstart: $what answered $got, expected $wanted (logs in $dir)" >&2
        exit 1
    fi
    echo "ok  $what: $got"
}
"$rampart" device register --dir "$dir/device" --server "$gateway" -H "$user" >/dev/null
# The whole answer first: cutting the pipe after its status line would end rampart with SIGPIPE.
answer=$("$rampart" device request --dir "$dir/device" --server "$gateway" -H "$user" -i \
    POST /api/points/use --data '{"amount":100}')
status=$(printf '%s\n' "$answer" | awk 'NR == 1 {print $2}')
expect "a signed request through nginx" 200 "$status"
status=$(curl -s -o /dev/null -w '%{http_code}' -u alice:secret -X POST --data '{"amount":100}' \
    "$gateway/api/points/use")
expect "the same request unsigned" 401 "$status"
status=$(curl -s -o /dev/null -w '%{http_code}' -u alice:secret "$gateway/api/feed/..;/points/balance")
expect "'..;' towards a stricter route" 403 "$status"
status=$(curl -s -o /dev/null -w '%{http_code}' "$gateway/api/health")
expect "no authentication at all" 401 "$status"
echo "the backend path works: only the registered app's signed requests reach the upstream"
