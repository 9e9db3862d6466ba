import type { FieldKind, Fields, RawField } from '../../../core/json-fields.js';
import type { LazyPayload } from '../../../core/message.js';
import type { SourceColumn } from './bind.js';
import { columnRenderer, toRfc3339, type RenderColumn, type RenderOptions } from './render.js';

/** A string field whose JSON text is only built if someone asks for it. */
class StringField implements RawField {
  readonly kind = 'string' as const;
  private json: string | undefined;
  constructor(readonly text: string) {}
  get raw(): string {
    return (this.json ??= JSON.stringify(this.text));
  }
}

/** A field known by its JSON text; a string's unescaped text is computed on demand. */
class JsonField implements RawField {
  private unescaped: string | undefined;
  constructor(
    readonly kind: FieldKind,
    readonly raw: string,
  ) {}
  get text(): string | undefined {
    if (this.kind !== 'string') return undefined;
    return (this.unescaped ??= JSON.parse(this.raw) as string);
  }
}

const NULL_FIELD: RawField = { kind: 'null', raw: 'null' };
const TRUE_FIELD: RawField = { kind: 'true', raw: 'true' };
const FALSE_FIELD: RawField = { kind: 'false', raw: 'false' };

/** Classifies a JSON text by its first character (it is valid JSON: the renderer made it). */
function fromJson(json: string): RawField {
  const t = json.trimStart();
  switch (t[0]) {
    case '{':
      return new JsonField('object', json);
    case '[':
      return new JsonField('array', json);
    case '"':
      return new JsonField('string', json);
    case 'n':
      return NULL_FIELD;
    case 't':
      return TRUE_FIELD;
    case 'f':
      return FALSE_FIELD;
    default:
      return new JsonField('number', json);
  }
}

type Builder = (raw: unknown) => RawField;

const text = (raw: unknown): string => (typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw));

/**
 * What `${payload:f}` and columns=auto see of a column, built from the raw driver value without
 * rendering and re-scanning JSON. Each builder gives exactly the field the rendered JSON would
 * hold (test/unit/row-fields.test.ts compares the two on every type, loose and strict); unusual
 * types go through the renderer.
 */
function builder(c: RenderColumn, o: RenderOptions, loose: boolean): Builder {
  const render = columnRenderer(c, o, loose);
  const viaJson: Builder = (raw) => fromJson(render(raw));
  if (loose) return looseBuilder(c, o, viaJson);
  switch (c.type) {
    case 'text':
    case 'uuid':
    case 'time':
    case 'date':
      return (raw) => new StringField(text(raw));
    case 'timestamp':
    case 'timestamptz':
      return o.timestamps === 'rfc3339' ? (raw) => new StringField(toRfc3339(text(raw))) : (raw) => new StringField(text(raw));
    case 'decimal':
      return (raw) => (typeof raw === 'string' ? new StringField(raw) : viaJson(raw));
    case 'int':
    case 'bigint':
      return (raw) => {
        const json = render(raw);
        return json.charCodeAt(0) === 34 ? new StringField(json.slice(1, -1)) : new JsonField('number', json);
      };
    case 'bool':
      return (raw) => {
        const json = render(raw);
        return json === 'true' ? TRUE_FIELD : json === 'false' ? FALSE_FIELD : fromJson(json);
      };
    default:
      return viaJson;
  }
}

/**
 * A database that does not enforce types (SQLite) renders values of the column's family by the
 * column's type and others by their JS type: a string in a text-like column is that string.
 */
function looseBuilder(c: RenderColumn, o: RenderOptions, viaJson: Builder): Builder {
  switch (c.type) {
    case 'text':
    case 'uuid':
    case 'time':
    case 'date':
      return (raw) => (typeof raw === 'string' ? new StringField(raw) : viaJson(raw));
    case 'timestamp':
    case 'timestamptz':
      if (o.timestamps === 'rfc3339') return (raw) => (typeof raw === 'string' ? new StringField(toRfc3339(raw)) : viaJson(raw));
      return (raw) => (typeof raw === 'string' ? new StringField(raw) : viaJson(raw));
    default:
      return viaJson;
  }
}

/** Column names and builders of one result shape, shared by all its rows. */
export class RowShape {
  readonly index = new Map<string, number>();
  private readonly builders: Builder[];
  /** What a sink's binder knows of each column: its type, and whether the database enforces it. */
  readonly sources: SourceColumn[];
  /** Timestamp columns become RFC 3339 text in fields (timestamps=rfc3339), not the database's own text. */
  readonly rfc3339: boolean;

  constructor(
    readonly columns: RenderColumn[],
    o: RenderOptions,
    loose: boolean,
    /** Renders a whole row as its JSON object. */
    readonly render: (row: unknown[]) => string,
    sources: SourceColumn[] = [],
  ) {
    columns.forEach((c, i) => this.index.set(c.name, i));
    this.sources = sources;
    this.rfc3339 = o.timestamps === 'rfc3339';
    this.builders = columns.map((c) => {
      const b = builder(c, o, loose);
      return (raw: unknown) => (raw === null || raw === undefined ? NULL_FIELD : b(raw));
    });
  }

  field(row: unknown[], i: number): RawField {
    return this.builders[i]!(row[i]);
  }
}

/** The fields of one row, computed on access; also the row's lazily rendered JSON payload. */
export class RowFields implements Fields, LazyPayload {
  constructor(
    readonly shape: RowShape,
    /** The driver's values of the row, in the shape's column order. */
    readonly values: unknown[],
  ) {}

  /** The field of column `i` of the shape. */
  at(i: number): RawField {
    return this.shape.field(this.values, i);
  }

  /** The driver's own value of column `i` (storage class and all). */
  native(i: number): unknown {
    return this.values[i];
  }

  render(): string {
    return this.shape.render(this.values);
  }

  /** Approximate bytes of the values, for progress figures when the JSON is never rendered. */
  size(): number {
    let n = 2;
    for (const v of this.values) n += typeof v === 'string' ? v.length + 4 : Buffer.isBuffer(v) ? v.length + 4 : 8;
    return n;
  }

  get(name: string): RawField | undefined {
    const i = this.shape.index.get(name);
    return i === undefined ? undefined : this.shape.field(this.values, i);
  }

  *[Symbol.iterator](): Iterator<[string, RawField]> {
    const cols = this.shape.columns;
    for (let i = 0; i < cols.length; i++) yield [cols[i]!.name, this.shape.field(this.values, i)];
  }
}
