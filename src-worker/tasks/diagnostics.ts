/**
 * Diagnostic task kinds (tests of the pool's crash handling): a worker runs them only when it was started with
 * QA_DIAGNOSTICS=1; otherwise they are unknown kinds like any other.
 */
export interface DiagnosticTaskMap {
  /** The worker exits with `code` (default 70). */
  'diag/exit': { payload: { code?: number }; result: never }
  /** A stuck computation: busy for `ms` (default 1000), then returns `value`. */
  'diag/sleep': { payload: { ms?: number; value?: unknown }; result: unknown }
  /** The task throws `message`. */
  'diag/throw': { payload: { message?: string }; result: never }
}

export function diagnosticsEnabled(): boolean {
  return process.env.QA_DIAGNOSTICS === '1'
}

export function runDiagnostic(kind: string, payload: unknown): unknown {
  if (!diagnosticsEnabled()) throw new Error(`Unknown task kind "${kind}"`)
  const p = (payload ?? {}) as Record<string, unknown>
  if (kind === 'diag/exit') process.exit(typeof p.code === 'number' ? p.code : 70)
  if (kind === 'diag/sleep') {
    const until = Date.now() + (typeof p.ms === 'number' ? p.ms : 1000)
    while (Date.now() < until) {
      /* busy: a stuck computation */
    }
    return p.value ?? null
  }
  if (kind === 'diag/throw') throw new Error(typeof p.message === 'string' ? p.message : 'diagnostic failure')
  throw new Error(`Unknown task kind "${kind}"`)
}
