#!/usr/bin/env bash
# serve-bench.sh — how fast does docsd serve a built page, next to nginx?
#
# Builds docsd, prepares a data directory with one public project whose
# `latest` version has one published page (about 20 KB of HTML), starts
# `docsd serve` and nginx on loopback ports, both serving that same file at
# /docs/bench/en/latest/index.html, and runs wrk against each in turn with
# the same threads, connections and duration. Prints both rates and their
# ratio. Everything runs on 127.0.0.1 and is stopped on exit.
#
#   hosting/bench/serve-bench.sh            # 10 s per server, 2 threads, 64 connections
#   DURATION=30s CONNECTIONS=128 hosting/bench/serve-bench.sh
#
# Needs: go, wrk, nginx (Debian: wrk, nginx-light), curl.
set -euo pipefail

DURATION=${DURATION:-10s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
WARMUP=${WARMUP:-2s}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
for tool in go wrk curl; do
	command -v "$tool" >/dev/null || { echo "serve-bench: $tool is not installed" >&2; exit 1; }
done
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
[ -x "$NGINX" ] || { echo "serve-bench: nginx is not installed" >&2; exit 1; }

work=$(mktemp -d -t docsd-bench.XXXXXX)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

echo "building docsd…"
(cd "$repo" && go build -o "$work/docsd" ./cmd/docsd && go build -o "$work/setup" ./hosting/bench/setup)
"$work/setup" -data-dir "$work/data" >"$work/setup.env"
# shellcheck disable=SC1091
source "$work/setup.env"
chmod -R a+rX "$work" # nginx workers may run as another user

"$work/docsd" serve --data-dir "$work/data" --addr "127.0.0.1:$DOCSD_PORT" --build-workers 0 \
	--log-format json 2>"$work/docsd.log" &
pids+=($!)

mkdir -p "$work/nginx"
user_line=""
[ "$(id -u)" = 0 ] && user_line="user root;"
cat >"$work/nginx/nginx.conf" <<EOF
$user_line
daemon off;
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	access_log $work/nginx/access.log;
	sendfile on;
	tcp_nopush on;
	client_body_temp_path $work/nginx/body;
	proxy_temp_path $work/nginx/proxy;
	fastcgi_temp_path $work/nginx/fastcgi;
	uwsgi_temp_path $work/nginx/uwsgi;
	scgi_temp_path $work/nginx/scgi;
	server {
		listen 127.0.0.1:$NGINX_PORT;
		location /docs/bench/en/latest/ {
			alias $TREE/;
		}
	}
}
EOF
"$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids+=($!)

wait_for() {
	for _ in $(seq 100); do
		curl -sf -o /dev/null "$1" && return 0
		sleep 0.1
	done
	echo "serve-bench: $1 does not answer" >&2
	exit 1
}
docsd_url="http://127.0.0.1:$DOCSD_PORT$PAGE"
nginx_url="http://127.0.0.1:$NGINX_PORT$PAGE"
wait_for "$docsd_url"
wait_for "$nginx_url"
curl -sf "$docsd_url" >"$work/docsd.page"
curl -sf "$nginx_url" >"$work/nginx.page"
cmp -s "$work/docsd.page" "$work/nginx.page" || { echo "serve-bench: the two servers answer different bytes" >&2; exit 1; }
size=$(wc -c <"$work/docsd.page")

rate() { awk '/^Requests\/sec:/ { print $2 }' "$1"; }
bench() { # name url
	wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$2" >/dev/null
	wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$2" >"$work/$1.wrk"
	echo "== $1: $2"
	cat "$work/$1.wrk"
}
bench docsd "$docsd_url"
bench nginx "$nginx_url"
for name in docsd nginx; do
	if grep -q "Non-2xx" "$work/$name.wrk"; then
		echo "serve-bench: $name answered errors under load" >&2
		exit 1
	fi
done

docsd_rps=$(rate "$work/docsd.wrk")
nginx_rps=$(rate "$work/nginx.wrk")
echo
echo "page: $size bytes; wrk -t$THREADS -c$CONNECTIONS -d$DURATION on $(nproc) CPUs, same machine"
printf "docsd  %12.0f requests/s\n" "$docsd_rps"
printf "nginx  %12.0f requests/s\n" "$nginx_rps"
awk -v d="$docsd_rps" -v n="$nginx_rps" 'BEGIN { printf "ratio  %12.2f (docsd / nginx)\n", d / n }'
