import type { Message } from '../../../core/message.js';
import type { PlanItem } from '../../../core/route.js';
import { tokenValue } from '../values/convert.js';
import type { Database } from '../database.js';
import { renderTemplate, type TokenQuery } from './tokens.js';
import { chunkByParams, StatementWriter, type Statement } from './writer.js';

/**
 * insert_query with `?` / `${payload:f}` / `${metadata:k}`. A query of the form
 * `… VALUES (tuple) …` becomes one multi-row statement per chunk; any other runs row by row,
 * all inside one transaction per batch.
 */
export class TokenWriter extends StatementWriter {
  constructor(
    db: Database,
    private readonly q: TokenQuery,
  ) {
    super(db);
  }

  statements(messages: Message[]): Statement[] {
    const d = this.db.dialect;
    const param = (i: number): string => d.param(i);
    const mr = this.q.multiRow;
    if (!mr) {
      const sql = renderTemplate(this.q.whole, param, 1);
      return messages.map((m) => ({ sql, params: this.q.whole.bindings.map((b) => tokenValue(b, m, d)) }));
    }
    const per = mr.tuple.bindings.length;
    return chunkByParams(messages, per, d.maxParams).map((part) => {
      let values = '';
      const params: unknown[] = [];
      for (let j = 0; j < part.length; j++) {
        values += (j ? ',' : '') + renderTemplate(mr.tuple, param, params.length + 1);
        for (const b of mr.tuple.bindings) params.push(tokenValue(b, part[j]!, d));
      }
      return { sql: `${mr.prefix}${values}${mr.suffix}`, params };
    });
  }

  plan(): PlanItem[] {
    return [
      { label: 'insert', value: this.q.source },
      { label: 'batching', value: this.q.multiRow ? 'multi-row VALUES, one transaction per batch' : 'row by row inside one transaction per batch (no repeatable VALUES tuple)' },
    ];
  }
}
