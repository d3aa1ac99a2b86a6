import type { Migration } from '../migration'
import { rebuildTable } from '../rebuild-table'

/**
 * Release kinds live in the code's spec registry, not in the schema: `releases` and `queries` are rebuilt without the
 * CHECK on `kind` (adding a kind needs no migration). `releases.status` keeps its CHECK.
 *
 * `ledger_entries` admits a fourth kind, 'alarm': the privacy officer's signed definition of a continual alarm, an act
 * like 'budget' and 'public' (amount 0, no notion, and signed: no alarm entry predates officer keys).
 *
 * Every column, row, index, trigger and AUTOINCREMENT counter is kept as it was (store/rebuild-table.ts), so the hashed
 * fields of the ledger are unchanged and the chain still verifies; release_ex_post and queries.first_id go on
 * referencing the rebuilt tables.
 */
export const migration019: Migration | null = {
  version: 19,
  name: 'release kinds in code, alarm acts in the ledger',
  up: (db) => {
    rebuildTable(db, {
      table: 'queries',
      create: `CREATE TABLE queries (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        dataset_id  INTEGER NOT NULL,
        name        TEXT NOT NULL,
        kind        TEXT NOT NULL,
        definition  TEXT NOT NULL,
        created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        deleted_at  TEXT,
        first_id    INTEGER REFERENCES queries(id),
        version     INTEGER NOT NULL DEFAULT 1,
        account_id  INTEGER REFERENCES accounts(id)
      ) STRICT`
    })
    rebuildTable(db, {
      table: 'releases',
      create: `CREATE TABLE releases (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at   TEXT NOT NULL,
        dataset_id   INTEGER NOT NULL,
        dataset_name TEXT NOT NULL,
        query_id     INTEGER NOT NULL,
        query_name   TEXT NOT NULL,
        kind         TEXT NOT NULL,
        mechanism    TEXT NOT NULL,
        params       TEXT NOT NULL,
        notion       TEXT NOT NULL,
        charge_nano  INTEGER NOT NULL,
        guarantee    TEXT NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('charged', 'answered', 'failed')),
        answer       TEXT,
        answered_at  TEXT,
        failure      TEXT
      ) STRICT`
    })
    rebuildTable(db, {
      table: 'ledger_entries',
      create: `CREATE TABLE ledger_entries (
        seq          INTEGER PRIMARY KEY,
        at           TEXT NOT NULL,
        kind         TEXT NOT NULL CHECK (kind IN ('charge', 'budget', 'public', 'alarm')),
        dataset_id   INTEGER NOT NULL,
        dataset_name TEXT NOT NULL,
        notion       TEXT CHECK (notion IS NULL OR notion IN ('eps-dp', 'predicate-wise-dp', 'eps-k-sensitive', 'anomaly-restricted-dp')),
        amount_nano  INTEGER NOT NULL CHECK (amount_nano >= 0),
        cells        TEXT NOT NULL,
        release_id   INTEGER UNIQUE,
        actor        TEXT NOT NULL,
        description  TEXT NOT NULL,
        detail       TEXT NOT NULL,
        prev_hash    TEXT NOT NULL,
        hash         TEXT NOT NULL UNIQUE,
        signer       TEXT,
        signature    TEXT,
        CHECK (kind <> 'charge' OR notion IS NOT NULL),
        CHECK (kind <> 'public' OR (amount_nano = 0 AND notion IS NULL)),
        CHECK (kind <> 'alarm' OR (amount_nano = 0 AND notion IS NULL AND signer IS NOT NULL AND signature IS NOT NULL))
      ) STRICT`
    })
  }
}
