import { Binder, Reject, show } from '../sql/values/bind.js';
import type { ColumnInfo } from '../sql/types.js';

/**
 * MySQL/MariaDB: no NaN or Infinity in floating-point columns; YEAR is bound as a number (the
 * string '0' would be read as 2000, and 1–99 as 2001–2099 or 1970–1999).
 */
export class MysqlBinder extends Binder {
  override readonly floatNaN = false;
  override readonly floatInfinity = false;
  override readonly holds = { decimalSpecials: false, dateInfinity: false, zeroDates: true, bcDates: false, negativeZero: false, untyped: false, invalidEnum: true };

  protected override outInt(text: string, col: ColumnInfo): unknown {
    if (col.variant !== 'year') return text;
    const n = Number(text);
    if (n !== 0 && (n < 1901 || n > 2155)) throw new Reject(`is ${show(text)}, which ${col.dbType} cannot hold (0 or 1901–2155)`);
    return n;
  }

  protected override outBool(v: boolean): unknown {
    return v ? 1 : 0;
  }
}
