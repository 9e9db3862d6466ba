#!/usr/bin/env bash
# npm run bench: the anchors harness (../shared/bench-anchors) with bridge beside every anchor, then
# the performance tables of docs/performance.md rewritten from that one run (scripts/readme-perf.js).
# The harness's change-capture tail runs `bridge tail … publication=tail_pub`, whose replication slot
# is kept so that a tail can resume. Left behind, it held 9–33 GB of this machine's WAL between runs,
# and the next run's tail decoded all of that before the probe's inserts (0 of 100 seen). So the
# slot is dropped before and after the run.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/anchors-$(date +%s)}"
SRC_URL="postgres://${PGUSER:-postgres}@${PGHOST:-127.0.0.1}:${PGPORT:-5432}/${SRC_DB:-bench}"
drop_slot() { node bin/bridge.js slots drop bridge_slot "$SRC_URL" 2>/dev/null || true; }
npm run build >/dev/null
drop_slot
trap drop_slot EXIT
BRIDGE_BIN="node $PWD/bin/bridge.js" OUT="$OUT" ../shared/bench-anchors/run-anchors.sh
node scripts/readme-perf.js "$OUT"
