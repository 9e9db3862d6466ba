/** The schema vocabulary every connector uses to declare its fields (validation, docs, completions, redaction). */
export type Role = 'consumer' | 'publisher';
export type FieldType = 'string' | 'integer' | 'boolean' | 'object' | 'array' | 'enum';

export interface FieldSpec {
  name: string;
  type: FieldType;
  /** Allowed values of an enum field. */
  values?: readonly string[];
  default?: unknown;
  /** Human text for a default that is not a plain value ("none (constant interval)"). */
  defaultText?: string;
  roles: readonly Role[];
  secret?: boolean;
  description: string;
  /** Kinds of the connector that accept the field; all when absent. */
  kinds?: readonly string[];
  min?: number;
  max?: number;
  /** Sub-fields of an object field (the `tls` object). */
  fields?: readonly FieldSpec[];
  /** Present while the field is declared but not implemented: setting it is a config error. */
  planned?: string;
}

export interface ConnectorSpec {
  /** Connector name as users see it in `bridge connectors`. */
  name: string;
  description: string;
  /** URL schemes and the kind each selects. */
  schemes: Readonly<Record<string, string>>;
  /** Schemes whose URL is a file path (`<scheme>://./x`, `<scheme>:///abs`), not a host; `<scheme>::memory:` too for databases. */
  pathSchemes?: readonly string[];
  fields: readonly FieldSpec[];
}

export const fieldByName = (spec: ConnectorSpec, name: string): FieldSpec | undefined =>
  spec.fields.find((f) => f.name === name);

export const defaultsOf = (spec: ConnectorSpec): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const f of spec.fields) if (f.default !== undefined) out[f.name] = f.default;
  return out;
};
