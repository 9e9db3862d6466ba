import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/config/endpoint.js';
import type { FieldSpec, Role } from '../../src/config/fields.js';
import { SPECS, specForScheme } from '../../src/connectors/registry.js';
import { BridgeError } from '../../src/core/errors.js';

/**
 * Issue 30, 3: what `bridge connectors` says of each field's values (an enum's values, an integer's
 * bounds, a boolean) is what the parser does, for every field of every connector and role: a value
 * outside them is a config error (exit 2) that names the field; the documented default is what an
 * endpoint that does not set the field gets.
 */
const BASE: Record<string, Record<Role, string | undefined>> = {
  database: { consumer: 'postgres://h/db?table=t', publisher: 'postgres://h/db?table=t' },
  'change-capture': { consumer: 'postgres+cdc://h/db?tables=t', publisher: undefined },
  http: { consumer: 'http://127.0.0.1:8080', publisher: 'https://peer.example/x' },
  ndjson: { consumer: 'file:///tmp/in.ndjson', publisher: 'file:///tmp/out.ndjson' },
};
/** A scheme of a kind the field applies to. */
function urlFor(spec: string, role: Role, f: FieldSpec): string | undefined {
  const base = BASE[spec]?.[role];
  if (!base || !f.kinds?.length || f.kinds.includes('postgres')) return base;
  const scheme = f.kinds[0] === 'sqlite' ? 'sqlite:///tmp/x.db' : `${f.kinds[0]}${spec === 'change-capture' ? '+cdc' : ''}://h/db`;
  return base.replace(/^[a-z+]+:\/\/[^?]*/, scheme);
}
const refused = (url: string, role: Role, name: string, value: string): BridgeError | undefined => {
  try {
    resolveEndpoint(url, role, specForScheme, [[name, value]]);
  } catch (e) {
    return e as BridgeError;
  }
  return undefined;
};

for (const spec of SPECS)
  describe(`${spec.name} fields`, () => {
    for (const f of spec.fields)
      for (const role of f.roles) {
        const url = urlFor(spec.name, role, f);
        if (!url || f.planned) continue;
        if (f.type === 'enum')
          it(`${role} ${f.name}: a value outside ${f.values!.join('|')} is refused naming the field`, () => {
            const e = refused(url, role, f.name, 'no-such-value');
            expect(e?.kind).toBe('config');
            expect(e?.message).toContain(f.name);
          });
        if (f.type === 'boolean')
          it(`${role} ${f.name}: a value that is no boolean is refused naming the field`, () => {
            const e = refused(url, role, f.name, 'maybe');
            expect(e?.kind).toBe('config');
            expect(e?.message).toContain(f.name);
          });
        if (f.type === 'integer')
          it(`${role} ${f.name}: below ${f.min ?? '-'} / above ${f.max ?? '-'} / not a number is refused naming the field`, () => {
            const bad = ['twelve', ...(f.min !== undefined ? [String(f.min - 1)] : []), ...(f.max !== undefined ? [String(f.max + 1)] : [])];
            for (const v of bad) {
              const e = refused(url, role, f.name, v);
              expect(e?.kind, `${f.name}=${v}`).toBe('config');
              expect(e?.message).toContain(f.name);
            }
          });
        if (f.default !== undefined && f.type !== 'object')
          it(`${role} ${f.name}: left out, it is ${JSON.stringify(f.default)} as documented`, () => {
            const ep = resolveEndpoint(url, role, specForScheme);
            expect(ep.fields[f.name]).toEqual(f.default);
          });
      }
  });
