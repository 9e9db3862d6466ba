#!/usr/bin/env bash
# One memory budget per process (issue 29, 3): peak RSS (GNU time) and wall of many routes in one
# process, with the default budget (--memory-budget 200) and without one (0), alternating, RUNS rounds:
#   1. the 10 tables of scripts/bench-migrate (3.4M rows) MariaDB -> MariaDB, --parallel 8 --data-only;
#   2. the same tables PostgreSQL -> MariaDB, --parallel 8 --data-only;
#   3. a route file of 20 copies (each table twice, PostgreSQL -> MariaDB), all at once (bridge run).
# Needs the sources scripts/bench-migrate.sh makes (MariaDB migbench, PostgreSQL migbench_src).
#   RUNS=2 bash scripts/bench-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-2}
B="node $PWD/bin/bridge.js"
MY="mariadb -h 127.0.0.1 -u root"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
[ "$($MY -N -e "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'migbench'")" = 10 ] || { echo "run scripts/bench-migrate.sh first (it makes the sources)"; exit 1; }
psql -X -q -h 127.0.0.1 -U postgres -d migbench_src -Atc 'SELECT 1 FROM reviews LIMIT 1' >/dev/null || { echo "run scripts/bench-migrate.sh first"; exit 1; }
tables=$($MY -N -e "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'migbench' ORDER BY TABLE_NAME")
{
  echo 'connections:'
  echo '  pg: postgres://postgres@127.0.0.1:5432/migbench_src'
  echo '  my: mariadb://root@127.0.0.1:3306/migmem'
  echo 'routes:'
  for t in $tables; do for k in a b; do
    echo "  ${t}_$k:"; echo "    source: pg?table=$t"; echo "    sink: my?table=${t}_$k&columns=auto&auto_create_table=true"
  done; done
} > "$W/routes.yaml"
fresh() { $MY -e 'DROP DATABASE IF EXISTS migmem; CREATE DATABASE migmem'; }
# Seconds and peak RSS (MB) of a command: "<s> s, <MB> MB".
timed() { /usr/bin/time -f '%e %M' -o "$W/t" "$@" >"$W/out" 2>&1 || { tail -3 "$W/out" >&2; echo "FAILED"; return; }; awk '{printf "%s s, %d MB", $1, $2/1024}' "$W/t"; }
for r in $(seq 1 "$RUNS"); do
  for mb in 200 0; do
    fresh; echo "round $r budget $mb: MariaDB -> MariaDB --parallel 8: $(timed $B copy 'mariadb://root@127.0.0.1:3306/migbench?table=*' 'mariadb://root@127.0.0.1:3306/migmem?table=*&columns=auto&auto_create_table=true' --parallel 8 --data-only --memory-budget $mb --progress none)"
    fresh; echo "round $r budget $mb: PostgreSQL -> MariaDB --parallel 8: $(timed $B copy 'postgres://postgres@127.0.0.1:5432/migbench_src?table=*' 'mariadb://root@127.0.0.1:3306/migmem?table=*&columns=auto&auto_create_table=true' --parallel 8 --data-only --memory-budget $mb --progress none)"
    fresh; echo "round $r budget $mb: route file of 20 copies: $(timed $B run "$W/routes.yaml" --memory-budget $mb --progress none)"
  done
done
echo "rows in the last route file's targets: $($MY -N -e "SELECT SUM(TABLE_ROWS) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'migmem'") (InnoDB's estimate)"
$MY -e 'DROP DATABASE IF EXISTS migmem'
