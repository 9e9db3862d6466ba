import type { LogicalType } from '../sql/types.js';

/** INFORMATION_SCHEMA.COLUMNS.DATA_TYPE → logical type. */
export function mssqlType(dataType: string): LogicalType {
  switch (dataType.toLowerCase()) {
    case 'bit':
      return 'bool';
    case 'tinyint':
    case 'smallint':
    case 'int':
      return 'int';
    case 'bigint':
      return 'bigint';
    case 'decimal':
    case 'numeric':
    case 'money':
    case 'smallmoney':
      return 'decimal';
    case 'float':
    case 'real':
      return 'float';
    case 'date':
      return 'date';
    case 'time':
      return 'time';
    case 'datetime':
    case 'datetime2':
    case 'smalldatetime':
      return 'timestamp';
    case 'datetimeoffset':
      return 'timestamptz';
    case 'uniqueidentifier':
      return 'uuid';
    case 'binary':
    case 'varbinary':
    case 'image':
    case 'rowversion':
    case 'timestamp':
      return 'bytes';
    default:
      return 'text';
  }
}

/** tedious result column type names → logical type (for select_query results). */
export function tediousType(name: string): LogicalType {
  return mssqlType(
    (
      {
        IntN: 'int',
        BitN: 'bit',
        FloatN: 'float',
        DecimalN: 'decimal',
        NumericN: 'numeric',
        MoneyN: 'money',
        DateTimeN: 'datetime',
        DateTime2: 'datetime2',
        DateTimeOffset: 'datetimeoffset',
        UniqueIdentifier: 'uniqueidentifier',
        VarBinary: 'varbinary',
        BigVarBin: 'varbinary',
        BigBinary: 'binary',
        Image: 'image',
      } as Record<string, string>
    )[name] ?? name,
  );
}

/**
 * Values the driver would turn into lossy JS types are selected as text: decimals and money
 * (tedious gives numbers), datetime2 and friends (tedious gives Dates with milliseconds), so
 * datetime2's seven fractional digits and exact decimals survive (decisions §4).
 */
export function selectExpression(quoted: string, dataType: string): string {
  switch (dataType.toLowerCase()) {
    case 'decimal':
    case 'numeric':
    case 'money':
    case 'smallmoney':
      return `CONVERT(varchar(64), ${quoted}) AS ${quoted}`;
    case 'datetime2':
    case 'datetime':
    case 'smalldatetime':
      return `CONVERT(varchar(27), ${quoted}, 121) AS ${quoted}`;
    case 'datetimeoffset':
      return `CONVERT(varchar(34), ${quoted}, 121) AS ${quoted}`;
    case 'time':
      return `CONVERT(varchar(16), ${quoted}, 114) AS ${quoted}`;
    case 'date':
      return `CONVERT(varchar(10), ${quoted}, 23) AS ${quoted}`;
    case 'uniqueidentifier':
      return `LOWER(CONVERT(varchar(36), ${quoted})) AS ${quoted}`;
    default:
      return quoted;
  }
}
