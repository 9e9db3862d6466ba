#!/bin/bash
# SIGKILL a bridge tail (SQLite -> NDJSON file, 1M rows of ~420 bytes) at random moments, restart each time,
# then drain: count runs that left the file mid-line, and check every line parses and every id is there.
# Usage: BATCH=20000 scripts/kill-ndjson-tail.sh 60   (large batches make a kill inside a write likelier)
BIN=${BIN:-$(dirname "$0")/../bin/bridge.js}; KILLS=${1:-20}; D=$(mktemp -d)
sqlite3 $D/src.db "CREATE TABLE ev (id INTEGER PRIMARY KEY, v TEXT); WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM g WHERE i < 1000000) INSERT INTO ev SELECT i, printf('%.400c', 'x') FROM g"
SRC="sqlite://$D/src.db?table=ev&cursor_column=id&cursor_id=k"; OUT=$D/out.ndjson; torn=0
for i in $(seq 1 $KILLS); do
  node $BIN tail "$SRC" "file://$OUT" --progress none --batch-size ${BATCH:-1024} 2>>$D/err.log & pid=$!
  sleep $(awk "BEGIN{srand(); print 0.3+rand()*0.6}"); kill -9 $pid; wait $pid 2>/dev/null
  [ -s $OUT ] && [ "$(tail -c1 $OUT | xxd -p)" != "0a" ] && torn=$((torn+1))
done
node $BIN tail "$SRC" "file://$OUT" --exit-when-drained --progress none 2>>$D/err.log
node -e '
const fs=require("fs"); const lines=fs.readFileSync(process.argv[1],"utf8").split("\n"); const end=lines.pop();
let bad=0; const ids=new Set(); for (const l of lines) { try { ids.add(JSON.parse(l).id) } catch { bad++ } }
console.log(`lines ${lines.length}, unparsable ${bad}, distinct ids ${ids.size} of 1000000, ends with newline ${end===""}`);' $OUT
echo "runs killed mid-line: $torn of $KILLS; moved-aside warnings: $(grep -c 'moved an unfinished' $D/err.log); sidecars: $(ls $D | grep -c unfinished)"
rm -rf $D
