/**
 * Audit reports: PDF sections and figures against the ledger, the verification hashes against re-exports,
 * CSV round trips, editions (no ex-post costs for analysts; recorded unlocks for officers), empty ledgers, bad input.
 * Ledger content is made with the ledger and release services (fixtures.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { ledgerSummary, listEntries } from '../../../src-main/services/ledger/ledger-views'
import { listReleases } from '../../../src-main/services/releases/release-service'
import { ExperimentRepository } from '../../../src-main/services/experiments/repository'
import { exPostText } from '../../../src-main/services/reports/report-html'
import { formatCharge as up, formatRemaining as down } from '../../../src-main/contract/format-epsilon'
import { notionName } from '../../../src-main/contract/notion-names'
import { tempWorkspace } from '../helpers'
import { FORMULA_NAME, populateWorkspace, settleReleases, storeExperiment, type Workspace } from './fixtures'
import { canonical, cli, parseCsv, pdfPages, pdfText, renderPages, section, sha256, unquote } from './helpers'
import { testPassphrase } from '../officer-fixture'

const ARTIFACTS = resolve('test-results/report-pages')
const SECTIONS = [
  '1. Summary',
  '2. Releases',
  '3. Denials',
  '4. Unlocks of sealed costs',
  '5. Experiments (simulations)',
  '6. Ledger entries',
  '7. Verification'
]

let ws: ReturnType<typeof tempWorkspace>
let fixture: Workspace
let to: string
let analystPdf: string
let officerPdf: string
let analystText: string
let officerText: string

/** The text of an HTML element's content (the report template escapes &, <, >, " and '). */
function decodeHtml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim()
}

function withStore<T>(f: (s: Store) => T): T {
  const s = openStore(ws.db)
  try {
    return f(s)
  } finally {
    s.close()
  }
}

function unlockCount(officer?: string): number {
  return withStore(
    (s) =>
      (
        s.db
          .prepare(`SELECT count(*) AS n FROM audit_events WHERE kind = 'officer/unlock-ex-post' ${officer ? 'AND actor = ?' : ''}`)
          .get(...(officer ? [officer] : [])) as {
          n: number
        }
      ).n
  )
}

/** The fixture officer's passphrase, in a file (the officer edition opens the sealed costs with the officer's key). */
function officerPassFile(): string {
  const f = join(ws.dir, 'officer.pass')
  writeFileSync(f, `${testPassphrase('Olga Officer')}\n`)
  return f
}

