import { useEffect } from 'react'
import { useEvent, useQuery } from '../api/hooks'

/** Database path and schema version, worker pool size and state. Refreshes when jobs change state. */
export function StatusPanel() {
  const status = useQuery('app/status', {})
  useEvent('job/state', () => status.reload())
  useEffect(() => {
    const t = setInterval(status.reload, 5000)
    return () => clearInterval(t)
  }, [status.reload])
  const s = status.data
  return (
    <section className="status-panel" aria-label="Status">
      <h2>Status</h2>
      {status.error && <p className="error">{status.error}</p>}
      {s && (
        <dl>
          <dt>Mode</dt>
          <dd data-testid="status-mode">
            {s.deployment === 'service' ? 'Service (your organisation’s host)' : s.mode === 'desktop' ? 'Desktop' : 'Headless (browser)'}
          </dd>
          {s.databasePath !== undefined && (
            <>
              <dt>Workspace</dt>
              <dd className="path" title={s.databasePath} data-testid="status-db-path">
                {s.databasePath}
              </dd>
            </>
          )}
          <dt>Schema</dt>
          <dd data-testid="status-schema">
            version {s.schemaVersion}
            {s.schemaVersion === s.latestSchemaVersion ? ' (current)' : ` of ${s.latestSchemaVersion}`}
          </dd>
          <dt>Workers</dt>
          <dd data-testid="status-pool">
            {s.pool.size} {s.pool.size === 1 ? 'worker' : 'workers'}, {s.pool.state}
            {s.pool.busy > 0 ? ` (${s.pool.busy} busy, ${s.pool.queuedBatches} queued)` : ''}
            {s.pool.restarts > 0 ? `, ${s.pool.restarts} restarted` : ''}
          </dd>
        </dl>
      )}
    </section>
  )
}
