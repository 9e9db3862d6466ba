#!/usr/bin/env bash
# The mirror streaming 100,000 single-row transactions (1% DELETE, UPD=/DEL= weights) from a
# 1M-row table, two builds alternating on one slot and database: OLD (a worktree of another commit,
# built) and this repository. Usage: OLD=/tmp/old ROUNDS=3 bash scripts/cdc-mirror-ab.sh
# (from here: git worktree add /tmp/old <commit> && ln -s "$PWD/node_modules" /tmp/old/ && (cd /tmp/old && npm run build))
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd); OLD=${OLD:?OLD=<a built worktree of the other commit>}
N=${N:-1000000}; TX=${TX:-100000}; ROUNDS=${ROUNDS:-3}
export PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres PGOPTIONS='-c client_min_messages=warning'
P() { psql -X -q -v ON_ERROR_STOP=1 -At "$@"; }
SRC="postgres+cdc://postgres@127.0.0.1:5432/ab_cdc"; MIR="postgres://postgres@127.0.0.1:5432/ab_cdc_m"
W=$(mktemp -d)
P -d postgres -c "select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = 'ab_m'" >/dev/null
P -d postgres -c "drop database if exists ab_cdc" -c "drop database if exists ab_cdc_m" -c "create database ab_cdc" -c "create database ab_cdc_m"
P -d ab_cdc -c "create table cdcb (id bigint primary key, v text not null, n int not null, at timestamptz not null default now())" -c "alter table cdcb set (autovacuum_enabled = false)" \
  -c "insert into cdcb select g, md5(g::text), g, now() from generate_series(1, $N) g" -c "vacuum analyze cdcb"
node $HERE/bin/bridge.js copy "$SRC?tables=cdcb&slot_name=ab_m" "$MIR?columns=auto&auto_create_table=true" -q
printf '\\set id random(1, %d)\nUPDATE cdcb SET n = n + 1, at = now() WHERE id = :id;\n' "$N" > "$W/one.sql"
printf '\\set id random(1, %d)\nDELETE FROM cdcb WHERE id = :id;\n' "$N" > "$W/del.sql"
for r in $(seq 1 $ROUNDS); do
  for b in ${ORDER:-old new}; do
    dir=$HERE; [ $b = old ] && dir=$OLD
    pgbench -n -c 4 -j 2 -t $((TX / 4)) -f "$W/one.sql@${UPD:-99}" -f "$W/del.sql@${DEL:-1}" ab_cdc >/dev/null 2>&1
    P -d postgres -c CHECKPOINT >/dev/null
    s=$(date +%s.%N); node $dir/bin/bridge.js copy "$SRC?tables=cdcb&slot_name=ab_m" "$MIR?columns=auto&auto_create_table=true" -q; e=$(date +%s.%N)
    echo "round $r $b $(echo "$e - $s" | bc) s"
  done
done
want=$(P -d ab_cdc -c "select count(*) || ' ' || md5(string_agg(id || ':' || v || ':' || n || ':' || at, ',' order by id)) from cdcb")
got=$(P -d ab_cdc_m -c "select count(*) || ' ' || md5(string_agg(id || ':' || v || ':' || n || ':' || at, ',' order by id)) from cdcb")
[ "$want" = "$got" ] && echo "content equal ($want)" || echo "CONTENT DIFFERS $want / $got"
P -d postgres -c "select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = 'ab_m'" >/dev/null
P -d postgres -c "drop database ab_cdc" -c "drop database ab_cdc_m" >/dev/null
rm -rf "$W"
