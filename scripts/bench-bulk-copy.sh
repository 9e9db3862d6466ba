#!/usr/bin/env bash
# usage: scripts/bench-bulk-copy.sh ROUNDS
# bulk_copy=true (bench.events_txt -> bench_dst.bc, all seven columns as tokens) against the psql
# COPY text pipe, alternating; prints wall ms, user and system CPU s and peak RSS KB per run, then
# the content (count and an md5 over every row) of target and source. The harness's events.payload
# is jsonb and a token binds scalars only, so events_txt is a copy with payload as text, made once:
#   psql -h 127.0.0.1 -U postgres -d bench -c "CREATE TABLE events_txt (id bigint PRIMARY KEY, created_at timestamptz, user_id int, kind text, amount numeric(12,2), payload text, note text)" \
#     -c "INSERT INTO events_txt SELECT id, created_at, user_id, kind, amount, payload::text, note FROM events"
set -u
cd "$(dirname "$0")/.."
T=$(mktemp -d)
export PGHOST=127.0.0.1 PGUSER=postgres
Q='INSERT INTO bc (id, created_at, user_id, kind, amount, payload, note) VALUES (${payload:id}, ${payload:created_at}, ${payload:user_id}, ${payload:kind}, ${payload:amount}, ${payload:payload}, ${payload:note})'
QE=$(node -e 'console.log(encodeURIComponent(process.argv[1]))' "$Q")
for r in $(seq 1 "${1:-4}"); do for m in pipe bridge; do
  psql -X -q -d bench_dst -c "DROP TABLE IF EXISTS bc" -c "CREATE TABLE bc (id bigint PRIMARY KEY, created_at timestamptz, user_id int, kind text, amount numeric(12,2), payload text, note text)"
  psql -X -q -d postgres -c CHECKPOINT
  if [ $m = pipe ]; then cmd="psql -X -d bench -c 'COPY (SELECT * FROM events_txt) TO STDOUT' | psql -X -d bench_dst -c 'COPY bc FROM STDIN'"
  else cmd="node bin/bridge.js copy 'postgres://postgres@127.0.0.1:5432/bench?table=events_txt' 'postgres://postgres@127.0.0.1:5432/bench_dst?table=bc&bulk_copy=true&insert_query=$QE' --progress none"; fi
  t0=$(date +%s%N); /usr/bin/time -f '%U %S %M' -o "$T/time" bash -c "$cmd" >"$T/log" 2>&1; rc=$?; t1=$(date +%s%N)
  echo "$m rc=$rc wall=$(( (t1-t0)/1000000 )) $(cat "$T/time")"
done; done
psql -X -At -d bench_dst -c "select count(*), md5(string_agg(md5(t::text), '' order by id)) from bc t"
psql -X -At -d bench -c "select count(*), md5(string_agg(md5(t::text), '' order by id)) from events_txt t"
rm -rf "$T"
