#!/usr/bin/env bash
# serve-bench.sh — how fast does docsd serve built docs, next to nginx?
#
# Builds docsd, prepares published versions (setup/: a 20 KB Sphinx-like
# page, a 2 KB page, a 290 KB script with its .gz for nginx's gzip_static,
# a custom 404 page, a page redirect, and a second project without a 404
# page), starts `docsd serve` and nginx on loopback ports, both answering
# the same URLs from the same files, and runs wrk against each in turn —
# docsd, nginx, docsd, nginx, … (ROUNDS times each) — for every request
# below, on SQLite and on PostgreSQL. Prints each rate and the ratio
# docsd / nginx (the mean of the rounds), and each server's CPU time per
# request. With BEFORE_BIN, another docsd
# build (say, main's) runs beside them on the same data and takes its turn
# in every round too, so that "before" and "after" are measured in the
# same run. Everything runs on 127.0.0.1 and is stopped on exit.
#
#   internal/hosting/bench/serve-bench.sh                  # 5 s per run, 2 rounds, -t2 -c64
#   DURATION=10s ROUNDS=3 DATABASES=sqlite internal/hosting/bench/serve-bench.sh
#
# USER_AGENT: the User-Agent every request sends, by default a browser's,
# so that docsd counts the pages' views as a reader's (docs/user-guide/
# analytics.md); the baseline without counting is the same docsd with
# --analytics=false as BEFORE_BIN (a script that runs it with that flag).
#
# DATABASES: "sqlite postgres" (default; postgres needs PGURL's server,
# default postgres://postgres@127.0.0.1:5432, where a throwaway database is
# made). DOCSD_BIN: a docsd binary to measure instead of this checkout's
# (the data is still prepared by this checkout). BEFORE_BIN: a second docsd
# binary measured in the same rounds (it must take the same flags and
# schema). INJECT=true serves pages with the reader client injected (as
# shipped); the default false serves the same bytes as nginx, which the
# script checks.
#
# Both servers keep connections alive for as long as wrk does (nginx's
# keepalive_requests raised from its default 1000) and write one access
# log line per request, unbuffered, to a file (nginx's in a JSON format
# like docsd's).
#
# Needs: go, wrk, nginx (Debian: wrk, nginx-light), curl; psql for postgres.
set -euo pipefail

