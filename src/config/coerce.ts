import { configError } from '../core/errors.js';
import type { FieldSpec } from './fields.js';
import { suggest } from './suggest.js';

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** Turns the text of a query value or flag into the field's type, or a config error naming it. */
export function coerceField(f: FieldSpec, raw: unknown, where: string): unknown {
  const name = `${where}${f.name}`;
  switch (f.type) {
    case 'string': {
      if (typeof raw !== 'string') throw configError(`${name} must be a string`);
      if (raw === '') throw configError(`${name} is empty: give a value or leave the field out`);
      return raw;
    }
    case 'integer': {
      const text = typeof raw === 'number' ? String(raw) : raw;
      if (typeof text !== 'string' || !/^-?\d{1,16}$/.test(text.trim())) throw configError(`${name} must be an integer, got ${JSON.stringify(clip(raw))}`);
      const n = Number(text);
      if (!Number.isSafeInteger(n)) throw configError(`${name} is too large`);
      if (f.min !== undefined && n < f.min) throw configError(`${name} must be at least ${f.min}, got ${n}`);
      if (f.max !== undefined && n > f.max) throw configError(`${name} must be at most ${f.max}, got ${n}`);
      return n;
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      const t = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
      if (t !== undefined && TRUE.has(t)) return true;
      if (t !== undefined && FALSE.has(t)) return false;
      // An empty value (`delete_after_read=` from an unset shell variable) must not switch anything on.
      if (t === '') throw configError(`${name} is empty: write ${name}=true or ${name}=false`);
      throw configError(`${name} must be true or false, got ${JSON.stringify(clip(raw))}`);
    }
    case 'enum': {
      if (typeof raw !== 'string' || !f.values!.includes(raw)) throw configError(`${name} must be one of ${f.values!.join(', ')}, got ${JSON.stringify(clip(raw))}`);
      return raw;
    }
    case 'object': {
      const v = typeof raw === 'string' ? parseJson(raw, name) : raw;
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw configError(`${name} must be a JSON object, e.g. ${f.name}={"required":true}`);
      if (!f.fields) return v;
      const out: Record<string, unknown> = {};
      for (const [k, sub] of Object.entries(v as Record<string, unknown>)) {
        const spec = f.fields.find((s) => s.name === k);
        if (!spec) {
          const s = suggest(k, f.fields.map((x) => x.name));
          throw configError(`${name}.${k} is not a field of ${f.name}${s ? ` (did you mean ${s}?)` : `; known: ${f.fields.map((x) => x.name).join(', ')}`}`);
        }
        out[k] = spec.type === 'string' || spec.type === 'boolean' || spec.type === 'integer' ? coerceScalar(spec, sub, `${name}.`) : coerceField(spec, sub, `${name}.`);
      }
      return out;
    }
    case 'array': {
      const v = typeof raw === 'string' ? parseJson(raw, name) : raw;
      if (!Array.isArray(v)) throw configError(`${name} must be a JSON array, e.g. ${f.name}=["user","password"]`);
      return v;
    }
  }
}

/** Inside JSON objects, booleans and numbers arrive typed; strings are still accepted. */
function coerceScalar(f: FieldSpec, v: unknown, where: string): unknown {
  if (f.type === 'string' && typeof v !== 'string') throw configError(`${where}${f.name} must be a string`);
  if (f.type === 'boolean' && typeof v !== 'boolean' && typeof v !== 'string') throw configError(`${where}${f.name} must be true or false`);
  if (f.type === 'integer' && typeof v !== 'number' && typeof v !== 'string') throw configError(`${where}${f.name} must be an integer`);
  return coerceField(f, v, where);
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw configError(`${name} is not valid JSON (${(e as Error).message.split('\n')[0]}): write it as a JSON literal`);
  }
}

const clip = (v: unknown): unknown => (typeof v === 'string' && v.length > 60 ? v.slice(0, 57) + '...' : v);
