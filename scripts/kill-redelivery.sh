#!/usr/bin/env bash
# How many rows a kill -9 re-delivers: a tail reads a backlog (id cursor, NDJSON sink), is killed
# KILLS times at random moments, restarted each time, then drained; prints duplicates per kill.
# Usage: scripts/kill-redelivery.sh <postgres|mariadb> [rows=500000] [kills=5]
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-postgres}; rows=${2:-500000}; kills=${3:-5}
out=$(mktemp -d)/redeliver.ndjson
if [ "$kind" = postgres ]; then
  psql -h 127.0.0.1 -U postgres test -qc "DROP TABLE IF EXISTS t_redeliver, bridge_cursors_t_redeliver; CREATE TABLE t_redeliver (id bigserial PRIMARY KEY, v text); INSERT INTO t_redeliver (v) SELECT repeat('x', 100) FROM generate_series(1, $rows)" 2>/dev/null
  url="postgres://postgres@127.0.0.1/test?table=t_redeliver&cursor_id=redeliver"
else
  mariadb -h 127.0.0.1 -u root test -e "DROP TABLE IF EXISTS t_redeliver, bridge_cursors_t_redeliver; CREATE TABLE t_redeliver (id bigint AUTO_INCREMENT PRIMARY KEY, v text); INSERT INTO t_redeliver (v) SELECT repeat('x', 100) FROM seq_1_to_$rows"
  url="mariadb://root@127.0.0.1/test?table=t_redeliver&cursor_id=redeliver"
fi
for i in $(seq 1 "$kills"); do
  node bin/bridge.js tail "$url" "file://$out" --cursor-column id --progress none & pid=$!
  sleep "0.$((RANDOM % 9 + 1))"; sleep 1
  kill -9 $pid; wait $pid 2>/dev/null || true
done
node bin/bridge.js copy "$url" "file://$out" --cursor-column id --progress none
node -e '
const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean);
const ids = new Set(lines.map((l) => JSON.parse(l).id));
const dup = lines.length - ids.size;
console.log(`${process.argv[2]}: ${process.argv[3]} rows, ${process.argv[4]} kills: ${ids.size} distinct delivered, ${dup} duplicates (${Math.round(dup / Number(process.argv[4]))} per kill)`);
' "$out" "$kind" "$rows" "$kills"
