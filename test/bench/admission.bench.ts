/**
 * What admission costs now that it reads the hashed ledger through the trust kernel: on ledgers of 1,000 to
 * 20,000 charges (with one denial in the audit log per ten charges and a checkpoint per thousand), the time of
 * - `cold`: the first admission of a fresh connection (a CLI process): every entry and audit event read and hashed;
 * - `warm`: an admission after this connection appended one charge (the desktop or the server): only new rows read;
 * - `verify`: `ledger verify`, which always reads everything.
 * Run: npm run bench -- admission
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { appendEntry, recordAudit } from '../../src-main/services/chain/ledger-chain'
import { craftDataset } from '../integration/ledger/fixtures'
import { officerAct } from '../integration/officer-fixture'
import { admission } from '../../src-main/services/ledger/admission'
import { setBudget } from '../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../src-main/services/ledger/verify'
import { openStore } from '../../src-main/services/store/store'
import { recordPrivacyUnit } from '../../src-main/services/catalog/unit-record'
import { checkpoint } from '../../src-main/services/trust/officers'
import { report, round, timeRuns } from './timing'

const SIZES = process.env.SIZES ? process.env.SIZES.split(',').map(Number) : [1_000, 5_000, 20_000]

function build(path: string, n: number): { id: number } {
  const store = openStore(path)
  const db = store.db
  const id = craftDataset(
    db,
    'rooms',
    [
      { name: 'room', type: 'text' },
      { name: 'count', type: 'integer' }
    ],
    Array.from({ length: 50 }, (_, i) => [`R${i}`, i])
  )
  db.transaction(() => recordPrivacyUnit(db, id, null))()
  const cred = officerAct(db)
  setBudget(db, { datasetId: id, epsilon: String(n), reason: 'bench', ...cred })
  for (let done = 0; done < n;) {
    const batch = Math.min(1000, n - done)
    db.transaction(() => {
      for (let i = 0; i < batch; i++) {
        const k = done + i
        appendEntry(db, {
          kind: 'charge',
          datasetId: id,
          datasetName: 'rooms',
          notion: 'predicate-wise-dp',
          amountNano: 1e8,
          cells: [`{"room":"R${k % 50}"}`, `{"room":"R${(k + 1) % 50}"}`],
          releaseId: null,
          actor: 'analyst',
          description: 'Threshold query: rooms over capacity',
          detail: { queryId: 1, kind: 'threshold', mechanism: 'tslm', params: { alpha: 4, beta: 0.05 }, chargeExplained: 'two rooms x 0.05' }
        })
        if (k % 10 === 0) recordAudit(db, 'release/denied', 'analyst', `dataset:${id}`, { queryId: 1, requested: '9' })
      }
    })()
    done += batch
    checkpoint(db, cred)
  }
  store.close()
  return { id }
}

const dir = mkdtempSync(join(tmpdir(), 'qa-bench-admission-'))
const out: Record<string, unknown> = {}
try {
  for (const n of SIZES) {
    const path = join(dir, `ws-${n}.sqlite`)
    const { id } = build(path, n)
    const ask = (db: Parameters<typeof admission>[0]) => admission(db, id, 'rooms', 'predicate-wise-dp', ['{"room":"R3"}'], 1e8)
    const cold = timeRuns(
      5,
      () => {
        const s = openStore(path)
        if (!ask(s.db).allowed) throw new Error('denied')
        s.close()
      },
      1
    )
    const s = openStore(path)
    ask(s.db)
    let k = 0
    const warm = timeRuns(50, () => {
      s.db.transaction(() =>
        appendEntry(s.db, {
          kind: 'charge',
          datasetId: id,
          datasetName: 'rooms',
          notion: 'predicate-wise-dp',
          amountNano: 1e8,
          cells: [`{"room":"R${k++ % 50}"}`],
          releaseId: null,
          actor: 'analyst',
          description: 'one more',
          detail: {}
        })
      )()
      if (!ask(s.db).allowed) throw new Error('denied')
    })
    const verify = timeRuns(
      3,
      () => {
        if (!verifyLedger(s.db).ok) throw new Error('verify failed')
      },
      1
    )
    s.close()
    out[`entries${n}`] = {
      coldMs: cold.medianMs,
      warmMs: warm.medianMs,
      verifyMs: verify.medianMs,
      coldPerEntryUs: round((cold.medianMs * 1000) / n, 2)
    }
    process.stderr.write(`admission: ${n} entries: cold ${cold.medianMs} ms, warm ${warm.medianMs} ms, verify ${verify.medianMs} ms\n`)
  }
} finally {
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true })
  else process.stderr.write(dir + '\n')
}
report(out)
