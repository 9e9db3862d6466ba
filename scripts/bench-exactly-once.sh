#!/usr/bin/env bash
# The cost of exactly once (issue 28), in one run of ../shared/bench-anchors' data and checks:
# PostgreSQL → PostgreSQL, 1M rows of bench.events into an empty table with its DDL (primary key
# included), each run timed whole and the first of each variant checked by the content fingerprint.
#   cursor-eo   copy with cursor_id (a fresh one per run): the position commits with each batch (exactly once)
#   cursor-alo  the same with position_table=none: the source checkpoint alone (at least once, as before)
#   plain       copy without cursor_id (no position at all: the table read by key ranges)
# Variants alternate run by run (RUNS rounds), so the machine's drift hits each alike.
# Usage (from the repository, after npm run build; the anchors' setup.sh and gen-data.sh first):
#   RUNS=3 OUT=/tmp/eo-$(date +%s) bash scripts/bench-exactly-once.sh
set -uo pipefail  # no -e: the harness's helpers return non-zero on purpose (grep without a match)
cd "$(dirname "$0")/.."
H=$(cd ../shared/bench-anchors && pwd)
export PERF_DIR=$H
source "$H/lib/env.sh"
source "$H/lib/measure.sh"
ROUNDS=${RUNS:-3}
export RUNS=1 RUNS_SMALL=1 SIZE=1000000
OUT=${OUT:-/tmp/eo-$(date +%s)}; mkdir -p "$OUT/logs"; export OUT
printf '%s\n' "$RUNS_TSV_HEADER" > "$OUT/runs.tsv"
B="node $PWD/bin/bridge.js"
SRC="$PG_URL_SRC?table=events"
DST="$PG_URL_DST?table=events&columns=auto"
declare -A CMD=(
  [cursor-eo]="$B copy '$SRC&cursor_id=eo'\$(date +%s%N) '$DST' --cursor-column id --progress none"
  [cursor-alo]="$B copy '$SRC&cursor_id=alo'\$(date +%s%N) '$DST&position_table=none' --cursor-column id --progress none"
  [plain]="$B copy '$SRC' '$DST' --progress none"
)
for r in $(seq 1 "$ROUNDS"); do
  for v in cursor-eo cursor-alo plain; do
    # The fingerprint is checked on every run here (VERIFY_ALL): a variant that lost or doubled a row shows MISMATCH.
    VERIFY_ALL=1 bench pg-pg "$v" logged "prep_pg events logged" "verify_pg events events" "${CMD[$v]}"
  done
done
echo
awk -F'\t' 'NR > 1 { n[$3]++; s[$3] += $6; if ($11 != "ok") bad[$3] = bad[$3] " " $11; t[$3] = t[$3] " " $6 }
  END { for (v in n) printf "%-11s mean %.2f s over %d runs (%s)%s\n", v, s[v] / n[v], n[v], substr(t[v], 2), bad[v] ? " VERIFY:" bad[v] : "";
        if (n["cursor-eo"] && n["cursor-alo"]) printf "exactly once costs %+.1f %% against the same cursor copy without it\n", 100 * (s["cursor-eo"] / n["cursor-eo"]) / (s["cursor-alo"] / n["cursor-alo"]) - 100;
        if (n["cursor-eo"] && n["plain"]) printf "the exactly-once cursor copy runs at %.2fx the plain copy'"'"'s speed\n", (s["plain"] / n["plain"]) / (s["cursor-eo"] / n["cursor-eo"]) }' "$OUT/runs.tsv"
