import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ImportResult } from '../../../src-main/contract/datasets'
import { type Harness, harness } from './harness'
import { waitFor } from '../helpers'

let h: Harness
beforeAll(() => {
  h = harness()
})
afterAll(() => h.cleanup())

function file(name: string, content: string | Buffer): string {
  const p = join(h.dir, name)
  writeFileSync(p, content)
  return p
}

async function importOk(req: Parameters<Harness['importAndWait']>[0]): Promise<ImportResult> {
  const job = await h.importAndWait(req)
  if (job.state !== 'done') throw new Error(`import ${job.state}: ${job.error}`)
  return job.result as ImportResult
}

describe('import', () => {
  it('infers integer, real, text and timestamp; keeps leading zeros as text; empty fields are null', async () => {
    const p = file(
      'types.csv',
      [
        'id,price,label,at,zip,day,empty',
        '1,2.5,a,2015-01-01 10:00:00,02134,2015-01-01,',
        '2,-3,b,2015-01-02T11:30:00Z,10001,2015-01-02,',
        '3,1e3,,2015-01-03T12:00:00+02:00,99999,2015-01-03,',
        ',,c,,,,'
      ].join('\n')
    )
    const preview = await h.handlers['datasets/preview-file']({ fileId: h.file(p) })
    expect(preview.columns.map((c) => c.inferredType)).toEqual(['integer', 'real', 'text', 'timestamp', 'text', 'timestamp', 'text'])
    expect(preview.delimiter).toBe(',')
    expect(preview.rows[0]).toEqual(['1', '2.5', 'a', '2015-01-01 10:00:00', '02134', '2015-01-01', ''])
    const r = await importOk({ path: p })
    expect(r.dataset.columns.map((c) => [c.name, c.type, c.typeSource])).toEqual([
      ['id', 'integer', 'inferred'],
      ['price', 'real', 'inferred'],
      ['label', 'text', 'inferred'],
      ['at', 'timestamp', 'inferred'],
      ['zip', 'text', 'inferred'],
      ['day', 'timestamp', 'inferred'],
      ['empty', 'text', 'inferred']
    ])
    const rows = await h.storedRows({ datasetId: r.dataset.id })
    expect(rows.rows).toEqual([
      [1, 2.5, 'a', '2015-01-01 10:00:00', '02134', '2015-01-01 00:00:00', null],
      [2, -3, 'b', '2015-01-02 11:30:00', '10001', '2015-01-02 00:00:00', null],
      [3, 1000, null, '2015-01-03 10:00:00', '99999', '2015-01-03 00:00:00', null],
      [null, null, 'c', null, null, null, null]
    ])
    // Stored forms: real as REAL, timestamps as INTEGER milliseconds.
    const t = h.store.db.prepare(`SELECT typeof(c2) t2, typeof(c4) t4, c4 FROM ds_${r.dataset.id} WHERE rowid = 1`).get()
    expect(t).toEqual({ t2: 'real', t4: 'integer', c4: Date.UTC(2015, 0, 1, 10) })
  })

  it('applies per-column overrides', async () => {
    const p = file('override.csv', 'code,n,when\n007,1,2015-01-01\n012,2,2015-01-02\n')
    const r = await importOk({ path: p, name: 'override', types: { code: 'integer', n: 'real', when: 'text' } })
    expect(r.dataset.columns.map((c) => [c.type, c.typeSource])).toEqual([
      ['integer', 'override'],
      ['real', 'override'],
      ['text', 'override']
    ])
    expect((await h.storedRows({ datasetId: r.dataset.id })).rows).toEqual([
      [7, 1, '2015-01-01'],
      [12, 2, '2015-01-02']
    ])
  })

  it('reads a BOM, TSV, CRLF and quoted fields with delimiters, quotes and newlines (RFC 4180)', async () => {
    const p = file('bom.tsv', Buffer.from('\ufeffname\tnote\tn\r\n"a\tb"\t"say ""hi""\r\nthere"\t1\r\nc\td\t2\r\n', 'utf8'))
    const preview = await h.handlers['datasets/preview-file']({ fileId: h.file(p) })
    expect(preview.hasBom).toBe(true)
    expect(preview.delimiter).toBe('\t')
    const r = await importOk({ path: p, name: 'tsv' })
    expect(r.dataset.columns.map((c) => c.name)).toEqual(['name', 'note', 'n'])
    expect(r.dataset.delimiter).toBe('\t')
    expect((await h.storedRows({ datasetId: r.dataset.id })).rows).toEqual([
      ['a\tb', 'say "hi"\r\nthere', 1],
      ['c', 'd', 2]
    ])
  })

  it('reports the line a bad row starts on after multi-line quoted fields and blank lines', async () => {
    const p = file('lines.csv', 'a,b\n"x\ny\nz",1\n\n\n2,2\n3\n')
    const job = await h.importAndWait({ path: p, name: 'lines' })
    expect(job.error).toBe('Line 8 has 1 field, the header has 2; fix the file or skip bad rows')
  })

  it('keeps multi-byte characters split across read chunks, and reads a 3-byte file without a final newline', async () => {
    // The reader uses 1 MiB chunks: put a 2-byte and a 4-byte character across the first boundaries.
    const head = 'id,text\n'
    const filler = 'x'.repeat((1 << 20) - Buffer.byteLength(head) - 2 - 1)
    const content = Buffer.from(`${head}1,${filler}é\n2,${'y'.repeat((1 << 20) - 5)}😀z\n3,ok\n`, 'utf8')
    expect(content.subarray((1 << 20) - 1, (1 << 20) + 1)).toEqual(Buffer.from('é'))
    expect(content.subarray((1 << 21) - 1, (1 << 21) + 3)).toEqual(Buffer.from('😀'))
    const r = await importOk({ path: file('split.csv', content), name: 'split' })
    const rows = (await h.storedRows({ datasetId: r.dataset.id })).rows
    expect(rows.map((x) => Array.from(String(x[1])).slice(-3).join(''))).toEqual(['xxé', 'y😀z', 'ok'])
    const tiny = await importOk({ path: file('tiny.csv', 'a\n1'), name: 'tiny' })
    expect((await h.storedRows({ datasetId: tiny.dataset.id })).rows).toEqual([[1]])
  })

  it('detects a semicolon delimiter and accepts an explicit one', async () => {
    const p = file('semi.csv', 'a;b;"c;d"\n1;2;3\n')
    const preview = await h.handlers['datasets/preview-file']({ fileId: h.file(p) })
    expect(preview.delimiter).toBe(';')
    expect(preview.columns.map((c) => c.name)).toEqual(['a', 'b', 'c;d'])
    const plain = file('semi-plain.csv', 'a;b;c,d\n1;2;3,4\n')
    expect((await h.handlers['datasets/preview-file']({ fileId: h.file(plain) })).columns.map((c) => c.name)).toEqual(['a', 'b', 'c,d'])
    expect((await h.handlers['datasets/preview-file']({ fileId: h.file(plain), delimiter: ',' })).columns.map((c) => c.name)).toEqual(['a;b;c', 'd'])
  })

  it('treats column names and values that look like SQL as data', async () => {
    const evil = ['"x""; DROP TABLE datasets; --"', '"[id]"', '"\'; DELETE FROM queries; \'"', '"c1"', '"rowid"']
    const p = file('evil.csv', [evil.join(','), `"""; DROP TABLE datasets; --",1,"'); DROP TABLE ds_1; --",x,y`, `"[br]",2,"a""b",x,z`].join('\n'))
    const r = await importOk({ path: p, name: `evil"; DROP TABLE datasets; --` })
    expect(r.dataset.name).toBe('evil"; DROP TABLE datasets; --')
    expect(r.dataset.columns.map((c) => c.name)).toEqual(['x"; DROP TABLE datasets; --', '[id]', "'; DELETE FROM queries; '", 'c1', 'rowid'])
    expect((await h.storedRows({ datasetId: r.dataset.id })).rows).toEqual([
      ['"; DROP TABLE datasets; --', 1, "'); DROP TABLE ds_1; --", 'x', 'y'],
      ['[br]', 2, 'a"b', 'x', 'z']
    ])
    expect(h.tables()).toContain('datasets')
    expect(h.tables()).toContain('ds_1')
  })

  it('sends progress events in rows and cancels without leaving anything behind', async () => {
    const lines = ['id,v,name']
    for (let i = 0; i < 300_000; i++) lines.push(`${i},${i * 0.5},name ${i}`)
    const p = file('big.csv', lines.join('\n') + '\n')
    // A complete import: progress events arrive, done never decreases, the last one is exact.
    const job = await h.importAndWait({ path: p, name: 'big' })
    expect(job.state).toBe('done')
    const prog = h.progressOf(job.jobId)
    expect(prog.length).toBeGreaterThanOrEqual(2)
    expect(prog.every((e) => e.unit === 'rows')).toBe(true)
    for (let i = 1; i < prog.length; i++) expect(prog[i].done).toBeGreaterThanOrEqual(prog[i - 1].done)
    expect(prog[prog.length - 1]).toMatchObject({ done: 300_000, total: 300_000 })
    // Bytes go along with the rows: the file's exact size as the total, bytes read never decreasing, all of them at the end.
    const size = statSync(p).size
    expect(size).toBeGreaterThan(4 << 20) // several 1 MiB chunks, so several progress points
    expect(prog.every((e) => e.detail !== undefined && e.detail.bytesTotal === size)).toBe(true)
    for (let i = 1; i < prog.length; i++) expect(prog[i].detail!.bytesDone).toBeGreaterThanOrEqual(prog[i - 1].detail!.bytesDone)
    expect(prog.some((e) => e.detail!.bytesDone > 0 && e.detail!.bytesDone < size)).toBe(true)
    expect(prog[prog.length - 1].detail!.bytesDone).toBe(size)
    expect(prog[prog.length - 1].etaSeconds).toBe(0)
    for (const e of prog) {
      expect(e.detail!.bytesPerSecond).toBeGreaterThanOrEqual(0)
      if (e.etaSeconds !== null) expect(e.etaSeconds).toBeGreaterThanOrEqual(0)
    }
    expect(job.progress?.detail).toMatchObject({ bytesDone: size, bytesTotal: size })
    // Cancel after the first progress event.
    const before = { tables: h.tables(), datasets: await h.handlers['datasets/list']({}) }
    const { jobId } = await h.handlers['datasets/import']({ fileId: h.file(p), name: 'big again' })
    await waitFor(() => h.progressOf(jobId).some((e) => e.done > 0), 'first progress')
    expect(h.ctx.jobs.cancel(jobId)).toBe(true)
    const info = await h.ctx.jobs.settled(jobId)
    expect(info?.state).toBe('cancelled')
    expect(h.tables()).toEqual(before.tables)
    expect(await h.handlers['datasets/list']({})).toEqual(before.datasets)
  })

  it('lists, pages, renames and deletes; ids are never reused; saved queries are hidden with their dataset', async () => {
    const a = await importOk({ path: file('cat-a.csv', 'k,v\n' + Array.from({ length: 120 }, (_, i) => `${i},${i * i}`).join('\n')), name: 'cat a' })
    const list = await h.handlers['datasets/list']({})
    expect(list.find((d) => d.id === a.dataset.id)).toMatchObject({ name: 'cat a', rowCount: 120, columns: [{ name: 'k' }, { name: 'v' }] })
    const page = await h.storedRows({ datasetId: a.dataset.id, offset: 100, limit: 5 })
    expect(page.rows).toEqual([100, 101, 102, 103, 104].map((i) => [i, i * i]))
    expect(page.total).toBe(120)
    await expect(h.handlers['datasets/rename']({ datasetId: a.dataset.id, name: 'tsv' })).rejects.toThrow(
      'Another dataset is already named "tsv"; choose another name'
    )
    expect((await h.handlers['datasets/rename']({ datasetId: a.dataset.id, name: 'cat b' })).name).toBe('cat b')
    await expect(h.importAndWait({ path: file('dup.csv', 'a\n1\n'), name: 'cat b' })).rejects.toThrow(
      'A dataset named "cat b" already exists; choose another name'
    )
    const q = await h.handlers['queries/save']({
      datasetId: a.dataset.id,
      name: 'q',
      definition: { kind: 'threshold', groupBy: ['k'], count: { kind: 'rows' }, threshold: { kind: 'constant', value: 1 }, groups: [[1], [2]] }
    })
    await h.handlers['datasets/delete']({ datasetId: a.dataset.id })
    expect((await h.handlers['datasets/list']({})).some((d) => d.id === a.dataset.id)).toBe(false)
    expect(h.tables()).not.toContain(`ds_${a.dataset.id}`)
    await expect(h.handlers['queries/get']({ queryId: q.id })).rejects.toThrow(`There is no saved query ${q.id}`)
    const c = await importOk({ path: file('cat-c.csv', 'a\n1\n'), name: 'cat b' })
    expect(c.dataset.id).toBeGreaterThan(a.dataset.id)
    await expect(h.storedRows({ datasetId: a.dataset.id })).rejects.toThrow(`There is no dataset ${a.dataset.id}`)
  })
})
