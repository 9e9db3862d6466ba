/** SQLSTATEs of a statement name the server does not know, or knows with another text. */
const REFUSED = new Set(['26000', '42P05']);

/**
 * Names for statements a connection runs again and again with other values (a listener's
 * multi-row INSERTs): a named statement is parsed and planned once per connection, where an
 * unnamed one is every time. That planning was half of PostgreSQL's CPU behind a busy listener
 * (15 -> 10 us per request). At most `max` per connection, which bounds what the server keeps.
 * A pooler that moves a session between servers between transactions (PgBouncer's transaction
 * mode before 1.21) refuses names it did not see prepared: the connection then stops naming.
 */
export class PreparedNames {
  private readonly names = new Map<string, string>();
  private off = false;

  constructor(private readonly max = 32) {}

  nameOf(sql: string): string | undefined {
    if (this.off) return undefined;
    let name = this.names.get(sql);
    if (name === undefined && this.names.size < this.max) this.names.set(sql, (name = `bridge_${this.names.size + 1}`));
    return name;
  }

  /** Whether `e` is the server refusing a name: naming stops on this connection, and the statement may run unnamed. */
  refused(e: unknown): boolean {
    if (!REFUSED.has(String((e as { code?: unknown })?.code))) return false;
    this.off = true;
    return true;
  }
}
