#!/usr/bin/env bash
# The package as users install it (issue 17): npm pack, install the tarball into an empty
# directory without dev dependencies, then run the installed binary. Fails when the install is
# over 80 MB, when a copy PostgreSQL/MariaDB/SQLite -> SQLite does not land every row, or when a
# missing optional package is not named in one line.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/bridge-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
npm pack --silent --pack-destination "$work" >/dev/null
# better-sqlite3 installs a prebuilt binary when it can download one (users online) and compiles
# SQLite when it cannot (this machine has no route to GitHub's releases: about 100 s of CI). The
# same version's binary, which npm ci built for this checkout, is offered under the name
# prebuild-install looks for; when it does not match (another version), it compiles as before.
sq=$(node -p "require('./node_modules/better-sqlite3/package.json').version" 2>/dev/null || true)
if [ -n "$sq" ] && [ -f node_modules/better-sqlite3/build/Release/better_sqlite3.node ]; then
  mkdir -p "$work/prebuilds"
  tar -czf "$work/prebuilds/better-sqlite3-v$sq-node-v$(node -p process.versions.modules)-$(node -p process.platform)-$(node -p process.arch).tar.gz" -C node_modules/better-sqlite3 build/Release/better_sqlite3.node
  export npm_config_better_sqlite3_local_prebuilds="$work/prebuilds"
fi
mkdir "$work/app" && cd "$work/app"
printf '{"name":"app","private":true}\n' > package.json
npm install --omit=dev --no-audit --no-fund --silent "$work"/bridge-*.tgz
size=$(du -sm node_modules | cut -f1)
echo "installed: ${size} MB in node_modules"
[ "$size" -le 80 ] || { echo "FAIL: the production install is ${size} MB (> 80 MB)"; exit 1; }
bin=node_modules/.bin/bridge
"$bin" --version
pg=${BRIDGE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}
maria=${BRIDGE_TEST_MARIADB_URL:-mariadb://root@127.0.0.1:3306/test}
psql "$pg" -qc "DROP TABLE IF EXISTS pkg_check; CREATE TABLE pkg_check (id int PRIMARY KEY, v text); INSERT INTO pkg_check SELECT g, 'v' || g FROM generate_series(1, 2500) g"
mariadb -h 127.0.0.1 -u root test -e "DROP TABLE IF EXISTS pkg_check; CREATE TABLE pkg_check (id int PRIMARY KEY, v text); INSERT INTO pkg_check SELECT seq, CONCAT('v', seq) FROM seq_1_to_2500"
"$bin" copy "$pg?table=pkg_check" "sqlite://$work/out.db?table=from_pg&columns=auto&auto_create_table=true" --progress none
"$bin" copy "$maria?table=pkg_check" "sqlite://$work/out.db?table=from_maria&columns=auto&auto_create_table=true" --progress none
for t in from_pg from_maria; do
  n=$("$bin" copy "sqlite://$work/out.db?table=$t" - -q | wc -l)
  [ "$n" = 2500 ] || { echo "FAIL: $t holds $n rows, not 2500"; exit 1; }
done
# An optional package that is not installed: one error line naming it, exit 2.
set +e
out=$("$bin" copy 'sqlserver://127.0.0.1/db?table=t' - 2>&1); code=$?
set -e
echo "$out"
[ "$code" = 2 ] && [ "$(grep -c 'error:' <<<"$out")" = 1 ] && grep -q 'needs the package tedious, which is not installed: npm install tedious' <<<"$out" || { echo "FAIL: a missing optional package is not reported in one line (exit $code)"; exit 1; }
psql "$pg" -qc "DROP TABLE pkg_check"; mariadb -h 127.0.0.1 -u root test -e "DROP TABLE pkg_check"
echo "package check: ok"
