import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/config/endpoint.js';
import { specForScheme } from '../../src/connectors/registry.js';
import { parsePartition } from '../../src/connectors/sql/read/partition.js';
import { BIN, ROOT } from '../helpers/bridge.js';

/** The Kubernetes manifests hold valid YAML, and bridge accepts the commands, endpoints and flags they run. */
describe('deploy/kubernetes', () => {
  const dir = path.join(ROOT, 'deploy/kubernetes');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

  it('every manifest parses, and every container runs a bridge command bridge accepts', () => {
    expect(files.sort()).toEqual(['copy-indexed-job.yaml', 'serve-deployment.yaml', 'tail-cronjob.yaml']);
    const env = { SRC_PASSWORD: 'x', DST_PASSWORD: 'x', DB_PASSWORD: 'x' };
    Object.assign(process.env, env);
    for (const f of files) {
      const docs = parseAllDocuments(readFileSync(path.join(dir, f), 'utf8'));
      for (const d of docs) expect({ f, errors: d.errors.map((e) => e.message) }).toEqual({ f, errors: [] });
      const text = JSON.stringify(docs.map((d) => d.toJS()));
      const containers = [...text.matchAll(/"args":(\[[^\]]*\])/g)].map((m) => JSON.parse(m[1]!) as string[]);
      expect(containers.length).toBeGreaterThan(0);
      for (const args of containers) {
        const [command, src, dst, ...flags] = args.map((a) => a.replace('$(JOB_COMPLETION_INDEX)', '2'));
        const help = execFileSync('node', [BIN, command!, '--help'], { encoding: 'utf8' });
        for (const flag of flags.filter((x) => x.startsWith('--'))) expect({ f, flag, known: help.includes(flag) }).toEqual({ f, flag, known: true });
        resolveEndpoint(command === 'serve' ? `http://${src!}` : src!, 'consumer', specForScheme);
        resolveEndpoint(dst!, 'publisher', specForScheme);
        const p = flags.indexOf('--partition');
        if (p >= 0) expect(parsePartition(flags[p + 1]!)).toEqual({ k: 2, n: 4 });
      }
    }
  });
});
