// Usage: node scripts/torn-write.cjs 40   (no database; shows why an NDJSON sink must check its last line before appending)
// Child: appends 4 MB batches of NDJSON lines with one write each, as the NDJSON sink does.
// Parent: SIGKILLs it at random moments and counts files left ending mid-line.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
if (process.argv[2] === 'child') {
  const fh = fs.openSync(process.argv[3], 'a');
  const line = JSON.stringify({ id: 1, v: 'x'.repeat(200) }) + '\n';
  const batch = line.repeat(Math.ceil(4e6 / line.length));
  for (;;) fs.writeSync(fh, batch);
}
(async () => {
  let torn = 0;
  const runs = Number(process.argv[2] ?? 50);
  for (let i = 0; i < runs; i++) {
    const f = require('node:path').join(require('node:os').tmpdir(), `torn-write-${process.pid}-${i}.ndjson`);
    fs.rmSync(f, { force: true });
    const p = spawn(process.execPath, [__filename, 'child', f]);
    await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    p.kill('SIGKILL');
    await new Promise((r) => p.on('exit', r));
    const size = fs.statSync(f).size;
    const b = Buffer.alloc(1);
    const fd = fs.openSync(f, 'r');
    fs.readSync(fd, b, 0, 1, size - 1);
    fs.closeSync(fd);
    if (b[0] !== 0x0a) torn++;
    fs.rmSync(f);
  }
  console.log(`${torn} of ${runs} files killed mid-write end inside a line`);
})();
