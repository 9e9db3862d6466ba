import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/bridge.js';

/** Presses Tab in a real interactive bash (on a pseudo-terminal) with the generated completion loaded. */
function tab(line: string): { offered: string[]; line: string } {
  const out = execFileSync('python3', [path.join(ROOT, 'test/helpers/bash-tab.py'), path.join(ROOT, 'completions/bridge.bash'), line], { encoding: 'utf8', timeout: 20_000 });
  return JSON.parse(out) as { offered: string[]; line: string };
}
const complete = (line: string): string[] => tab(line).offered;

describe('bash completion', () => {
  it('subcommands, flags, schemes, ?field= names and enum values', () => {
    expect(complete('bridge co')).toEqual(['copy', 'connectors', 'completion']);
    expect(complete('bridge ru')).toEqual(['run']);
    expect(complete('bridge run --env')).toEqual(['--env-file']);
    expect(complete('bridge copy --par')).toEqual(['--parallel', '--partition']);
    expect(complete('bridge run completions/bridge.b')).toEqual(['completions/bridge.bash']);
    expect(complete('bridge tail --cursor')).toEqual(['--cursor-column', '--cursor-id', '--cursor-lag-ms']);
    expect(complete('bridge copy my')).toEqual(['mysql://', 'mysql+cdc://']);
    // Unquoted, bash breaks words at ':' and '=': the function offers only what follows the break.
    expect(complete('bridge copy postgres://h/db?cursor_c')).toEqual(['//h/db?cursor_column=']);
    expect(complete('bridge copy https://api.example.com/in?compre').sort()).toEqual(
      ['compression=', 'compression_enabled=', 'compression_threshold_bytes='].map((f) => `//api.example.com/in?${f}`),
    );
    expect(complete('bridge copy --progress j')).toEqual(['json']);
    expect(complete('bridge serve 0.0.0.0:8080 - --src-opt server_protocol=h')).toEqual(['http1_only', 'http2_only']);
  });

  // Every URL with '&' must be quoted; completion used to offer nothing or not complete there.
  it('completes inside a leading single quote, as URLs with & are typed', () => {
    expect(tab("bridge copy 'postgres://x/db?ta")).toEqual({ offered: ['postgres://x/db?table='], line: "bridge copy 'postgres://x/db?table='" });
    expect(tab("bridge copy 'sqlite://a.db?table=t&auto").line).toBe("bridge copy 'sqlite://a.db?table=t&auto_create_table='");
    expect(tab("bridge copy 'postgres://h/db?table=x&timestamps=r").line).toBe("bridge copy 'postgres://h/db?table=x&timestamps=rfc3339' ");
    expect(tab('bridge copy "postgres://h/db?table=x&cursor_c').offered).toEqual(['postgres://h/db?table=x&cursor_column=']);
    expect(tab("bridge copy 'my").offered).toEqual(['mysql://', 'mysql+cdc://']);
  });

  it('the files in completions/ are what `bridge completion` prints', () => {
    for (const [shell, file] of [
      ['bash', 'bridge.bash'],
      ['zsh', '_bridge'],
      ['fish', 'bridge.fish'],
    ]) {
      expect(readFileSync(path.join(ROOT, 'completions', file!), 'utf8')).toBe(execFileSync('node', [BIN, 'completion', shell!], { encoding: 'utf8' }));
    }
  });
});

describe('docs generated from the schemas', () => {
  it("the field tables of docs/connectors.md are `bridge connectors --format markdown`", () => {
    const tables = execFileSync('node', [BIN, 'connectors', '--format', 'markdown'], { encoding: 'utf8' }).trim();
    const doc = readFileSync(path.join(ROOT, 'docs', 'connectors.md'), 'utf8');
    const start = doc.indexOf('<!-- fields:start');
    expect(start).toBeGreaterThan(-1);
    const body = doc.slice(doc.indexOf('\n', start) + 1, doc.indexOf('<!-- fields:end -->')).trim();
    expect(body).toBe(tables);
  });

  it('connectors --format json lists every field with type, default, roles and secret flag', () => {
    const specs = JSON.parse(execFileSync('node', [BIN, 'connectors', 'database', '--format', 'json'], { encoding: 'utf8' })) as { fields: { name: string; secret?: boolean; roles: string[] }[] }[];
    const f = specs[0]!.fields;
    expect(f.find((x) => x.name === 'checkpoint_store')).toMatchObject({ secret: true, roles: ['consumer'] });
    expect(f.map((x) => x.name)).toContain('publication');
  });
});
