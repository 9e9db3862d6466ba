import { configError } from '../../../core/errors.js';
import { Message } from '../../../core/message.js';
import type { PlanItem, Reply } from '../../../core/route.js';
import { tokenValue } from '../values/convert.js';
import type { Database } from '../database.js';
import { rowRenderer } from '../values/render.js';
import { rawText } from '../values/raw-text.js';
import { renderTemplate, type Template } from './tokens.js';
import type { SqlResult } from '../types.js';
import type { Writer } from './writer.js';

/** Metadata key of lookup answers: `found` or `not_found`. */
export const LOOKUP_KEY = 'bridge.lookup';

/**
 * lookup_query: answers each message with the first row as JSON (metadata bridge.lookup = found),
 * or `null` (not_found). `… IN (${payload:f})` with no other token answers a whole batch with one
 * query and matches rows back through the result column named f.
 */
export class LookupWriter implements Writer {
  private readonly batchField: string | undefined;

  constructor(
    private readonly db: Database,
    private readonly t: Template,
    private readonly source: string,
  ) {
    const b = t.bindings;
    if (b.length === 1 && b[0]!.from === 'field' && /\bIN\s*\(\s*$/i.test(t.texts[0]!) && /^\s*\)/.test(t.texts[1]!)) this.batchField = b[0]!.name;
  }

  private render(res: SqlResult): (row: unknown[]) => string {
    const driver = this.db.driver;
    return rowRenderer(res.fields.map((f) => ({ name: f.name, type: f.type, elem: f.elem, scale: f.scale })), { timestamps: 'text', ...(driver.parseArray ? { parseArray: driver.parseArray } : {}) }, driver.loose);
  }

  private answer(m: Message, json: string | undefined): Message {
    const reply = new Message(json ?? 'null', { [LOOKUP_KEY]: json === undefined ? 'not_found' : 'found' }, undefined, m.id);
    reply.isJson = true;
    return reply;
  }

  async write(messages: Message[]): Promise<Reply[]> {
    if (this.batchField === undefined) {
      const out: Reply[] = [];
      const sql = renderTemplate(this.t, (i) => this.db.dialect.param(i), 1);
      for (const m of messages) {
        const res = await this.db.query(sql, this.t.bindings.map((b) => tokenValue(b, m, this.db.dialect)));
        out.push(this.answer(m, res.rows.length ? this.render(res)(res.rows[0]!) : undefined));
      }
      return out;
    }
    const field = this.batchField;
    const d = this.db.dialect;
    const keyOf = (m: Message): string | undefined => {
      const v = tokenValue({ from: 'field', name: field }, m, d);
      return v === null || v === undefined ? undefined : String(v);
    };
    const wanted = new Map<string, unknown>();
    for (const m of messages) {
      const k = keyOf(m);
      if (k !== undefined && !wanted.has(k)) wanted.set(k, tokenValue({ from: 'field', name: field }, m, d));
    }
    const found = new Map<string, string>();
    const values = [...wanted.values()];
    const size = Math.min(d.maxParams, 1000);
    for (let i = 0; i < values.length; i += size) {
      const part = values.slice(i, i + size);
      const sql = this.t.texts[0] + part.map((_, j) => d.param(j + 1)).join(', ') + this.t.texts[1];
      const res = await this.db.query(sql, part);
      let col = res.fields.findIndex((f) => f.name === field);
      if (col < 0) col = res.fields.findIndex((f) => f.name.toLowerCase() === field.toLowerCase());
      if (col < 0) throw configError(`lookup_query must return the column ${field} so that rows can be matched to messages by IN (\${payload:${field}})`);
      const render = this.render(res);
      for (const row of res.rows) {
        const k = rawText(row[col]);
        if (!found.has(k)) found.set(k, render(row));
      }
    }
    return messages.map((m) => {
      const k = keyOf(m);
      return this.answer(m, k === undefined ? undefined : found.get(k));
    });
  }

  async locate(): Promise<undefined> {
    return undefined;
  }

  plan(): PlanItem[] {
    return [
      { label: 'lookup', value: this.source },
      { label: 'answers', value: this.batchField ? `one query per batch, rows matched back by ${this.batchField}` : 'one query per message; the first row answers' },
    ];
  }
}
