import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/bridge.js';

/** Runs bash's completion function on partial command lines, as bash would call it. */
function complete(line: string): string[] {
  const script = `
source ${JSON.stringify(path.join(ROOT, 'completions/bridge.bash'))}
COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}
cur="\${COMP_LINE##* }"
read -ra COMP_WORDS <<< "$COMP_LINE"; [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
COMP_WORDS[COMP_CWORD]="\${cur##*[=:&]}"
_bridge
printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('bash completion', () => {
  it('subcommands, flags, schemes, ?field= names and enum values', () => {
    expect(complete('bridge co')).toEqual(['copy', 'connectors', 'completion']);
    expect(complete('bridge tail --cursor')).toEqual(['--cursor-column', '--cursor-id']);
    expect(complete('bridge copy my')).toEqual(['mysql://']);
    // bash breaks words at ':' '=' '&': the function offers only what follows the break.
    expect(complete('bridge copy postgres://h/db?table=x&cursor_c')).toEqual(['cursor_column=']);
    expect(complete('bridge copy postgres://h/db?table=x&timestamps=r')).toEqual(['rfc3339']);
    expect(complete('bridge copy https://api.example.com/in?compre').sort()).toEqual(
      ['compression=', 'compression_enabled=', 'compression_threshold_bytes='].map((f) => `//api.example.com/in?${f}`),
    );
    expect(complete('bridge copy --progress j')).toEqual(['json']);
    expect(complete('bridge serve 0.0.0.0:8080 - --src-opt server_protocol=h')).toEqual(['http1_only', 'http2_only']);
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
  it("the README's field tables are `bridge connectors --format markdown`", () => {
    const tables = execFileSync('node', [BIN, 'connectors', '--format', 'markdown'], { encoding: 'utf8' }).trim();
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('<!-- fields:start');
    const body = readme.slice(readme.indexOf('\n', start) + 1, readme.indexOf('<!-- fields:end -->')).trim();
    expect(body).toBe(tables);
  });

  it('connectors --format json lists every field with type, default, roles and secret flag', () => {
    const specs = JSON.parse(execFileSync('node', [BIN, 'connectors', 'database', '--format', 'json'], { encoding: 'utf8' })) as { fields: { name: string; secret?: boolean; roles: string[] }[] }[];
    const f = specs[0]!.fields;
    expect(f.find((x) => x.name === 'checkpoint_store')).toMatchObject({ secret: true, roles: ['consumer'] });
    expect(f.map((x) => x.name)).toContain('publication');
  });
});
