#!/usr/bin/env bash
# Time to a usable database (data, primary keys, secondary indexes, foreign keys, checks, defaults):
# bridge beside pgloader (MariaDB -> PostgreSQL) and beside `pgcopydb clone` (PostgreSQL ->
# PostgreSQL), on the 10-table schema of scripts/bench-migrate/ (pgbench's tables and a shop; 3.4M
# rows, 12 foreign keys), alternating, RUNS rounds each. Every target is checked: each table's
# count and row fingerprint equal the source's, and its indexes, valid foreign keys and checks are
# counted. Prints each run, then the median ratios (higher = bridge faster).
#   RUNS=3 JOBS=2 bash scripts/bench-migrate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}; JOBS=${JOBS:-2}; ONLY=${ONLY:-all}
PG="psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres"
MY="mariadb -h 127.0.0.1 -u root"
BRIDGE="node $PWD/bin/bridge.js"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
for tool in pgloader pgcopydb; do command -v $tool >/dev/null || apt-get install -y -q $tool >/dev/null 2>&1 || { echo "no $tool"; exit 1; }; done
[ -f bin/bridge.js ] && [ -d dist ] || npm run build

# The sources, made once (deterministic rows: the same in both).
if [ "$($MY -N -e "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'migbench'")" != 10 ]; then
  $MY -e 'DROP DATABASE IF EXISTS migbench; CREATE DATABASE migbench'; $MY migbench < scripts/bench-migrate/schema-mariadb.sql >/dev/null
fi
if ! $PG -d migbench_src -Atc 'SELECT 1 FROM reviews LIMIT 1' >/dev/null 2>&1; then
  $PG -d postgres -c 'DROP DATABASE IF EXISTS migbench_src' -c 'CREATE DATABASE migbench_src'; $PG -d migbench_src -f scripts/bench-migrate/schema-pg.sql >/dev/null
fi

# Each table's columns for the fingerprint (@: a timestamp, compared to the second).
declare -A COLS=(
  [pgbench_branches]='bid,bbalance,filler' [pgbench_tellers]='tid,bid,tbalance,filler' [pgbench_accounts]='aid,bid,abalance,filler'
  [pgbench_history]='tid,bid,aid,delta,@mtime,filler' [categories]='id,name,parent_id' [customers]='id,email,name,status,score,@created_at'
  [products]='id,category_id,sku,title,price,@created_at' [orders]='id,customer_id,@placed_at,status,total'
  [order_items]='order_id,line,product_id,qty,price' [reviews]='id,product_id,customer_id,stars,body')
pg_row() { local out=() c; IFS=, read -ra cs <<< "${COLS[$1]}"; for c in "${cs[@]}"; do [[ $c == @* ]] && out+=("to_char(${c#@}, 'YYYY-MM-DD HH24:MI:SS')") || out+=("$c::text"); done; local IFS=,; echo "concat_ws('|', ${out[*]})"; }
my_row() { local out=() c; IFS=, read -ra cs <<< "${COLS[$1]}"; for c in "${cs[@]}"; do [[ $c == @* ]] && out+=("DATE_FORMAT(${c#@}, '%Y-%m-%d %H:%i:%s')") || out+=("$c"); done; local IFS=,; echo "CONCAT_WS('|', ${out[*]})"; }
fp_pg() { $PG -d "$1" -Atc "SET TimeZone = 'UTC'; SELECT count(*) || ' ' || coalesce(sum(('x' || substr(md5($(pg_row "$3")), 1, 8))::bit(32)::bigint), 0) FROM $2.$3"; }
fp_my() { $MY -N migbench -e "SELECT CONCAT(COUNT(*), ' ', COALESCE(SUM(CAST(CONV(SUBSTR(MD5($(my_row "$1")), 1, 8), 16, 10) AS UNSIGNED)), 0)) FROM $1"; }
declare -A WANT
for t in "${!COLS[@]}"; do WANT[$t]=$(fp_my "$t"); [ "${WANT[$t]}" = "$(fp_pg migbench_src public "$t")" ] || { echo "the two sources differ in $t"; exit 1; }; done

