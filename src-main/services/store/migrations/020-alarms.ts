import type { Migration } from '../migration'

/**
 * Continual alarms (ALGORITHMS.md section 7).
 *
 * `alarms`: one row per alarm, its definition frozen from the saved question at signing (`definition`, the saved
 * question's JSON), schedule, mode and caps (`params`: the public parameters the officer signed, canonical JSON), and
 * the officer's signed 'alarm' ledger entry (`ledger_seq`). Only `status` and `paused_reason` change.
 *
 * `alarm_instances`: the instances of a when-fires alarm, in order (ordinal 1, 2, ...): the release that charged it, the
 * period it started in, fires used. `rho` is the instance's threshold noise: private (like the rows it protects), read
 * only by the evaluator, never in any output, log or error.
 *
 * `alarm_periods`: one row per evaluated period, key (alarm_id, period): the primary key is what makes an evaluation
 * happen once whatever the clocks and the evaluators (each period's charge and this row commit in one IMMEDIATE
 * transaction). `fired` holds the fired predicates' keys (public decisions); `late_rows_note` what the answer says of
 * rows that arrive later.
 */
export const migration020: Migration | null = {
  version: 20,
  name: 'continual alarms',
  up: (db) => {
    db.exec(`
      CREATE TABLE alarms (
        id               INTEGER PRIMARY KEY AUTOINCREMENT,
        uid              TEXT NOT NULL UNIQUE,
        dataset_id       INTEGER NOT NULL,
        query_id         INTEGER NOT NULL,
        definition       TEXT NOT NULL,
        name             TEXT NOT NULL,
        time_column      TEXT NOT NULL,
        period           TEXT NOT NULL CHECK (period IN ('hour', 'day', 'week')),
        start_at         TEXT NOT NULL,
        grace_seconds    INTEGER NOT NULL CHECK (grace_seconds >= 0),
        mode             TEXT NOT NULL CHECK (mode IN ('row-level', 'per-period', 'when-fires')),
        params           TEXT NOT NULL,
        lifetime_cap_nano INTEGER CHECK (lifetime_cap_nano IS NULL OR lifetime_cap_nano > 0),
        status           TEXT NOT NULL DEFAULT 'watching' CHECK (status IN ('watching', 'paused', 'ended')),
        paused_reason    TEXT,
        ledger_seq       INTEGER NOT NULL UNIQUE,
        account_id       INTEGER REFERENCES accounts(id),
        created_at       TEXT NOT NULL
      ) STRICT;
      CREATE INDEX alarms_dataset ON alarms(dataset_id);
      CREATE TABLE alarm_instances (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        alarm_id      INTEGER NOT NULL REFERENCES alarms(id),
        ordinal       INTEGER NOT NULL CHECK (ordinal >= 1),
        release_id    INTEGER NOT NULL UNIQUE,
        first_period  INTEGER NOT NULL CHECK (first_period >= 0),
        fires_used    INTEGER NOT NULL DEFAULT 0 CHECK (fires_used >= 0),
        state         TEXT NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'spent')),
        rho           REAL NOT NULL,
        ended_at      TEXT,
        UNIQUE (alarm_id, ordinal)
      ) STRICT;
      CREATE TABLE alarm_periods (
        alarm_id       INTEGER NOT NULL REFERENCES alarms(id),
        period         INTEGER NOT NULL CHECK (period >= 0),
        release_id     INTEGER,
        instance_id    INTEGER REFERENCES alarm_instances(id),
        fired          TEXT NOT NULL,
        charge_nano    INTEGER NOT NULL DEFAULT 0 CHECK (charge_nano >= 0),
        status         TEXT NOT NULL DEFAULT 'answered' CHECK (status IN ('answered', 'failed')),
        evaluated_at   TEXT NOT NULL,
        late_rows_note TEXT NOT NULL,
        PRIMARY KEY (alarm_id, period)
      ) STRICT, WITHOUT ROWID;
      CREATE TRIGGER alarm_periods_no_update BEFORE UPDATE ON alarm_periods
        BEGIN SELECT RAISE(ABORT, 'an evaluated period is never changed'); END;
      CREATE TRIGGER alarm_periods_no_delete BEFORE DELETE ON alarm_periods
        BEGIN SELECT RAISE(ABORT, 'an evaluated period is never changed'); END;
    `)
  }
}