async function ok(args: string[]): Promise<void> {
  const r = await cli(args)
  if (r.code !== 0) throw new Error(`report ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
}

beforeAll(async () => {
  ws = tempWorkspace('qa-report-')
  withStore((s) => {
    fixture = populateWorkspace(s.db, 9)
    storeExperiment(s)
  })
  await withStore((s) => settleReleases(s.db))
  // A fixed end of period, after everything above: every export below shows the same data.
  await new Promise((r) => setTimeout(r, 5))
  to = new Date().toISOString()
  analystPdf = join(ws.dir, 'analyst.pdf')
  officerPdf = join(ws.dir, 'officer.pdf')
  const t0 = performance.now()
  await ok(['report', '--db', ws.db, '--format', 'pdf', '--out', analystPdf, '--to', to])
  const t1 = performance.now()
  await ok([
    'report',
    '--db',
    ws.db,
    '--format',
    'pdf',
    '--out',
    officerPdf,
    '--to',
    to,
    '--edition',
    'officer',
    '--officer',
    'Olga Officer',
    '--passphrase-file',
    officerPassFile(),
    '--page-size',
    'letter'
  ])
  process.stdout.write(`report PDFs: analyst ${(t1 - t0).toFixed(0)} ms, officer ${(performance.now() - t1).toFixed(0)} ms\n`)
  analystText = pdfText(analystPdf)
  officerText = pdfText(officerPdf)
})

afterAll(() => ws?.cleanup())

describe('PDF report', () => {
  it('has every section, page numbers, the edition and the simulation label', () => {
    for (const text of [analystText, officerText]) {
      for (const s of SECTIONS) expect(text).toContain(s)
      const pages = text === analystText ? pdfPages(analystPdf) : pdfPages(officerPdf)
      expect(pages).toBeGreaterThan(1)
      for (let p = 1; p <= pages; p++) expect(text).toContain(`Page ${p} of ${pages}`)
      expect(text).toContain('SIMULATION')
    }
    expect(analystText).toContain('ANALYST EDITION')
    expect(officerText).toContain('OFFICER EDITION')
  })

  it('prints A4 or Letter as asked', () => {
    const size = (f: string) => /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(execFileSync('pdfinfo', [f], { encoding: 'utf8' }))!
    const a4 = size(analystPdf)
    const letter = size(officerPdf)
    // A4 is 595.3 x 841.9 pt, Letter 612 x 792 pt; Chromium rounds to whole device pixels (within 1.5 pt).
    expect(Math.abs(Number(a4[1]) - 595.3)).toBeLessThan(1.5)
    expect(Math.abs(Number(a4[2]) - 841.9)).toBeLessThan(1.5)
    expect(Math.abs(Number(letter[1]) - 612)).toBeLessThan(1.5)
    expect(Math.abs(Number(letter[2]) - 792)).toBeLessThan(1.5)
  })

  it('shows the figures of the ledger: spend per notion and per cell, budgets, remaining, releases, denials', () => {
    const summary = withStore((s) => ledgerSummary(s.db, { cellLimit: 1000 }))
    const releases = withStore((s) => listReleases(s.db))
    expect(releases.length).toBe(fixture.releases.length + fixture.failedReleases)
    for (const text of [analystText, officerText]) {
      expect(text).toContain(`Releases in period ${releases.length}`)
      expect(text).toContain(`Denials in period ${fixture.denials}`)
      expect(text).toContain(`Ledger entries in period ${summary.entries}`)
      const datasets = summary.datasets
      expect(datasets.length).toBe(2)
      datasets.forEach((d, i) => {
        const next = datasets[i + 1]
        const part = section(
          section(text, '1. Summary', '2. Releases'),
          `Dataset "${d.datasetName}" (id ${d.datasetId})`,
          next ? `Dataset "${next.datasetName}"` : null
        )
        // The headline per unit: the sum over notions, against the one budget per unit.
        const per = d.unitKind === 'person' ? 'person' : 'row'
        // Epsilons by the one rounding rule: spends and budgets rounded up, what remains rounded down.
        expect(part).toContain(`Privacy unit: ${d.unitText}. Spent per ${per}, summed over notions: ${up(d.spentPerUnitExact)}`)
        if (d.budgetPerUnitSource !== 'none')
          expect(part).toContain(`budget per ${per} of ${up(d.budgetPerUnitExact)}; remaining ${down(d.remainingPerUnitExact)}.`)
        for (const a of d.accounts) {
          // Whole history in the period: spent in period = spent in total = the ledger's spend.
          // The notion by its name, ε written as ε (never its id or "eps").
          const row = `${notionName(a.notion)} ${a.budgetExact === null ? 'none set' : up(a.budgetExact)} ${up(a.spentExact)} ${up(a.spentExact)} ${a.remainingExact === null ? '—' : down(a.remainingExact)} ${a.releases}`
          expect(part, `${d.datasetName}: ${a.notion}`).toContain(row)
          for (const c of a.cells.filter((c) => c.key !== '{}')) expect(part).toContain(`${c.label} ${up(c.totalExact)} ${up(c.totalExact)}`)
        }
      })
    }
  })

  it('prints every epsilon at 6 significant digits at most, the charges rounded up, and says the CSV holds them exact', () => {
    const releases = withStore((s) => listReleases(s.db))
    const entries = withStore((s) => listEntries(s.db, { limit: 1000 }).entries)
    // The fixture has epsilons with more than 6 significant digits (ln 10 = 2.302585093 ...), so the rule is exercised.
    expect(
      entries.some(
        (x) =>
          x.epsilonExact
            .replace(/^[0.]+/, '')
            .replace('.', '')
            .replace(/0+$/, '').length > 6
      )
    ).toBe(true)
    for (const text of [analystText, officerText]) {
      // Every decimal number outside the hashes and times: no more than 6 significant digits (9-decimal ledger amounts were printed before).
      const body = section(text, '1. Summary', '7. Verification').replace(/\d{4}-\d\d-\d\dT?\s*\d\d:\d\d:\d\d\.\d+Z?/g, ' ')
      const long = (body.match(/\d+\.\d+/g) ?? []).filter((n) => n.replace(/^[0.]+/, '').replace('.', '').length > 6)
      expect(long, 'numbers longer than 6 significant digits').toEqual([])
      expect(text).toContain('The CSV and JSON exports hold the exact values')
      const part = section(text, '2. Releases', '3. Denials')
      for (const r of releases) expect(part).toContain(up(r.epsilonExact))
      const ledger = section(text, '6. Ledger entries', '7. Verification')
      for (const x of entries) expect(ledger).toContain(up(x.epsilonExact))
    }
  })

  it('lists every release with its decisions, never a count or a noisy value', () => {
    const releases = withStore((s) => listReleases(s.db))
    const part = section(analystText, '2. Releases', '3. Denials')
    for (const r of releases) {
      if (r.answer?.kind === 'anomaly-identification') {
        const flagged = r.answer.records.filter((x) => x.anomaly).length
        expect(part).toContain(`${flagged} of ${r.answer.records.length} records`)
      }
      if (r.status === 'failed') expect(part).toContain('no answer (failed)')
    }
    expect(part).toContain('top 4')
  })

  it('prints a data SHA-256 that equals the SHA-256 of the JSON export and of its canonical re-serialisation', async () => {
    for (const [text, edition] of [
      [analystText, 'analyst'],
      [officerText, 'officer']
    ] as const) {
      const printed = /SHA-256 of this report's data:\n([0-9a-f]{64})/.exec(text)?.[1]
      expect(printed, 'hash in the verification section').toMatch(/^[0-9a-f]{64}$/)
      expect(text).toContain(`Report data SHA-256 ${printed}`)
      const json = join(ws.dir, `${edition}.json`)
      await ok([
        'report',
        '--db',
        ws.db,
        '--format',
        'json',
        '--out',
        json,
        '--to',
        to,
        '--edition',
        edition,
        ...(edition === 'officer' ? ['--officer', 'Olga Officer', '--passphrase-file', officerPassFile()] : [])
      ])
      const bytes = readFileSync(json)
      expect(sha256(bytes)).toBe(printed)
      expect(sha256(canonical(JSON.parse(bytes.toString('utf8'))))).toBe(printed)
      // Each CSV table's SHA-256 printed in the report equals the SHA-256 of that table exported alone.
      for (const table of ['ledger', 'releases', 'denials', 'experiments']) {
        const csv = join(ws.dir, `${edition}-${table}.csv`)
        await ok([
          'report',
          '--db',
          ws.db,
          '--format',
          'csv',
          '--table',
          table,
          '--out',
          csv,
          '--to',
          to,
          '--edition',
          edition,
          ...(edition === 'officer' ? ['--officer', 'Olga Officer', '--passphrase-file', officerPassFile()] : [])
        ])
        expect(text).toContain(`${table} ${table}.csv ${sha256(readFileSync(csv))}`)
      }
    }
  })

  it('names the ledger head at the end of the period, which is the last entry of the verified chain', () => {
    const head = withStore((s) => ledgerSummary(s.db, {}))
    expect(analystText).toContain(`entry ${head.entries}`)
    expect(analystText).toContain(head.headHash)
    expect(analystText).toContain(`Ledger verified: ${head.entries} entries, hash chain intact`)
  })

  it('breaks no word across lines: every word of every table, headers and release kinds included, appears whole', async () => {
    const html = join(ws.dir, 'analyst.html')
    await ok(['report', '--db', ws.db, '--format', 'html', '--out', html, '--to', to])
    const doc = readFileSync(html, 'utf8')
    // Words: split at spaces and after hyphens (a line may end after "anomaly-"); a word cut inside ("mechanis" over "m",
    // "identificatio" over "n") is then missing from the PDF's words.
    // Words longer than 20 characters (a hash, a name like =HYPERLINK("http://x","y")) may be cut where no column holds them.
    const words = (t: string) => t.split(/\s+|(?<=-)(?=\S)/).filter((w) => w.length > 1 && w.length <= 20)
    const counts = (ws: string[]) => ws.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map<string, number>())
    const tables = [...doc.matchAll(/<table class="data[^"]*"[^>]*>([\s\S]*?)<\/table>/g)].map((m) => decodeHtml(m[1].replace(/<[^>]+>/g, ' ')))
    const headers = [...doc.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => decodeHtml(m[1]))
    expect(headers).toContain('Kind / mechanism')
    const inTables = counts(tables.flatMap(words))
    expect(inTables.get('identification')).toBeGreaterThan(0)
    const inPdf = counts(words(analystText))
    for (const [w, n] of inTables) expect(inPdf.get(w) ?? 0, `"${w}" whole in the PDF (${n} times in its tables)`).toBeGreaterThanOrEqual(n)
    // The officer edition: every header word, its own columns included.
    const officerWords = counts(words(officerText))
    for (const w of [...headers.flatMap(words), 'Ex-', 'post', '(sealed)', 'Queries'])
      expect(officerWords.get(w) ?? 0, `header word "${w}"`).toBeGreaterThan(0)
  })

  it('draws every spend chart whole: the caption ends as written, and the budget is marked where one holds', () => {
    const summary = withStore((s) => ledgerSummary(s.db, { cellLimit: 1000 }))
    for (const text of [analystText, officerText]) {
      const part = section(text, '1. Summary', '2. Releases').replace(/\s+/g, ' ')
      for (const d of summary.datasets) {
        const per = d.unitKind === 'person' ? 'person' : 'row'
        // The caption wraps over lines: its words are all there, up to its last ("... against its budget").
        expect(part).toContain(`Spend per privacy notion up to the end of the period (they add up to the spend per ${per}), against its budget`)
        if (d.budgetPerUnitSource !== 'none') expect(part).toContain(`budget (own, else per ${per}: ${up(d.budgetPerUnitExact)})`)
      }
      // Every dataset here has a budget per unit, so every per-cell chart marks it, and its legend says so ("spent budget").
      expect(summary.datasets.every((d) => d.budgetPerUnitSource !== 'none')).toBe(true)
      const cellCharts = part.split('Spend per partition cell (').slice(1)
      expect(cellCharts.length).toBeGreaterThan(0)
      for (const c of cellCharts) expect(c.slice(0, c.indexOf('Cell Spent in period'))).toMatch(/ spent budget /)
    }
  })

  it('renders its first pages to PNG (test artifact)', () => {
    const a = renderPages(analystPdf, ARTIFACTS, 'analyst', 3)
    const o = renderPages(officerPdf, ARTIFACTS, 'officer', 3)
    expect(a.length).toBe(3)
    expect(o.length).toBe(3)
    for (const f of [...a, ...o]) expect(readFileSync(f).subarray(1, 4).toString()).toBe('PNG')
  })
})

describe('editions', () => {
  it('the analyst edition never contains ex-post costs; the officer edition does, and its unlocks are recorded', async () => {
    const officerJson = JSON.parse(readFileSync(join(ws.dir, 'officer.json'), 'utf8'))
    const analystJson = JSON.parse(readFileSync(join(ws.dir, 'analyst.json'), 'utf8'))
    const sealed = (
      officerJson.releases as Array<{ releaseId: number; status: string; exPost: { spentMax: number | null; sealed: boolean } }>
    ).filter((r) => r.exPost.sealed)
    const answered = withStore((s) => listReleases(s.db)).filter((r) => r.status === 'answered')
    expect(sealed.map((r) => r.releaseId)).toEqual(answered.map((r) => r.releaseId))
    expect(sealed.length).toBeGreaterThan(0)
    // Officer: every sealed value is printed.
    const officerReleases = section(officerText, '2. Releases', '3. Denials')
    expect(officerReleases).toContain('Ex-post ε')
    for (const r of sealed) expect(officerReleases).toContain(exPostText(r.exPost.spentMax))
    const officerCsv = parseCsv(readFileSync(join(ws.dir, 'officer-releases.csv'), 'utf8'))
    expect(officerCsv.header).toContain('ex_post_epsilon')
    // Analyst: no ex-post field anywhere, no column, and no sealed value that could not be a charge.
    expect(JSON.stringify(analystJson)).not.toMatch(/exPost|spentMax/)
    const analystCsvText = readFileSync(join(ws.dir, 'analyst-releases.csv'), 'utf8')
    expect(analystCsvText).not.toMatch(/ex_post/)
    expect(section(analystText, '2. Releases', '3. Denials')).not.toContain('Ex-post ε')
    const charges = new Set(answered.flatMap((r) => [r.epsilonExact, up(r.epsilonExact)]))
    let distinctive = 0
    for (const r of sealed) {
      const v = String(r.exPost.spentMax)
      // Equal to the public charge (anomaly identification), or too short to be told apart from other figures.
      if (charges.has(v) || v.replace(/^[0.]+/, '').replace('.', '').length < 5) continue
      distinctive++
      expect(section(analystText, '2. Releases', '3. Denials')).not.toContain(` ${v} `)
      expect(analystCsvText).not.toContain(`,${v},`)
      expect(officerReleases).toContain(exPostText(r.exPost.spentMax))
      // Printed at 6 digits, an ex-post cost within rounding of its charge reads as the (public) charge.
      if (!charges.has(exPostText(r.exPost.spentMax)))
        expect(section(analystText, '2. Releases', '3. Denials')).not.toContain(exPostText(r.exPost.spentMax))
    }
    process.stdout.write(`ex-post values checked absent from the analyst edition: ${distinctive}\n`)
    // Each officer export unlocked every answered release, recorded with the officer's name (PDF, JSON, 4 CSVs so far).
    expect(unlockCount('Olga Officer')).toBe(answered.length * 6)
  })

  it("the officer edition needs the officer's passphrase, and the analyst edition records no unlock", async () => {
    const before = unlockCount()
    const out = join(ws.dir, 'x.pdf')
    const r = await cli(['report', '--db', ws.db, '--format', 'pdf', '--out', out, '--edition', 'officer'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain('--passphrase-file')
    await ok(['report', '--db', ws.db, '--format', 'json', '--out', join(ws.dir, 'a2.json'), '--to', to])
    expect(unlockCount()).toBe(before)
    expect(existsSync(out)).toBe(false)
  })
})

describe('CSV exports', () => {
  it('round-trip: the ledger table parses back to the ledger entries', async () => {
    const { header, rows } = parseCsv(readFileSync(join(ws.dir, 'analyst-ledger.csv'), 'utf8'))
    expect(header).toEqual([
      'seq',
      'at',
      'kind',
      'dataset_id',
      'dataset',
      'notion',
      'epsilon',
      'cell_count',
      'release_id',
      'actor',
      'description',
      'prev_hash',
      'hash'
    ])
    const entries = withStore((s) => listEntries(s.db, { limit: 1000 }).entries).reverse()
    expect(rows.length).toBe(entries.length)
    rows.forEach((r, i) => {
      const e = entries[i]
      const v = r.map(unquote)
      expect(Number(v[0])).toBe(e.seq)
      expect(v[1]).toBe(e.at)
      expect(v[2]).toBe(e.kind)
      expect(Number(v[3])).toBe(e.datasetId)
      expect(v[4]).toBe(e.datasetName)
      expect(v[5]).toBe(e.notion ?? 'all')
      expect(v[6]).toBe(e.epsilonExact)
      expect(Number(v[7])).toBe(e.cellCount)
      expect(v[8] === '' ? null : Number(v[8])).toBe(e.releaseId)
      expect(v[9]).toBe(e.actor)
      expect(v[10]).toBe(e.description)
      expect(v[11]).toBe(e.prevHash)
      expect(v[12]).toBe(e.hash)
    })
  })

  it('round-trip: releases, with formulas neutralised', () => {
    const raw = readFileSync(join(ws.dir, 'analyst-releases.csv'), 'utf8')
    const { header, rows } = parseCsv(raw)
    const releases = withStore((s) => listReleases(s.db))
    expect(rows.length).toBe(releases.length)
    const col = (n: string) => header.indexOf(n)
    rows.forEach((r, i) => {
      const rel = releases[i]
      expect(Number(r[col('release_id')])).toBe(rel.releaseId)
      expect(r[col('created_at')]).toBe(rel.createdAt)
      expect(unquote(r[col('query')])).toBe(rel.queryName)
      expect(r[col('charge_epsilon')]).toBe(rel.epsilonExact)
      expect(Number(r[col('ledger_seq')])).toBe(rel.ledgerSeq)
      expect(r[col('status')]).toBe(rel.status)
      expect(r[col('notion')]).toBe(rel.notion)
      if (rel.answer?.kind === 'anomaly-identification') {
        expect(Number(r[col('asked')])).toBe(rel.answer.records.length)
        expect(Number(r[col('flagged')])).toBe(rel.answer.records.filter((x) => x.anomaly).length)
      }
    })
    // Text that a spreadsheet would run is prefixed with an apostrophe; nothing starts with = + - @ any more.
    expect(raw).toContain(`"'${FORMULA_NAME.replace(/"/g, '""')}"`)
    for (const r of rows) for (const f of r) if (!/^-?\d+(\.\d+)?$/.test(f)) expect(f).not.toMatch(/^[=+\-@]/)
  })

  it('round-trip: denials and experiment results', () => {
    const den = parseCsv(readFileSync(join(ws.dir, 'analyst-denials.csv'), 'utf8'))
    const audits = withStore((s) =>
      s.db.prepare(`SELECT id, at, actor, detail FROM audit_events WHERE kind = 'release/denied' ORDER BY id`).all()
    ) as Array<{
      id: number
      at: string
      actor: string
      detail: string
    }>
    expect(den.rows.length).toBe(audits.length)
    den.rows.forEach((r, i) => {
      const d = JSON.parse(audits[i].detail)
      expect(Number(r[0])).toBe(audits[i].id)
      expect(r[1]).toBe(audits[i].at)
      expect(r[8]).toBe(d.requested)
      expect(r[9]).toBe(d.remaining ?? '')
      expect(r[10]).toBe(d.budget ?? '')
    })
    const exp = parseCsv(readFileSync(join(ws.dir, 'analyst-experiments.csv'), 'utf8'))
    const cells = withStore((s) => new ExperimentRepository(s).cells('exp-report-test-0001'))
    const expected = cells.flatMap((c) => Object.entries(c.metrics ?? {}).map(([m, v]) => ({ c, m, v })))
    expect(exp.rows.length).toBe(expected.length)
    const h = exp.header
    for (const r of exp.rows) {
      expect(r[h.indexOf('kind')]).toBe('simulation')
      const c = cells.find((x) => x.index === Number(r[h.indexOf('cell')]))!
      const v = c.metrics![r[h.indexOf('metric')]]
      expect(Number(r[h.indexOf('mean')])).toBe(v.mean)
      expect(Number(r[h.indexOf('ci_low')])).toBe(v.ciLow)
      expect(Number(r[h.indexOf('ci_high')])).toBe(v.ciHigh)
      expect(Number(r[h.indexOf('n')])).toBe(v.n)
      expect(r[h.indexOf('mechanism')]).toBe(c.mechanism)
    }
  })

  it('every CSV header is the one documented in docs/guide/reports.md', () => {
    const doc = readFileSync(resolve('docs/guide/reports.md'), 'utf8')
    for (const [table, file] of [
      ['ledger', 'analyst-ledger.csv'],
      ['releases', 'analyst-releases.csv'],
      ['denials', 'analyst-denials.csv'],
      ['experiments', 'analyst-experiments.csv']
    ]) {
      const header = readFileSync(join(ws.dir, file), 'utf8').split('\r\n')[0]
      expect(doc, `${table} header documented`).toContain('`' + header + '`')
    }
    const officer = readFileSync(join(ws.dir, 'officer-releases.csv'), 'utf8').split('\r\n')[0]
    expect(doc).toContain('`' + officer.split(',').slice(-3).join(',') + '`')
  })
})

