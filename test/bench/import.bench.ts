/**
 * Import benchmark: 1,000,000 rows x 10 columns generated into a temp dir, imported through the streaming import;
 * resident memory sampled during the import; then threshold queries' group-by over the imported table.
 * Targets: import <= 15 s with RSS growth < 200 MB; a threshold query's group-by <= 2 s.
 * Prints one JSON line. Run: node test/bench/run.mjs import
 */
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { evaluateThresholdQuery } from '../../src-main/services/datasets'
import { planImport, runImport } from '../../src-main/services/datasets/import-dataset'
import { saveQuery } from '../../src-main/services/datasets/query-store'
import { openStore } from '../../src-main/services/store/store'
import { seededRng } from '../../src-worker/engine/random'
import { report, round } from './timing'

const ROWS = Number(process.env.QA_BENCH_ROWS ?? 1_000_000)

async function generate(path: string): Promise<void> {
  const rng = seededRng('import-bench')
  const out = createWriteStream(path)
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())))
  await write('id,person,room,floor,at,temperature,count,level,note,flag\n')
  const start = Date.UTC(2015, 0, 1)
  let chunk = ''
  for (let i = 0; i < ROWS; i++) {
    const at = new Date(start + Math.floor(rng.next() * 90 * 24 * 60) * 60_000).toISOString().replace('T', ' ').slice(0, 19)
    chunk += `${i},p${Math.floor(rng.next() * 5000)},room ${Math.floor(rng.next() * 50)},${1 + Math.floor(rng.next() * 5)},${at},${(15 + rng.next() * 15).toFixed(2)},${Math.floor(rng.next() * 100)},${Math.floor(rng.next() * 10)},"note, ${i % 1000}",${i % 2}\n`
    if (chunk.length > 1 << 20) {
      await write(chunk)
      chunk = ''
    }
  }
  await write(chunk)
  await new Promise<void>((r) => out.end(() => r()))
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qa-bench-import-'))
  try {
    const file = join(dir, 'big.csv')
    await generate(file)
    const bytes = statSync(file).size
    const store = openStore(join(dir, 'ws.sqlite'))
    ;(globalThis as { gc?: () => void }).gc?.()
    const rss0 = process.memoryUsage().rss
    let rssMax = rss0
    const timer = setInterval(() => {
      rssMax = Math.max(rssMax, process.memoryUsage().rss)
    }, 25)
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const r = await runImport(store.db, planImport(store.db, { path: file, name: 'big' }), {
      onProgress: () => {
        rssMax = Math.max(rssMax, process.memoryUsage().rss)
      }
    })
    const importMs = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    clearInterval(timer)
    const ds = r.dataset.id
    // Wall and CPU milliseconds (on a shared machine the CPU time says what the code costs).
    const time = (fn: () => unknown) => {
      const c = process.cpuUsage()
      const s = performance.now()
      fn()
      const u = process.cpuUsage(c)
      return { wallMs: round(performance.now() - s, 1), cpuMs: round((u.user + u.system) / 1000, 1) }
    }
    const q1 = saveQuery(store.db, ds, 'rows per room and floor in February', {
      kind: 'threshold',
      period: { column: 'at', from: '2015-02-01', to: '2015-03-01' },
      groupBy: ['room', 'floor'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 4000 }
    }).id
    const q2 = saveQuery(store.db, ds, 'persons per room, capped', {
      kind: 'threshold',
      filter: [{ column: 'level', op: '>=', value: 3 }],
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 2 },
      threshold: { kind: 'constant', value: 100 }
    }).id
    const q3 = saveQuery(store.db, ds, 'March 1 vs 0.8 x max daily of Jan-Feb', {
      kind: 'threshold',
      period: { column: 'at', from: '2015-03-01', to: '2015-03-02' },
      groupBy: ['room'],
      count: { kind: 'rows' },
      threshold: { kind: 'reference', factor: 0.8, aggregate: 'max', bucket: 'day', from: '2015-01-01', to: '2015-03-01' }
    }).id
    const queries = {
      rowsGroupBy2: time(() => evaluateThresholdQuery(store, q1)),
      personsCapGroupBy: time(() => evaluateThresholdQuery(store, q2)),
      referenceMaxDaily: time(() => evaluateThresholdQuery(store, q3))
    }
    store.close()
    report({
      rows: r.dataset.rowCount,
      columns: r.dataset.columns.length,
      fileMB: round(bytes / 1e6, 1),
      importSeconds: round(importMs / 1000, 2),
      importCpuSeconds: round((cpu.user + cpu.system) / 1e6, 2),
      rowsPerSecond: Math.round(r.dataset.rowCount / (importMs / 1000)),
      rssGrowthMB: round((rssMax - rss0) / 1e6, 1),
      loadAverage1m: round(loadavg()[0], 2),
      thresholdQueries: queries,
      targets: { importSeconds: 15, rssGrowthMB: 200, groupByMs: 2000 }
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`)
  process.exit(1)
})
