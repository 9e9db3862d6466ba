#!/usr/bin/env bash
# usage: scripts/rss-10m.sh unchanged|converted
# PostgreSQL -> PostgreSQL copy of 10M rows (bench.events_10m) with the process's RSS sampled every
# 2 s, then the content of target and source (count, sum and an md5 over every row).
# `converted` makes the target's user_id a bigint, so every row is converted, not passed through.
# The source table, once (about 5 min, 2.9 GB), from the anchors harness's schema and generator:
#   cd ../shared/bench-anchors && psql -h 127.0.0.1 -U postgres -d bench -v tbl=events_10m -v unlogged= -f sql/pg-schema.sql &&
#     psql -h 127.0.0.1 -U postgres -d bench -v tbl=events_10m -v n=10000000 -f sql/pg-generate.sql
set -u
cd "$(dirname "$0")/.."
H=../shared/bench-anchors
T=$(mktemp -d)
export PGHOST=127.0.0.1 PGUSER=postgres
psql -X -q -d bench_dst -v tbl=ev10 -v unlogged= -f "$H/sql/pg-schema.sql" >/dev/null 2>&1
[ "$1" = converted ] && psql -X -q -d bench_dst -c "ALTER TABLE ev10 ALTER COLUMN user_id TYPE bigint"
psql -X -q -d postgres -c CHECKPOINT
t0=$(date +%s%N)
/usr/bin/time -f '%U %S %M' -o "$T/time" node bin/bridge.js copy 'postgres://postgres@127.0.0.1:5432/bench?table=events_10m' \
  'postgres://postgres@127.0.0.1:5432/bench_dst?table=ev10&columns=auto' --progress none >"$T/log" 2>&1 &
tp=$!
sleep 0.5
# bridge sets its process title, so it is found as the child of time, not by its command line.
pid=$(pgrep -P $tp | head -1)
while kill -0 "$pid" 2>/dev/null; do ps -o rss= -p "$pid" >> "$T/samples"; sleep 2; done
wait
t1=$(date +%s%N)
echo "$1 wall=$(( (t1-t0)/1000000 ))ms user/sys s, peak RSS KB: $(cat "$T/time"); RSS samples MB: $(awk '{printf "%d ", $1/1024}' "$T/samples")"
tail -1 "$T/log"
psql -X -At -d bench_dst -c "select count(*), sum(id), md5(string_agg(md5(t::text), '' order by id)) from (select id, created_at, user_id::int, kind, amount, payload, note from ev10) t"
psql -X -At -d bench -c "select count(*), sum(id), md5(string_agg(md5(t::text), '' order by id)) from (select id, created_at, user_id, kind, amount, payload, note from events_10m) t"
rm -rf "$T"