describe('scope and period', () => {
  it('a dataset report shows only that dataset, and an earlier end of period only what came before it', async () => {
    const releases = withStore((s) => listReleases(s.db))
    const out = join(ws.dir, 'scoped.json')
    await ok(['report', '--db', ws.db, '--format', 'json', '--out', out, '--dataset', 'person-hours', '--to', to])
    const data = JSON.parse(readFileSync(out, 'utf8'))
    expect(data.scope).toEqual({ datasetId: fixture.otherDatasetId, datasetName: 'person-hours' })
    expect(data.releases.map((r: { releaseId: number }) => r.releaseId)).toEqual(
      releases.filter((r) => r.datasetId === fixture.otherDatasetId).map((r) => r.releaseId)
    )
    expect(data.denials).toHaveLength(1)
    expect(data.experiments).toHaveLength(0)
    const mid = releases[4].createdAt
    const early = join(ws.dir, 'early.json')
    await ok(['report', '--db', ws.db, '--format', 'json', '--out', early, '--to', mid])
    const e = JSON.parse(readFileSync(early, 'utf8'))
    expect(e.releases.map((r: { releaseId: number }) => r.releaseId)).toEqual(releases.filter((r) => r.createdAt < mid).map((r) => r.releaseId))
    const late = join(ws.dir, 'late.json')
    await ok(['report', '--db', ws.db, '--format', 'json', '--out', late, '--from', mid, '--to', to])
    const l = JSON.parse(readFileSync(late, 'utf8'))
    expect(l.releases.length + e.releases.length).toBe(releases.length)
    // Spent in total counts everything before the end; spent in the period only the period's charges.
    const acc = (d: typeof l, notion: string) =>
      d.datasets
        .find((x: { datasetId: number }) => x.datasetId === fixture.otherDatasetId)
        .accounts.find((a: { notion: string }) => a.notion === notion)
    const full = acc(JSON.parse(readFileSync(join(ws.dir, 'analyst.json'), 'utf8')), 'anomaly-restricted-dp')
    expect(Number(acc(l, 'anomaly-restricted-dp').spentTotalExact)).toBe(Number(full.spentTotalExact))
    expect(Number(acc(e, 'anomaly-restricted-dp').spentTotalExact) + Number(acc(l, 'anomaly-restricted-dp').spentInPeriodExact)).toBeCloseTo(
      Number(full.spentTotalExact),
      9
    )
  })
})