# A target's verdict: every table's fingerprint, and what makes it usable (counted from the catalog).
verify() {
  local db=$1 schema=$2 bad=''
  for t in "${!COLS[@]}"; do [ "$(fp_pg "$db" "$schema" "$t")" = "${WANT[$t]}" ] || bad+=" $t"; done
  local s; s=$($PG -d "$db" -Atc "SELECT (SELECT count(*) FROM pg_indexes WHERE schemaname = '$schema' AND indexname NOT LIKE '%pkey') || ' indexes, ' ||
    (SELECT count(*) FROM pg_constraint WHERE connamespace = '$schema'::regnamespace AND contype = 'f' AND convalidated) || ' valid fks, ' ||
    (SELECT count(*) FROM pg_constraint WHERE connamespace = '$schema'::regnamespace AND contype = 'c') || ' checks, ' ||
    (SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = '$schema'::regnamespace AND c.relkind = 'r' AND (a.atthasdef OR a.attidentity <> '')) || ' defaults/identities'")
  echo "${bad:+MISMATCH in$bad; }content ok=$([ -z "$bad" ] && echo yes || echo no); $s"
}
fresh() { $PG -d postgres -c 'DROP DATABASE IF EXISTS migdst WITH (FORCE)' -c 'CREATE DATABASE migdst'; $PG -d migdst -c 'CHECKPOINT'; }
run() { # name, command: prints "name seconds peak-RSS-MB"
  local s e; s=$(date +%s.%N); /usr/bin/time -f '%M' -o "$W/rss" bash -c "$2" > "$W/$1.log" 2>&1 || { echo "$1 FAILED:"; tail -5 "$W/$1.log"; exit 1; }; e=$(date +%s.%N)
  printf '%-22s %6.2f s  %4d MB  ' "$1" "$(echo "$e - $s" | bc)" "$(( $(tail -1 "$W/rss") / 1024 ))"
}
cat > "$W/pgloader.load" <<LOAD
LOAD DATABASE
  FROM mysql://root@127.0.0.1:3306/migbench
  INTO postgresql://postgres@127.0.0.1:5432/migdst
WITH include drop, create tables, create indexes, reset sequences, foreign keys
SET PostgreSQL PARAMETERS timezone to 'UTC';
LOAD

SRC_MY='mariadb://root@127.0.0.1:3306/migbench?table=*'
SRC_PG='postgres://postgres@127.0.0.1:5432/migbench_src?table=*'
echo "$RUNS rounds, $JOBS jobs; $(pgloader --version | head -1); $(pgcopydb --version 2>&1 | grep -o 'pgcopydb version [^ ]*' | head -1); bridge $(git rev-parse --short HEAD)"
for r in $(seq 1 "$RUNS"); do
  if [ "$ONLY" != pgcopydb ]; then
    fresh; run pgloader "pgloader --dynamic-space-size 4096 $W/pgloader.load"; verify migdst migbench
    fresh; $PG -d migdst -c 'CREATE SCHEMA migbench'
    run bridge-from-mariadb "$BRIDGE copy '$SRC_MY' 'postgres://postgres@127.0.0.1:5432/migdst?table=migbench.*&columns=auto&auto_create_table=true' --parallel $JOBS --progress none"; verify migdst migbench
  fi
  if [ "$ONLY" != pgloader ]; then
    fresh; rm -rf "$W/pgc"
    # setsid: pgcopydb signals its whole process group when it ends. --skip-vacuum: bridge does not ANALYZE either.
    run pgcopydb "setsid -w pgcopydb clone --source postgres://postgres@127.0.0.1:5432/migbench_src --target postgres://postgres@127.0.0.1:5432/migdst --table-jobs $JOBS --index-jobs $JOBS --no-owner --no-acl --skip-extensions --skip-collations --skip-vacuum --dir $W/pgc"; verify migdst public
    fresh; run bridge-from-postgres "$BRIDGE copy '$SRC_PG' 'postgres://postgres@127.0.0.1:5432/migdst?columns=auto&auto_create_table=true' --parallel $JOBS --progress none"; verify migdst public
  fi
done 2>&1 | tee "$W/runs.txt"
awk '{ t[$1] = t[$1] " " $2 } END {
  for (k in t) { n = split(t[k], a, " "); asort(a); m[k] = a[int((n + 1) / 2)] }
  if (m["pgloader"]) printf "MariaDB -> PostgreSQL: bridge %.2fx pgloader (median %.2f s vs %.2f s)\n", m["pgloader"] / m["bridge-from-mariadb"], m["bridge-from-mariadb"], m["pgloader"]
  if (m["pgcopydb"]) printf "PostgreSQL -> PostgreSQL: bridge %.2fx pgcopydb clone (median %.2f s vs %.2f s)\n", m["pgcopydb"] / m["bridge-from-postgres"], m["bridge-from-postgres"], m["pgcopydb"] }' "$W/runs.txt"
