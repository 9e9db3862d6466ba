import type { Message } from '../../../core/message.js';
import type { PlanItem } from '../../../core/route.js';
import { tokenValue } from '../values/convert.js';
import type { Database } from '../database.js';
import { cutToFit } from './statement-bytes.js';
import { renderTemplate, type Binding, type TokenQuery } from './tokens.js';
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
    const t = mr ? mr.tuple : this.q.whole;
    const rows = messages.map((m) => ({ m, v: t.bindings.map((b) => tokenValue(b, m, d)) }));
    // Cut to the server's longest statement (MySQL/MariaDB max_allowed_packet), as the other writers are: a value that cannot fit is rejected by its token.
    const names = t.bindings.map(tokenName);
    const fit = this.statementBytes ? cutToFit(rows, (x) => x.v, () => names, (x) => x.m, this.statementBytes) : [rows];
    if (!mr) {
      const sql = renderTemplate(this.q.whole, param, 1);
      return fit.flat().map((x) => ({ sql, params: x.v }));
    }
    const per = mr.tuple.bindings.length;
    return fit.flatMap((run) =>
      chunkByParams(run, per, d.maxParams).map((part) => {
        let values = '';
        const params: unknown[] = [];
        for (let j = 0; j < part.length; j++) {
          values += (j ? ',' : '') + renderTemplate(mr.tuple, param, params.length + 1);
          for (const v of part[j]!.v) params.push(v);
        }
        return { sql: `${mr.prefix}${values}${mr.suffix}`, params };
      }),
    );
  }

  plan(): PlanItem[] {
    return [
      { label: 'insert', value: this.q.source },
      { label: 'batching', value: this.q.multiRow ? 'multi-row VALUES, one transaction per batch' : 'row by row inside one transaction per batch (no repeatable VALUES tuple)' },
    ];
  }
}

/** How an error names a token's value: payload, payload:<field>, metadata:<key>. */
function tokenName(b: Binding): string {
  return b.from === 'payload' ? 'payload' : b.from === 'field' ? `payload:${b.name}` : `metadata:${b.key}`;
}