describe('empty ledger', () => {
  it('gives a valid PDF, CSV tables with their header only, and JSON', async () => {
    const empty = tempWorkspace('qa-report-empty-')
    try {
      openStore(empty.db).close()
      const pdf = join(empty.dir, 'empty.pdf')
      await ok(['report', '--db', empty.db, '--format', 'pdf', '--out', pdf])
      const text = pdfText(pdf)
      for (const s of SECTIONS) expect(text).toContain(s)
      expect(text).toContain('No releases in this period.')
      expect(text).toContain('Releases in period 0')
      expect(text).toContain('Page 1 of')
      renderPages(pdf, ARTIFACTS, 'empty', 2)
      for (const table of ['ledger', 'releases', 'denials', 'experiments']) {
        const f = join(empty.dir, `${table}.csv`)
        await ok(['report', '--db', empty.db, '--format', 'csv', '--table', table, '--out', f])
        const { header, rows } = parseCsv(readFileSync(f, 'utf8'))
        expect(header.length).toBeGreaterThan(3)
        expect(rows).toHaveLength(0)
      }
      const j = join(empty.dir, 'empty.json')
      await ok(['report', '--db', empty.db, '--format', 'json', '--out', j])
      const data = JSON.parse(readFileSync(j, 'utf8'))
      expect(data.ledgerHead).toEqual({ seq: 0, hash: '0'.repeat(64) })
      expect(data.releases).toEqual([])
    } finally {
      empty.cleanup()
    }
  })
})

