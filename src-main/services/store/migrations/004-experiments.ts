import type { Migration } from '../migration'

/**
 * Experiments and their per-cell results. Experiments are simulations (ground truth, seeded, never charged):
 * `simulation` is 1 on every row and cannot be anything else.
 */
export const migration004: Migration | null = {
  version: 4,
  name: 'experiments and per-cell results',
  up: (db) => {
    db.exec(`
      CREATE TABLE experiments (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        engine      TEXT NOT NULL CHECK (engine IN ('threshold', 'aiq', 'search')),
        simulation  INTEGER NOT NULL DEFAULT 1 CHECK (simulation = 1),
        seed        TEXT NOT NULL,
        spec        TEXT NOT NULL,
        workloads   TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('running', 'done', 'partial', 'cancelled', 'failed')),
        cells_total INTEGER NOT NULL,
        created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
      CREATE TABLE experiment_cells (
        experiment_id TEXT NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
        cell_index    INTEGER NOT NULL,
        cell_key      TEXT NOT NULL,
        sweep         TEXT NOT NULL,
        workload      TEXT NOT NULL,
        mechanism     TEXT NOT NULL,
        params        TEXT NOT NULL,
        seed          TEXT NOT NULL,
        trials        INTEGER NOT NULL,
        status        TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
        error         TEXT,
        metrics       TEXT,
        extras        TEXT,
        compute_ms    REAL,
        finished_at   TEXT,
        PRIMARY KEY (experiment_id, cell_index)
      ) STRICT;
      CREATE INDEX experiment_cells_key ON experiment_cells (experiment_id, cell_key);
    `)
  }
}
