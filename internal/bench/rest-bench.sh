#!/usr/bin/env bash
# rest-bench.sh — docsd's REST API against the floor (internal/bench/floor), side by side.
#
# For each database (SQLite, PostgreSQL): generates the data of one scale
# with internal/bench/cmd/benchdata, starts `docsd serve` and the floor
# (internal/bench/cmd/floor) on that same database, checks that both answer each
# measured request with the same bytes, then runs wrk against docsd and the
# floor alternately, ROUNDS times each per request, and prints both rates
# (the mean of the rounds) and their ratio docsd / floor, and each server's
# peak resident memory.
#
#   internal/bench/rest-bench.sh                         # small scale, both databases
#   SCALE=large DATABASES=postgres internal/bench/rest-bench.sh
#   DURATION=20s ROUNDS=3 CONNECTIONS=16 internal/bench/rest-bench.sh
#   DOCSD_BIN=/tmp/docsd-before internal/bench/rest-bench.sh   # measure another build of docsd
#
# PostgreSQL: a server at $POSTGRES_URL (default
# postgres://postgres@127.0.0.1:5432) where the user may CREATE DATABASE;
# the database made here is dropped on exit.
# Needs: go, wrk (Debian: wrk), curl, psql for PostgreSQL.
set -euo pipefail

