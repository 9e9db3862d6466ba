import { Binder } from '../sql/values/bind.js';
import { toRfc3339 } from '../sql/values/render.js';
import type { ColumnInfo } from '../sql/types.js';

/** SQL Server parses ISO 8601 but not PostgreSQL's `+00` offsets: datetimeoffset values go as RFC 3339. */
export class MssqlBinder extends Binder {
  override readonly floatNaN = false;
  override readonly floatInfinity = false;

  protected override outTemporal(s: string, col: ColumnInfo): unknown {
    return col.type === 'timestamptz' ? toRfc3339(s) : s;
  }
}
