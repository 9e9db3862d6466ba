#!/usr/bin/env bash
# A second MariaDB server with the row-based binlog on, for the binlog change-capture tests
# (test/integration/binlog-capture.test.ts, test/faults/binlog-kill.test.ts). The machine's own
# server on 3306 keeps its binlog off and is used by every other test: this one has its own
# datadir, socket and port (3307), and root without a password. Idempotent: does nothing if up.
set -euo pipefail
dir=${BRIDGE_BINLOG_DIR:-/var/tmp/bridge-binlog}
port=${BRIDGE_BINLOG_PORT:-3307}
sock="$dir/mariadb.sock"
up() { mariadb -h 127.0.0.1 -P "$port" -u root -e 'select 1' >/dev/null 2>&1; }
if up; then exit 0; fi
mkdir -p "$dir"
chown mysql:mysql "$dir" 2>/dev/null || true
if [ ! -d "$dir/data/mysql" ]; then
  mariadb-install-db --user=mysql --datadir="$dir/data" --auth-root-authentication-method=normal --skip-test-db >"$dir/install.log" 2>&1
fi
# Row images in full, with column names (row metadata FULL), and one server id: what binlog change capture checks for at start.
/usr/sbin/mariadbd --no-defaults --user=mysql --datadir="$dir/data" --socket="$sock" --port="$port" --bind-address=127.0.0.1 \
  --pid-file="$dir/mariadb.pid" --log-error="$dir/error.log" --server-id=1 --log-bin="$dir/data/mariadb-bin" \
  --binlog-format=ROW --binlog-row-image=FULL --binlog-row-metadata=FULL --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci --innodb-buffer-pool-size=64M --max-connections=200 >/dev/null 2>&1 &
for _ in $(seq 1 60); do up && break; sleep 1; done
up || { echo "the binlog MariaDB on port $port did not start; see $dir/error.log" >&2; tail -n 20 "$dir/error.log" >&2; exit 1; }
mariadb -h 127.0.0.1 -P "$port" -u root -e "CREATE DATABASE IF NOT EXISTS test CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; DELETE FROM mysql.global_priv WHERE User=''; FLUSH PRIVILEGES"
