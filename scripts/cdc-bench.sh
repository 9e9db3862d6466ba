#!/usr/bin/env bash
# Change capture measured in one run (issue 27, 6; issue 29, 1), beside pg_recvlogical decoding the
# same changes (test_decoding into a file: the server's own decoding speed):
#   1. the initial snapshot (postgres+cdc:// snapshot=only) against `bridge copy` of the same table,
#      into NDJSON and into SQLite;
#   2. streaming a backlog of N changes — one N-row UPDATE, then N single-row UPDATE transactions
#      (pgbench), then N transactions of which 1% DELETE — into NDJSON and into a PostgreSQL mirror (columns=auto, key from the primary key),
#      each timed from start to exit (`bridge copy` of a slot stops once caught up with the WAL end
#      of its start), against pg_recvlogical reading the same slot backlog to its end;
#   3. lag from commit to the mirror row at 1,000 single-row INSERTs a second (pgbench -R).
# Peak RSS is GNU time's maximum resident set size. Usage (from the repository, after npm run build):
#   N=1000000 bash scripts/cdc-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-1000000}; TX=${TX:-100000}
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres} PGOPTIONS='-c client_min_messages=warning'
B="node $PWD/bin/bridge.js"; W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
SRC="postgres://$PGUSER@$PGHOST:$PGPORT/bench_cdc"; MIR="postgres://$PGUSER@$PGHOST:$PGPORT/bench_cdc_m"
P() { psql -X -q -v ON_ERROR_STOP=1 -At "$@"; }
SLOTS="'cb_nd','cb_m','cb_anchor','cb_lag'"
# Seconds and peak RSS (MB) of a command: "<s> <MB>".
timed() { /usr/bin/time -f '%e %M' -o "$W/t" "$@" >"$W/out" 2>&1 || { cat "$W/out" >&2; exit 1; }; awk '{printf "%s %d\n", $1, $2/1024}' "$W/t"; }
ratio() { echo "scale=2; $1 / $2" | bc; }

P -d postgres -c "select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name in ($SLOTS)" >/dev/null
P -d postgres -c "drop database if exists bench_cdc" -c "drop database if exists bench_cdc_m" -c "create database bench_cdc" -c "create database bench_cdc_m"
P -d bench_cdc -c "create table cdcb (id bigint primary key, v text not null, n int not null, at timestamptz not null default now())" -c "create table cdcb_align (at timestamptz)" -c "alter table cdcb set (autovacuum_enabled = false)" \
  -c "insert into cdcb select g, md5(g::text), g, now() from generate_series(1, $N) g" -c "vacuum analyze cdcb"
echo "# change capture, $(date -u +%FT%TZ), N=$N, TX=$TX, $(nproc) cores, PostgreSQL $(P -d postgres -c 'show server_version')"

echo "## 1. initial snapshot vs copy ($N rows)"
read -r s1 m1 < <(timed $B copy "${SRC/postgres:/postgres+cdc:}?tables=cdcb&snapshot=only" "file://$W/snap.ndjson" -q)
read -r c1 k1 < <(timed $B copy "$SRC?table=cdcb" "file://$W/copy.ndjson" -q)
read -r s2 m2 < <(timed $B copy "${SRC/postgres:/postgres+cdc:}?tables=cdcb&snapshot=only" "sqlite://$W/snap.db?columns=auto&auto_create_table=true" -q)
read -r c2 k2 < <(timed $B copy "$SRC?table=cdcb" "sqlite://$W/copy.db?table=cdcb&columns=auto&auto_create_table=true" -q)
echo "NDJSON: snapshot ${s1} s (${m1} MB), copy ${c1} s (${k1} MB): snapshot speed $(ratio "$c1" "$s1")x copy"
echo "SQLite: snapshot ${s2} s (${m2} MB), copy ${c2} s (${k2} MB): snapshot speed $(ratio "$c2" "$s2")x copy"

# The mirror starts as a snapshot (the slot cb_m is made with it); the other slots start empty.
$B copy "${SRC/postgres:/postgres+cdc:}?tables=cdcb&slot_name=cb_m" "$MIR?columns=auto&auto_create_table=true" -q
$B copy "${SRC/postgres:/postgres+cdc:}?tables=cdcb&slot_name=cb_nd&snapshot=never" "file://$W/none.ndjson" -q
P -d bench_cdc -c "select pg_create_logical_replication_slot('cb_anchor', 'test_decoding')" >/dev/null

# Every timed stream starts all three slots at the same WAL. A slot decodes from its restart point,
# which moves only past a running-transactions record (a CHECKPOINT writes one) that the slot's
# reader has read and confirmed. Without this, the mirror's slot (made before the mirror's initial
# load, which is in the same cluster here: 217 MB of WAL for 1M rows, none of it the source's) alone
# reads that load again at its first stream; and after a stream each slot would read the backlog it
# just streamed again, skipping it, at the next.
align() {
  # pg_recvlogical confirms what it received: a transaction after the CHECKPOINT's record, so that it confirms past it.
  # A slot takes one new restart point at a time, the next only once it confirmed past the last: a few rounds.
  for _ in 1 2 3 4; do
    P -d postgres -c CHECKPOINT >/dev/null; P -d bench_cdc -c "insert into cdcb_align values (now())"
    pg_recvlogical -d bench_cdc --slot cb_anchor --start --endpos "$(P -d bench_cdc -c "select pg_current_wal_lsn()")" -f /dev/null --no-loop
    [ "$(P -d postgres -c "select pg_current_wal_lsn() - restart_lsn < 1e6 from pg_replication_slots where slot_name = 'cb_anchor'")" = t ] && break
  done
  $B copy "${SRC/postgres:/postgres+cdc:}?tables=cdcb&slot_name=cb_nd&snapshot=never" "file://$W/none.ndjson" -q
  $B copy "${SRC/postgres:/postgres+cdc:}?tables=cdcb&slot_name=cb_m" "$MIR?columns=auto&auto_create_table=true" -q
  echo "slots' restart points behind the WAL end: $(P -d postgres -c "select string_agg(slot_name || ' ' || pg_size_pretty(pg_current_wal_lsn() - restart_lsn), ', ' order by slot_name) from pg_replication_slots where slot_name in ('cb_nd','cb_m','cb_anchor')")"
}

