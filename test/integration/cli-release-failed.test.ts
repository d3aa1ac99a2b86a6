/**
 * The CLI's exit codes after a release that was charged but not answered: 1 (something was written, the charge), not 2
 * ("bad input, nothing written"). The CLI reads that from the error's `wroteSomething`, not from its code's text.
 * A linked CSV whose values stop fitting their types after it was linked fails after the charge (no mocks).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { main } from '../../src-main/cli'
import { ReleaseFailedError, UserError, isUserError } from '../../src-main/services'
import type { Store } from '../../src-main/services/store/store'
import { linkFile } from '../../src-main/services/datasets/link-file'
import type { ledgerHandlers } from '../../src-main/services/releases/ledger-handlers'
import { closeLedgerWorkspace, openLedgerWorkspace, saveQuery } from './ledger/fixtures'
import { officerAct } from './officer-fixture'
import type { tempWorkspace } from './helpers'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-cli-release-failed-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(args, {
    stdout: { write: (x: string) => ((out += x), true) },
    stderr: { write: (x: string) => ((err += x), true) },
    cwd: ws.dir
  } as never)
  return { code, out, err }
}

const ledgerRows = () => (store.db.prepare('SELECT count(*) n FROM ledger_entries').get() as { n: number }).n

describe('CLI: a release charged but not answered', () => {
  it('ReleaseFailedError is a user error that wrote something and carries its release id', () => {
    const e = new ReleaseFailedError(17, 'the release could not be computed')
    expect(isUserError(e)).toBe(true)
    expect(e.releaseId).toBe(17)
    expect(e.wroteSomething).toBe(true)
    expect(e.message).toBe('Release 17 was charged but not answered (the release could not be computed); the charge stays in the ledger')
    expect(new UserError('bad').wroteSomething).toBe(false)
  })

  it('exits 2 for bad input; a value that no longer fits its column is empty and the release is answered, never failed after its charge', async () => {
    const csv = join(ws.dir, 'badges.csv')
    writeFileSync(csv, 'person,room,floor\n' + Array.from({ length: 300 }, (_, i) => `p${i % 30},R${1 + (i % 3)},${i % 4}`).join('\n') + '\n')
    const ds = linkFile(store.db, { name: 'badges csv', file: csv, personColumn: null, ...officerAct(store.db) }).id
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      filter: [{ column: 'floor', op: '>=', value: 1 }],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 40 },
      groups: [['R1'], ['R2']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    const release = ['release', '--db', ws.db, '--query', String(q), '--mechanism', 'tslm', '--alpha', '10', '--beta', '0.05']

    const bad = await cli([...release.slice(0, -2), '--beta', '2'])
    expect(bad.code).toBe(2)
    const before = ledgerRows()

    // Same header, a value that no longer fits the integer column: read as empty (NULL) when the rows are read, after the
    // charge, so the release is answered like any other.
    writeFileSync(csv, 'person,room,floor\np1,R1,1\np2,R2,upstairs\n')
    const answered = await cli(release)
    expect(answered.code).toBe(0)
    expect(answered.err).toBe('')
    expect(answered.out).not.toMatch(/charged but not answered/)
    expect(ledgerRows()).toBe(before + 1)
  })
})