describe('bad input', () => {
  it('exits 2 with one line and writes nothing', async () => {
    const out = join(ws.dir, 'bad', 'never.pdf')
    const good = join(ws.dir, 'never.pdf')
    writeFileSync(join(ws.dir, 'not-a-dir'), 'x')
    const cases: Array<[string[], RegExp]> = [
      [['--format', 'pdf', '--out', good, '--dataset', 'no-such-dataset'], /no dataset "no-such-dataset"/],
      [['--format', 'pdf', '--out', good, '--from', '2025-02-01', '--to', '2025-01-01'], /period is empty/],
      [['--format', 'pdf', '--out', good, '--from', '2025-01-01', '--to', '2025-01-01'], /period is empty/],
      [['--format', 'pdf', '--out', good, '--from', 'yesterday'], /ISO 8601/],
      [['--format', 'pdf', '--out', out], /does not exist/],
      [['--format', 'pdf', '--out', join(ws.dir, 'not-a-dir', 'x.pdf')], /does not exist/],
      [['--format', 'pdf', '--out', ws.dir], /is a folder/],
      [['--format', 'docx', '--out', good], /--format must be one of/],
      [['--format', 'pdf', '--out', good, '--page-size', 'a3'], /--page-size/],
      [['--format', 'csv', '--out', good, '--table', 'secrets'], /--table/],
      [['--format', 'pdf', '--out', good, '--table', 'ledger'], /--table applies/],
      [['--format', 'pdf', '--out', good, '--edition', 'boss'], /--edition/]
    ]
    for (const [args, msg] of cases) {
      const r = await cli(['report', '--db', ws.db, ...args])
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
      expect(r.stderr).toMatch(msg)
      expect(r.stdout).toBe('')
    }
    const noDb = await cli(['report', '--db', join(ws.dir, 'missing.sqlite'), '--format', 'pdf', '--out', good])
    expect(noDb.code).toBe(2)
    expect(existsSync(join(ws.dir, 'missing.sqlite'))).toBe(false)
    expect(existsSync(good)).toBe(false)
    expect(readdirSync(ws.dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })
})