stream() { # $1 label, $2 changes
  # The backlog's dirty pages written out first, and no autovacuum of cdcb (off for it): work in the background would fall on whichever reader runs first.
  P -d postgres -c CHECKPOINT >/dev/null
  local end; end=$(P -d bench_cdc -c "select pg_current_wal_lsn()"); rm -f "$W/anchor.txt"
  read -r a am < <(timed pg_recvlogical -d bench_cdc --slot cb_anchor --start --endpos "$end" -f "$W/anchor.txt" --no-loop)
  local got; got=$(grep -cE '^table public.cdcb: (UPDATE|DELETE)' "$W/anchor.txt" || true)
  rm -f "$W/stream.ndjson"
  read -r n nm < <(timed $B copy "${SRC/postgres:/postgres+cdc:}?tables=cdcb&slot_name=cb_nd&snapshot=never" "file://$W/stream.ndjson" -q)
  read -r m mm < <(timed $B copy "${SRC/postgres:/postgres+cdc:}?tables=cdcb&slot_name=cb_m" "$MIR?columns=auto&auto_create_table=true" -q)
  local lines; lines=$(wc -l < "$W/stream.ndjson")
  echo "$1: pg_recvlogical ${a} s ($got changes, $(echo "$got / $a" | bc)/s); NDJSON ${n} s ($lines lines, ${nm} MB peak): $(ratio "$a" "$n")x; PostgreSQL mirror ${m} s (${mm} MB peak): $(ratio "$a" "$m")x"
}
echo "## 2. streaming a backlog"
align
P -d bench_cdc -c "update cdcb set n = n + 1, at = now()"
stream "one $N-row UPDATE" "$N"
align
printf '\\set id random(1, %d)\nUPDATE cdcb SET n = n + 1, at = now() WHERE id = :id;\n' "$N" > "$W/one.sql"
pgbench -n -c 4 -j 2 -t $((TX / 4)) -f "$W/one.sql" bench_cdc >/dev/null 2>&1
stream "$TX single-row UPDATE transactions" "$TX"
same() {
  local want got; want=$(P -d bench_cdc -c "select count(*) || ' rows, md5 ' || md5(string_agg(id || ':' || v || ':' || n || ':' || at, ',' order by id)) from cdcb")
  got=$(P -d bench_cdc_m -c "select count(*) || ' rows, md5 ' || md5(string_agg(id || ':' || v || ':' || n || ':' || at, ',' order by id)) from cdcb")
  [ "$want" = "$got" ] && echo "mirror content: equal to the source ($want)" || { echo "mirror content DIFFERS: $want vs $got"; exit 1; }
}
same
# The same with a delete in every hundred transactions (a batch with deletes applies in order).
align
printf '\\set id random(1, %d)\nDELETE FROM cdcb WHERE id = :id;\n' "$N" > "$W/del.sql"
pgbench -n -c 4 -j 2 -t $((TX / 4)) -f "$W/one.sql@99" -f "$W/del.sql@1" bench_cdc >/dev/null 2>&1
stream "$TX single-row transactions, 1% of them DELETEs" "$TX"
same

echo "## 3. lag at 1,000 commits a second"
P -d bench_cdc -c "create table lag_src (id bigserial primary key, created_at timestamptz not null default clock_timestamp())"
P -d bench_cdc_m -c "create table lag_src (id bigint primary key, created_at timestamptz, arrived_at timestamptz not null default clock_timestamp())"
$B tail "${SRC/postgres:/postgres+cdc:}?tables=lag_src&slot_name=cb_lag&snapshot=never" "$MIR?columns=auto" -q & T=$!
until [ "$(P -d bench_cdc -c "select count(*) from pg_replication_slots where slot_name = 'cb_lag' and active")" = 1 ]; do sleep 0.2; done
echo 'INSERT INTO lag_src DEFAULT VALUES;' > "$W/ins.sql"
pgbench -n -c 2 -j 2 -R 1000 -T 10 -f "$W/ins.sql" bench_cdc >/dev/null 2>&1
sent=$(P -d bench_cdc -c "select count(*) from lag_src")
for i in $(seq 1 100); do [ "$(P -d bench_cdc_m -c 'select count(*) from lag_src')" -ge "$sent" ] && break; sleep 0.1; done
kill -INT $T; wait $T || true
P -d bench_cdc_m -c "select format('%s commits: lag p50 %s ms, p95 %s ms, p99 %s ms', count(*), round(percentile_cont(0.5) within group (order by ms)::numeric, 2), round(percentile_cont(0.95) within group (order by ms)::numeric, 2), round(percentile_cont(0.99) within group (order by ms)::numeric, 2)) from (select extract(epoch from arrived_at - created_at) * 1000 as ms from lag_src) x"

P -d postgres -c "select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name in ($SLOTS)" >/dev/null
P -d postgres -c "drop database bench_cdc" -c "drop database bench_cdc_m" >/dev/null 2>&1 || true
