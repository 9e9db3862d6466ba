import type { Command } from 'commander';
import type { ConnectorSpec, FieldSpec } from '../config/fields.js';
import { SPECS } from '../connectors/registry.js';

function defaultText(f: FieldSpec): string {
  if (f.defaultText) return f.defaultText;
  if (f.default === undefined) return '';
  return String(f.default);
}

function typeText(f: FieldSpec): string {
  return f.type === 'enum' ? f.values!.join(' \\| ') : f.type;
}

/** Markdown table of one connector's fields: docs/connectors.md's tables are this output. */
export function markdown(spec: ConnectorSpec): string {
  const rows = spec.fields.map((f) => {
    const notes = [f.kinds ? `only ${f.kinds.join(', ')}` : '', f.secret ? 'secret' : '', f.planned ? 'not implemented yet' : ''].filter(Boolean).join('; ');
    return `| \`${f.name}\` | ${typeText(f)} | ${defaultText(f) || '—'} | ${f.roles.join(', ')} | ${f.description.replace(/\|/g, '\\|')}${notes ? ` *(${notes})*` : ''} |`;
  });
  return [`### ${spec.name}`, '', spec.description, '', `Schemes: ${Object.keys(spec.schemes).map((s) => (s === '-' ? '`-`' : `\`${s}://\``)).join(', ')}`, '', '| field | type | default | roles | description |', '|---|---|---|---|---|', ...rows].join('\n');
}

function text(spec: ConnectorSpec): string {
  const lines = [`${spec.name}: ${spec.description}`, `  schemes: ${Object.keys(spec.schemes).join(', ')}`];
  for (const f of spec.fields) {
    const d = defaultText(f);
    lines.push(`  ${f.name} (${typeText(f).replace(/\\\|/g, '|')}${d ? `, default ${d}` : ''}; ${f.roles.join('+')}${f.kinds ? `; ${f.kinds.join(',')}` : ''}${f.secret ? '; secret' : ''}${f.planned ? '; not implemented yet' : ''})`);
    lines.push(`      ${f.description}`);
  }
  return lines.join('\n');
}

export function connectorsCommand(program: Command): void {
  program
    .command('connectors')
    .description('list every connector field from the schemas that validate them')
    .argument('[name]', 'database, http or ndjson')
    .option('--format <format>', 'text, json or markdown', 'text')
    .action((name: string | undefined, o: { format: string }) => {
      const specs = SPECS.filter((s) => !name || s.name === name || Object.values(s.schemes).includes(name) || Object.hasOwn(s.schemes, name));
      if (specs.length === 0) {
        process.stderr.write(`bridge: error: unknown connector ${name}: use database, http or ndjson\n`);
        process.exit(2);
      }
      if (o.format === 'json') process.stdout.write(JSON.stringify(specs, null, 2) + '\n');
      else if (o.format === 'markdown') process.stdout.write(specs.map(markdown).join('\n\n') + '\n');
      else process.stdout.write(specs.map(text).join('\n\n') + '\n');
    });
}
