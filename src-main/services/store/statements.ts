/**
 * Prepared statements kept per connection: the trust kernel runs the same small queries at every admission, and
 * preparing them each time was most of its cost.
 */
import type Database from 'better-sqlite3'

const byConnection = new WeakMap<Database.Database, Map<string, Database.Statement>>()

/** The statement for `sql` on this connection, prepared once. */
export function statement(db: Database.Database, sql: string): Database.Statement {
  let m = byConnection.get(db)
  if (!m) byConnection.set(db, (m = new Map()))
  let s = m.get(sql)
  if (!s) m.set(sql, (s = db.prepare(sql)))
  return s
}