DURATION=${DURATION:-5s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
WARMUP=${WARMUP:-1s}
ROUNDS=${ROUNDS:-2}
DATABASES=${DATABASES:-sqlite postgres}
PGURL=${PGURL:-postgres://postgres@127.0.0.1:5432}
INJECT=${INJECT:-false}
USER_AGENT=${USER_AGENT:-Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
for tool in go wrk curl; do
	command -v "$tool" >/dev/null || { echo "serve-bench: $tool is not installed" >&2; exit 1; }
done
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
[ -x "$NGINX" ] || { echo "serve-bench: nginx is not installed" >&2; exit 1; }

work=$(mktemp -d -t docsd-bench.XXXXXX)
pids=()
pgdb=""
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	if [ -n "$pgdb" ]; then
		psql -q "$PGURL/postgres" -c "DROP DATABASE IF EXISTS $pgdb" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "building docsd…"
(cd "$repo" && go build -o "$work/setup" ./internal/hosting/bench/setup)
if [ -n "${DOCSD_BIN:-}" ]; then # another build of docsd, to compare versions
	cp "$DOCSD_BIN" "$work/docsd"
else
	(cd "$repo" && go build -o "$work/docsd" ./cmd/docsd)
fi
servers=(docsd nginx)
if [ -n "${BEFORE_BIN:-}" ]; then
	cp "$BEFORE_BIN" "$work/before"
	servers=(docsd before nginx)
fi

base=/docs/bench/en/latest
# name | path | extra wrk header | expected status
cases=(
	"page-20KB|$base/index.html||200"
	"page-2KB|$base/small.html||200"
	"js-290KB|$base/_static/app.js||200"
	"js-290KB-gzip|$base/_static/app.js|Accept-Encoding: gzip|200"
	"missing-404|$base/missing.html||404"
	"missing-404-plain|/docs/plain/en/latest/missing.html||404"
	"redirect-302|$base/old.html||302"
)

wait_for() {
	for _ in $(seq 100); do
		curl -s -o /dev/null "$1" && return 0
		sleep 0.1
	done
	echo "serve-bench: $1 does not answer" >&2
	exit 1
}

rate() { awk '/^Requests\/sec:/ { print $2 }' "$1"; }

# cpu_ticks PID: the CPU time (user + system, in clock ticks) that process
# PID and its children (nginx's workers) have used so far.
cpu_ticks() {
	local p t=0 n
	for p in "$1" $(ps -o pid= --ppid "$1" 2>/dev/null); do
		n=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$p/stat" 2>/dev/null) || n=0
		t=$((t + ${n:-0}))
	done
	echo "$t"
}
TICKS=$(getconf CLK_TCK)

# run_db DB: one database's whole comparison.
run_db() {
	local db=$1 dir="$work/$1" url
	mkdir -p "$dir"
	case $db in
	sqlite) url="$dir/data/docsd.db" ;;
	postgres)
		pgdb="docsd_bench_$$"
		PGOPTIONS=--client-min-messages=warning psql -q "$PGURL/postgres" -c "DROP DATABASE IF EXISTS $pgdb" -c "CREATE DATABASE $pgdb" >/dev/null
		url="$PGURL/$pgdb?sslmode=disable"
		;;
	*) echo "serve-bench: unknown database $db" >&2; exit 1 ;;
	esac
	"$work/setup" -data-dir "$dir/data" -database-url "$url" >"$dir/setup.env"
	# shellcheck disable=SC1091
	source "$dir/setup.env"
	chmod -R a+rX "$work" # nginx workers may run as another user

	"$work/docsd" serve --data-dir "$dir/data" --database-url "$url" \
		--addr "127.0.0.1:$API_PORT" --docs-addr "127.0.0.1:$DOCSD_PORT" \
		--build-workers 0 --addons-inject="$INJECT" --log-format json 2>"$dir/docsd.log" &
	local docsd_pid=$! before_pid=""
	local -A server_pid=([docsd]=$docsd_pid)
	pids+=("$docsd_pid")
	if [ -n "${BEFORE_BIN:-}" ]; then
		"$work/before" serve --data-dir "$dir/data" --database-url "$url" \
			--addr "127.0.0.1:$BEFORE_API_PORT" --docs-addr "127.0.0.1:$BEFORE_PORT" \
			--build-workers 0 --addons-inject="$INJECT" --log-format json 2>"$dir/before.log" &
		before_pid=$!
		server_pid[before]=$before_pid
		pids+=("$before_pid")
	fi

	mkdir -p "$dir/nginx"
	local user_line=""
	[ "$(id -u)" = 0 ] && user_line="user root;"
	cat >"$dir/nginx/nginx.conf" <<EOF
$user_line
daemon off;
worker_processes auto;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log;
events { worker_connections 1024; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	log_format docsd escape=json '{"time":"\$time_iso8601","level":"INFO","msg":"request","method":"\$request_method",'
		'"path":"\$uri","status":\$status,"bytes":\$body_bytes_sent,"duration":\$request_time,'
		'"remote":"\$remote_addr:\$remote_port","client":"\$remote_addr"}';
	access_log $dir/nginx/access.log docsd;
	keepalive_requests 1000000;
	sendfile on;
	tcp_nopush on;
	gzip_static on;
	client_body_temp_path $dir/nginx/body;
	proxy_temp_path $dir/nginx/proxy;
	fastcgi_temp_path $dir/nginx/fastcgi;
	uwsgi_temp_path $dir/nginx/uwsgi;
	scgi_temp_path $dir/nginx/scgi;
	server {
		listen 127.0.0.1:$NGINX_PORT;
		location = $base/old.html {
			return 302 http://127.0.0.1:$NGINX_PORT$base/index.html;
		}
		location $base/ {
			alias $TREE/;
			error_page 404 $base/404.html;
		}
		location /docs/plain/en/latest/ {
			alias $PLAIN_TREE/;
		}
	}
}
EOF
	"$NGINX" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" &
	local nginx_pid=$!
	server_pid[nginx]=$nginx_pid
	pids+=("$nginx_pid")

	local docsd_url="http://127.0.0.1:$DOCSD_PORT" nginx_url="http://127.0.0.1:$NGINX_PORT" before_url="http://127.0.0.1:$BEFORE_PORT"
	local server
	for server in "${servers[@]}"; do
		local u="${server}_url"
		wait_for "${!u}$base/index.html"
	done
	if [ "$INJECT" = false ]; then
		for c in "${cases[@]:0:4}"; do
			IFS='|' read -r name path header status <<<"$c"
			for server in "${servers[@]}"; do
				local u="${server}_url"
				curl -sf "${!u}$path" >"$dir/$server.body"
			done
			for server in "${servers[@]}"; do
				cmp -s "$dir/$server.body" "$dir/nginx.body" || { echo "serve-bench: $name: $server and nginx answer different bytes" >&2; exit 1; }
			done
		done
	fi

	for c in "${cases[@]}"; do
		IFS='|' read -r name path header status <<<"$c"
		local hdr=(-H "User-Agent: $USER_AGENT")
		[ -n "$header" ] && hdr+=(-H "$header")
		for server in "${servers[@]}"; do
			local u="${server}_url"
			local got
			got=$(curl -s -o /dev/null -w '%{http_code}' "${hdr[@]}" "${!u}$path")
			[ "$got" = "$status" ] || { echo "serve-bench: $server answers $got for $name, want $status" >&2; exit 1; }
		done
		local sum_d=0 sum_n=0 sum_b=0
		local -A ticks=() reqs=()
		for round in $(seq "$ROUNDS"); do
			for server in "${servers[@]}"; do
				local u="${server}_url" out="$dir/$name.$server.$round.wrk" t0
				wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "${hdr[@]}" "${!u}$path" >/dev/null
				t0=$(cpu_ticks "${server_pid[$server]}")
				wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "${hdr[@]}" "${!u}$path" >"$out"
				ticks[$server]=$((${ticks[$server]:-0} + $(cpu_ticks "${server_pid[$server]}") - t0))
				reqs[$server]=$((${reqs[$server]:-0} + $(awk '/ requests in / { print $1 }' "$out")))
				if [ "$status" = 200 ] && grep -q "Non-2xx" "$out"; then
					echo "serve-bench: $server answered errors under load ($name)" >&2
					cat "$out" >&2
					exit 1
				fi
			done
			sum_d=$(awk -v a="$sum_d" -v b="$(rate "$dir/$name.docsd.$round.wrk")" 'BEGIN { print a + b }')
			sum_n=$(awk -v a="$sum_n" -v b="$(rate "$dir/$name.nginx.$round.wrk")" 'BEGIN { print a + b }')
			if [ -n "${BEFORE_BIN:-}" ]; then
				sum_b=$(awk -v a="$sum_b" -v b="$(rate "$dir/$name.before.$round.wrk")" 'BEGIN { print a + b }')
			fi
		done
		local p99 p99b=""
		p99=$(awk '/^ +99%/ { print $2 }' "$dir/$name.docsd.$ROUNDS.wrk")
		[ -n "${BEFORE_BIN:-}" ] && p99b=$(awk '/^ +99%/ { print $2 }' "$dir/$name.before.$ROUNDS.wrk")
		# CPU µs per request: the server's own CPU time over the requests
		# it answered, less sensitive than the rates to other work on the
		# machine.
		local cpus=""
		for server in "${servers[@]}"; do
			cpus+=" $(awk -v t="${ticks[$server]}" -v n="${reqs[$server]}" -v hz="$TICKS" 'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }')"
		done
		awk -v db="$db" -v n="$name" -v d="$sum_d" -v x="$sum_n" -v b="$sum_b" -v r="$ROUNDS" -v p="$p99" -v pb="$p99b" -v cpus="$cpus" \
			'BEGIN { printf "%-9s %-17s %10.0f %10.0f %7.2f %9s", db, n, d / r, x / r, d / x, p
				if (pb != "") printf " %10.0f %7.2f %9s", b / r, b / x, pb
				split(cpus, c, " ")
				if (pb != "") printf "   %6s %6s %6s\n", c[1], c[2], c[3]
				else printf "   %6s %6s\n", c[1], c[2] }' | tee -a "$work/results"
	done

	local log
	for log in docsd before; do
		[ -f "$dir/$log.log" ] || continue
		grep -c '"level":"ERROR"' "$dir/$log.log" | awk -v db="$db" -v s="$log" '{ if ($1 > 0) printf "serve-bench: %s logged %d errors on %s\n", s, $1, db }' >&2 || true
	done
	# Peak resident memory of each docsd over the whole run (docsd is
	# meant to stay under 150 MB under load).
	local server
	for server in docsd before; do
		[ -n "${server_pid[$server]:-}" ] || continue
		awk -v db="$db" -v s="$server" '/^VmHWM:/ { printf "%-9s %-17s peak RSS %.0f MB\n", db, s, $2 / 1024 }' \
			"/proc/${server_pid[$server]}/status" 2>/dev/null || true
	done
	kill "$docsd_pid" $before_pid "$nginx_pid" 2>/dev/null || true
	wait "$docsd_pid" $before_pid "$nginx_pid" 2>/dev/null || true
}

echo
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $ROUNDS alternating rounds, $(nproc) CPUs, same machine; addons_inject=$INJECT"
if [ -n "${BEFORE_BIN:-}" ]; then
	printf "%-9s %-17s %10s %10s %7s %9s %10s %7s %9s   %s\n" database request "docsd/s" "nginx/s" ratio "docsd p99" "before/s" ratio "p99" "CPU µs/request: docsd before nginx"
else
	printf "%-9s %-17s %10s %10s %7s %9s   %s\n" database request "docsd/s" "nginx/s" ratio "docsd p99" "CPU µs/request: docsd nginx"
fi
for db in $DATABASES; do
	run_db "$db"
done
