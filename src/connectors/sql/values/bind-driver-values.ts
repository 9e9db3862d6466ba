import type { JsonNode } from '../../../core/json-exact.js';
import { reject } from './bind-rules.js';
import type { Decimal } from './exact.js';
import type { ColumnInfo } from '../types.js';

/**
 * The `out*` hooks of Binder: how a kind's driver takes a value once it is known to land exactly.
 * By default the checked text (or bytes, or boolean) as it is; each kind overrides what its driver
 * wants otherwise. Kinds extend Binder, not this class.
 */
export abstract class DriverValues {
  protected outBool(v: boolean, _col: ColumnInfo): unknown {
    return v;
  }
  protected outInt(text: string, _col: ColumnInfo): unknown {
    return text;
  }
  /** `d` is undefined for NaN/±Infinity. */
  protected outDecimal(text: string, _d: Decimal | undefined, _col: ColumnInfo): unknown {
    return text;
  }
  protected outFloat(text: string, _col: ColumnInfo): unknown {
    return text;
  }
  protected outText(s: string, _col: ColumnInfo): unknown {
    return s;
  }
  protected outJson(doc: string, _col: ColumnInfo): unknown {
    return doc;
  }
  protected outBytes(b: Buffer, _col: ColumnInfo): unknown {
    return b;
  }
  protected outTemporal(s: string, _col: ColumnInfo): unknown {
    return s;
  }
  /**
   * The kind's own one reading of the zone-less spelling (`YYYY-MM-DD HH:MM:SS[.ffffff]`, at most 6
   * digits of fraction) into `col`: its value, or NEED_FIELD for any other text. Undefined: checked
   * by zonelessFraction, then outTemporal.
   */
  protected zonelessTemporal(_col: ColumnInfo): ((s: string) => unknown) | undefined {
    return undefined;
  }
  protected outArray(_node: JsonNode, col: ColumnInfo): unknown {
    return reject(`is an array; ${col.dbType} does not hold arrays`);
  }
}
