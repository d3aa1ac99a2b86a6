import type { Migration } from '../migration'

/**
 * Webhooks that hear an alarm's fires (ARCHITECTURE.md "Alarms"; services/webhooks/).
 *
 * `webhooks`: an HTTPS URL the custodian configured and the secret its deliveries are signed with (HMAC-SHA256; the
 * secret is shown once when added, never listed). Removing a webhook sets `active` to 0: its deliveries stay as history.
 *
 * `webhook_deliveries`: the outbox, one row per (webhook, alarm, period) that fired after the webhook was added, made
 * from `alarm_periods`. `body` is the exact JSON sent (public fields only); `attempts`, `next_attempt_at` (ms since the
 * epoch; NULL once delivered or given up) and `last_error` drive the retries with backoff; `delivered_at` is set by a
 * 2xx answer. Rows survive a restart, so a fire is sent whenever the process that found it stopped.
 */
export const migration021: Migration | null = {
  version: 21,
  name: 'webhooks',
  up: (db) => {
    db.exec(`
      CREATE TABLE webhooks (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        url         TEXT NOT NULL CHECK (substr(url, 1, 8) = 'https://'),
        secret      TEXT NOT NULL,
        created_by  TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        active      INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1))
      ) STRICT;
      CREATE TABLE webhook_deliveries (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        webhook_id      INTEGER NOT NULL REFERENCES webhooks(id),
        alarm_id        INTEGER NOT NULL REFERENCES alarms(id),
        period          INTEGER NOT NULL CHECK (period >= 0),
        body            TEXT NOT NULL,
        attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        next_attempt_at INTEGER,
        delivered_at    TEXT,
        last_error      TEXT,
        UNIQUE (webhook_id, alarm_id, period)
      ) STRICT;
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE next_attempt_at IS NOT NULL;
    `)
  }
}
