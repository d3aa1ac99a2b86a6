/**
 * An upload's handle as an attack by another account of the service: the handles are opaque ids, and one account given
 * another's (leaked, logged, guessed) reads nothing through it. An officer (who may preview and link files, but not
 * browse a private dataset's rows) holding the custodian's upload handle gets "Unknown file" from the link preview and
 * from the link itself, as for a handle that does not exist; the uploader reads their own.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { createServices, type Services } from '../../../src-main/services'
import type { Principal } from '../../../src-main/contract/accounts'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { listDatasets } from '../../../src-main/services/catalog/catalog'
import { FileHandles } from '../../../src-main/services/platform/file-handles'
import { officerAct } from '../officer-fixture'
import { tempWorkspace } from '../helpers'

let ws: ReturnType<typeof tempWorkspace>
let s: Services
let dir: string
beforeEach(() => {
  ws = tempWorkspace()
  s = createServices({ mode: 'headless', deployment: 'service', dbPath: ws.db, poolSize: 1 })
  dir = mkdtempSync(join(tmpdir(), 'qa-handle-owner-'))
})
afterEach(async () => {
  await s.close()
  ws.cleanup()
  rmSync(dir, { recursive: true, force: true })
})
const db = () => s.context.store.db
function account(name: string, role: 'analyst' | 'officer' | 'custodian'): Principal {
  const { credential } = addAccount(db(), { name, role, days: 30 }, officerAct(db()))
  const auth = s.accounts.authenticate(credential, '10.0.0.1')
  if (!auth.ok) throw new Error(auth.error.message)
  return auth.principal
}

describe("another account's upload handle", () => {
  it('reads nothing for an officer (preview or link) and is refused to an analyst; the uploader reads their own', async () => {
    const carl = account('carl', 'custodian')
    const olga = account('olga', 'officer')
    const ana = account('ana', 'analyst')
    const csv = join(dir, 'upload.csv')
    writeFileSync(csv, 'person,diagnosis\nalice,HIV\nbob,none\n')
    // What the upload route does for the custodian: the handle is registered with its uploader.
    const files = (s.context.files ??= new FileHandles())
    const { fileId } = files.register(csv, { fileName: 'upload.csv', owned: true, owner: carl.accountId })

    expect(await s.dispatch('datasets/link-file-preview', { fileId }, ana)).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    const preview = await s.dispatch('datasets/link-file-preview', { fileId }, olga)
    expect(preview).toMatchObject({ ok: false, error: { code: 'bad-input' } })
    expect(JSON.stringify(preview)).toMatch(/Unknown file: choose or upload the file again/)
    expect(JSON.stringify(preview)).not.toMatch(/alice|HIV|diagnosis/)
    const link = await s.dispatch('datasets/link-file', { fileId, name: 'stolen', personColumn: 'person', ...officerAct(db(), 'olga') }, olga)
    expect(link).toMatchObject({ ok: false, error: { code: 'bad-input' } })
    expect(JSON.stringify(link)).toMatch(/Unknown file/)
    expect(listDatasets(db())).toHaveLength(0)

    // The uploader's own handle answers.
    expect((await s.call('datasets/link-file-preview', { fileId }, carl)).rows[0]).toEqual(['alice', 'HIV'])
  })
})
