import type Database from 'better-sqlite3'

/** One numbered schema migration (store/migrations.ts lists them in order; each runs in its own transaction). */
export interface Migration {
  version: number
  name: string
  up: (db: Database.Database) => void
}
