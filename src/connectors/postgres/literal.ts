/** A string literal PostgreSQL reads the same whatever standard_conforming_strings says. */
export function textLiteral(s: string): string {
  return `E'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
