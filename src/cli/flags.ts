import type { Role } from '../config/fields.js';
import { SPECS } from '../connectors/registry.js';

export interface FieldFlag {
  field: string;
  flag: string;
  role: Role;
  boolean: boolean;
  description: string;
}

const kebab = (s: string): string => s.replace(/_/g, '-');

/**
 * Decisions §10: a field that only one role has anywhere becomes a flag of that side
 * (`--cursor-column id` → the source). Fields both roles know are set with --src-opt/--dst-opt.
 */
export function fieldFlags(): FieldFlag[] {
  const roles = new Map<string, Set<Role>>();
  const info = new Map<string, { boolean: boolean; description: string }>();
  for (const spec of SPECS)
    for (const f of spec.fields) {
      const set = roles.get(f.name) ?? new Set<Role>();
      for (const r of f.roles) set.add(r);
      roles.set(f.name, set);
      if (!info.has(f.name)) info.set(f.name, { boolean: f.type === 'boolean', description: f.description });
    }
  const out: FieldFlag[] = [];
  for (const [field, set] of roles) {
    if (set.size !== 1) continue;
    const i = info.get(field)!;
    out.push({ field, flag: `--${kebab(field)}`, role: [...set][0]!, boolean: i.boolean, description: i.description });
  }
  // Code-unit order, not localeCompare: its first call loads ICU's collator (~10 ms of every start).
  return out.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}