SCALE=${SCALE:-small}
DATABASES=${DATABASES:-sqlite postgres}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
ROUNDS=${ROUNDS:-2}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-16}
POSTGRES_URL=${POSTGRES_URL:-postgres://postgres@127.0.0.1:5432}
DOCSD_PORT=${DOCSD_PORT:-18300}
DOCS_PORT=${DOCS_PORT:-18301} # docsd's docs listener
FLOOR_PORT=${FLOOR_PORT:-18302}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
for tool in go wrk curl; do
	command -v "$tool" >/dev/null || { echo "rest-bench: $tool is not installed" >&2; exit 1; }
done

work=$(mktemp -d -t docsd-rest-bench.XXXXXX)
pgdb="docsd_rest_bench_$$"
pids=()
stop_servers() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	pids=()
}
cleanup() {
	stop_servers
	if [[ " $DATABASES " == *" postgres "* ]]; then
		psql "$POSTGRES_URL/postgres?sslmode=disable" -qc "DROP DATABASE IF EXISTS $pgdb" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "building docsd, benchdata and the floor…"
(cd "$repo" && go build -o "$work/benchdata" ./internal/bench/cmd/benchdata && go build -o "$work/floor" ./internal/bench/cmd/floor)
if [[ -n "${DOCSD_BIN:-}" ]]; then
	cp "$DOCSD_BIN" "$work/docsd" # another build of docsd, e.g. a "before" to compare
else
	(cd "$repo" && go build -o "$work/docsd" ./cmd/docsd)
fi

wait_for() {
	for _ in $(seq 300); do
		curl -s -o /dev/null "$1" && return 0
		sleep 0.1
	done
	echo "rest-bench: $1 does not answer" >&2
	exit 1
}

rate() { awk '/^Requests\/sec:/ { print $2 }' "$1"; }

declare -a summary
public="http://127.0.0.1:$DOCSD_PORT"
docs="http://127.0.0.1:$DOCS_PORT"
for db in $DATABASES; do
	case $db in
	sqlite) url="$work/bench.db" ;;
	postgres)
		psql "$POSTGRES_URL/postgres?sslmode=disable" -q -c "SET client_min_messages = warning" \
			-c "DROP DATABASE IF EXISTS $pgdb" -c "CREATE DATABASE $pgdb" >/dev/null
		url="$POSTGRES_URL/$pgdb?sslmode=disable"
		;;
	*) echo "rest-bench: unknown database $db" >&2; exit 1 ;;
	esac
	echo "== $db: generating the $SCALE scale"
	"$work/benchdata" -database-url "$url" -scale "$SCALE" >"$work/data.env"
	# shellcheck disable=SC1091
	source "$work/data.env"

	"$work/docsd" serve --database-url "$url" --data-dir "$work/data-$db" --addr "127.0.0.1:$DOCSD_PORT" \
		--docs-addr "127.0.0.1:$DOCS_PORT" --public-url "$public" --docs-url "$docs" --build-workers 0 --throttle-user-rate 0 --log-format json 2>"$work/docsd-$db.log" &
	pids+=($!)
	"$work/floor" -database-url "$url" -addr "127.0.0.1:$FLOOR_PORT" -public-url "$public" -docs-url "$docs" 2>"$work/floor-$db.log" &
	pids+=($!)
	wait_for "$public/api/v3/"
	wait_for "http://127.0.0.1:$FLOOR_PORT/"

	names=(project_detail_expand v3_project_list v3_build_list v2_build_list)
	paths=(
		"/api/v3/projects/$PROJECT/?expand=active_versions,active_versions.last_build,active_versions.last_build.config"
		"/api/v3/projects/?limit=100"
		"/api/v3/projects/$PROJECT/builds/?limit=100"
		"/api/v2/build/?project__slug=$PROJECT&limit=100"
	)
	for i in "${!names[@]}"; do
		name=${names[$i]} path=${paths[$i]}
		auth=(-H "Authorization: Token $TOKEN")
		[[ $path == /api/v2/* ]] && auth=()
		curl -sf "${auth[@]}" "$public$path" >"$work/docsd.body" || { echo "rest-bench: docsd refused $path" >&2; exit 1; }
		curl -sf "${auth[@]}" "http://127.0.0.1:$FLOOR_PORT$path" >"$work/floor.body" || { echo "rest-bench: the floor refused $path" >&2; exit 1; }
		cmp -s "$work/docsd.body" "$work/floor.body" || { echo "rest-bench: docsd and the floor answer $path differently" >&2; exit 1; }

		declare -A sum=([docsd]=0 [floor]=0)
		for round in $(seq "$ROUNDS"); do
			for server in docsd floor; do
				port=$DOCSD_PORT
				[ "$server" = floor ] && port=$FLOOR_PORT
				target="http://127.0.0.1:$port$path"
				wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" --timeout 30s "${auth[@]}" "$target" >/dev/null
				out="$work/$db-$name-$server-$round.wrk"
				wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout 30s --latency "${auth[@]}" "$target" >"$out"
				if grep -q "Non-2xx" "$out"; then
					echo "rest-bench: $server answered errors under load on $path" >&2
					cat "$out" >&2
					exit 1
				fi
				r=$(rate "$out")
				p99=$(awk '$1 == "99%" { print $2 }' "$out")
				echo "   $db $name round $round: $server $r req/s (p99 $p99)"
				sum[$server]=$(awk -v a="${sum[$server]}" -v b="$r" 'BEGIN { print a + b }')
			done
		done
		docsd_rps=$(awk -v s="${sum[docsd]}" -v n="$ROUNDS" 'BEGIN { printf "%.0f", s / n }')
		floor_rps=$(awk -v s="${sum[floor]}" -v n="$ROUNDS" 'BEGIN { printf "%.0f", s / n }')
		ratio=$(awk -v a="$docsd_rps" -v b="$floor_rps" 'BEGIN { printf "%.2f", a / b }')
		summary+=("$(printf '%-9s %-22s docsd %7s req/s   floor %7s req/s   ratio %s' "$db" "$name" "$docsd_rps" "$floor_rps" "$ratio")")
	done
	# Peak memory under the load (the issue asks for ≤ 150 MB), Linux only.
	for k in 0 1; do
		server=docsd
		[ "$k" = 1 ] && server=floor
		hwm=$(awk '/^VmHWM:/ { printf "%.0f", $2 / 1024 }' "/proc/${pids[$k]}/status" 2>/dev/null || true)
		[ -n "$hwm" ] && summary+=("$(printf '%-9s %-22s peak RSS %s MB' "$db" "$server" "$hwm")")
	done
	stop_servers
done

echo
echo "scale $SCALE, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $ROUNDS alternating rounds, mean req/s:"
printf '%s\n' "${summary[@]}"
