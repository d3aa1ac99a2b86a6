/**
 * THE report template: one self-contained HTML document (inline CSS, inline SVG charts, no script, no external font,
 * a CSP that forbids every fetch) from which both the PDF (Electron's printToPDF or headless Chromium) and the preview
 * are made. Everything shown comes from `ReportData` (covered by the SHA-256) or, clearly marked, from
 * `ReportVerification` (facts at generation time). Written with the `markup` tag (./html.ts): every value from the data
 * is escaped where it is interpolated, so a dataset name, a query name or a reason is text in the document, never markup.
 */
import type {
  ReportAccount,
  ReportData,
  ReportDataset,
  ReportExperiment,
  ReportExperimentCell,
  ReportRelease,
  ReportTable,
  ReportVerification
} from '../../contract/reports'
import { formatCharge, formatRemaining } from '../../contract/format-epsilon'
import { RELEASE_KIND_SPECS, mechanismSpec, releaseKindSpec } from '../../contract/release-kinds'
import { formatTime } from '../../contract/format-time'
import { notionName } from '../../contract/notion-names'
import { paramsText } from './csv-tables'
import { type Html, type HtmlValue, joinHtml, markup, trustedHtml } from './html'
import { type LineSeries, horizontalBars, legendHtml, lineChart, shortNumber } from './svg-charts'

const CSS = `
  * { box-sizing: border-box; }
  html, body { margin: 0; padding: 0; }
  body { font-family: 'DejaVu Sans', 'Liberation Sans', Arial, sans-serif; font-size: 9pt; color: #111; line-height: 1.35; }
  h1 { font-size: 17pt; margin: 0 0 4pt; }
  h2 { font-size: 12.5pt; margin: 16pt 0 6pt; padding-bottom: 2pt; border-bottom: 1.5pt solid #0b3d63; color: #0b3d63; break-after: avoid; }
  h3 { font-size: 10.5pt; margin: 12pt 0 4pt; break-after: avoid; }
  h4 { font-size: 9.5pt; margin: 8pt 0 3pt; break-after: avoid; }
  p { margin: 3pt 0 6pt; }
  .muted { color: #555; }
  .edition { display: inline-block; padding: 2pt 7pt; border-radius: 3pt; font-weight: bold; font-size: 9pt; color: #fff; background: #0b3d63; }
  .edition.officer { background: #8a1538; }
  .facts { border-collapse: collapse; margin: 6pt 0; }
  .facts td { padding: 1.5pt 10pt 1.5pt 0; vertical-align: top; }
  .facts td:first-child { color: #444; white-space: nowrap; }
  table.data { border-collapse: collapse; width: 100%; margin: 4pt 0 8pt; font-size: 7.6pt; }
  table.data th { overflow-wrap: break-word; }
  table.data th { background: #e8eef4; text-align: left; font-weight: bold; border-bottom: 1pt solid #9bb; padding: 2pt 3pt; }
  table.data td { border-bottom: 0.5pt solid #ddd; padding: 1.6pt 3pt; vertical-align: top; overflow-wrap: break-word; }
  table.data td.num { text-align: right; white-space: nowrap; }
  table.data th.num { text-align: right; }
  table.data tr, table.data tbody.entry { break-inside: avoid; }
  table.small { font-size: 6.6pt; }
  .nowrap { white-space: nowrap; }
  .h6 { font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace; font-size: 6pt; white-space: nowrap; }
  tr.sub td { border-bottom: 0.5pt solid #bbb; padding-top: 0; color: #333; }
  tr.main td { border-bottom: none; }
  .chartgroup { break-inside: avoid; }
  thead { display: table-header-group; }
  .mono { font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace; }
  .hash { font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace; font-size: 7.4pt; white-space: nowrap; }
  .box { border: 1pt solid #9bb; border-radius: 4pt; padding: 6pt 8pt; margin: 6pt 0; background: #f6f9fb; break-inside: avoid; }
  .ok { color: #0a6b2d; font-weight: bold; }
  .bad { color: #b00020; font-weight: bold; }
  .sim { border-left: 5pt solid #E69F00; background: #fff8ea; padding: 4pt 8pt; margin: 6pt 0; }
  .simtag { display: inline-block; background: #E69F00; color: #000; font-weight: bold; font-size: 7.5pt; padding: 1pt 5pt; border-radius: 2pt; letter-spacing: 0.5pt; }
  .charts { display: flex; flex-wrap: wrap; gap: 4pt 10pt; break-inside: avoid; }
  .chart { break-inside: avoid; margin: 4pt 0; }
  .legend { font-size: 7.5pt; margin: 2pt 0 6pt; }
  .legend span { margin-right: 10pt; white-space: nowrap; }
  .legend i { display: inline-block; width: 9pt; height: 6pt; margin-right: 3pt; vertical-align: middle; }
  .empty { color: #555; font-style: italic; }
  .sealed { background: #fbeff2; }
  code { font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace; font-size: 7.6pt; background: #f1f1f1; padding: 0 2pt; overflow-wrap: anywhere; }
  ol li { margin-bottom: 3pt; }
`

const TABLE_FILES: Record<ReportTable, string> = {
  ledger: 'ledger.csv',
  releases: 'releases.csv',
  denials: 'denials.csv',
  experiments: 'experiments.csv'
}

function scopeText(d: ReportData): string {
  return d.scope.datasetId === null ? 'whole workspace' : `dataset "${d.scope.datasetName ?? ''}" (id ${d.scope.datasetId})`
}

function periodText(d: ReportData): string {
  return `${d.period.from === null ? 'the beginning' : reportTime(d.period.from)} to ${reportTime(d.period.to)} (end excluded)`
}

/**
 * Epsilons as printed: the one rounding rule of contract/format-epsilon.ts, 6 significant digits; charges, spends,
 * costs and budgets rounded up, what is left rounded down. The JSON and CSV exports hold the exact values.
 */
const up = (x: string | number | null | undefined): string => formatCharge(x)
const down = (x: string | number | null | undefined): string => formatRemaining(x)

/** Said once in the report, where the figures are: how they are rounded and where the exact ones are. */
export const ROUNDING_NOTE =
  'ε values are shown at 6 significant digits: charges, spends and budgets rounded up, what remains rounded down (so a spend is never shown below what it is, nor a remainder above). The CSV and JSON exports hold the exact values (to the nano-ε), for machines.'

/** A sealed ex-post epsilon as printed: an "actually spent at most", rounded up like a charge (never shown above the charge it is under). */
export function exPostText(x: number | null): string {
  return x === null ? '' : formatCharge(x)
}

/**
 * Every time the report prints, in the app's one format with its zone: "26 Nov 2026, 02:50:49 UTC" (contract/format-time.ts).
 * A text that is not an ISO time is printed as it is.
 */
export function reportTime(iso: string): string {
  return formatTime(iso)
}

/** A time in the report's one format, on two lines (date, time and zone), never broken elsewhere. */
function timeCell(iso: string): Html {
  const text = reportTime(iso)
  const i = text.indexOf(', ')
  return i > 0 ? markup`<span class="nowrap">${text.slice(0, i)}</span><br><span class="nowrap">${text.slice(i + 2)}</span>` : markup`${text}`
}

function num(x: number | null | undefined): string {
  return x === null || x === undefined ? '' : String(x)
}

function decisionsText(r: ReportRelease): string {
  if (r.status !== 'answered') return r.status === 'running' ? 'being answered' : `no answer (${r.status})`
  const names = r.flaggedNames ?? []
  const more = (r.flagged ?? 0) - names.length
  const named = names.length === 0 ? '' : `: ${names.join('; ')}${more > 0 ? `; and ${more} more (in the JSON export)` : ''}`
  return RELEASE_KIND_SPECS[r.kind].decisionsText({ asked: num(r.asked), flagged: num(r.flagged), named })
}

/** A release kind in words (the exports keep the id): words wrap in a narrow column where an id broke inside itself. */
function kindWords(kind: string): string {
  return releaseKindSpec(kind)?.words ?? kind
}

/** A release's recorded parameters in words: only those its mechanism uses, e.g. no eps1 on a one-shot TSLM. */
export function paramsInWords(r: { kind: string; mechanism: string; params: Record<string, unknown> }): string {
  const p = r.params
  const n = (k: string) => (typeof p[k] === 'number' ? (p[k] as number) : null)
  return [mechanismSpec(r.mechanism)?.words ?? r.mechanism, ...(releaseKindSpec(r.kind)?.paramWords(n, r.mechanism) ?? [])].join('; ')
}

function colgroup(widths: number[] | undefined): Html {
  if (!widths) return markup``
  const sum = widths.reduce((a, b) => a + b, 0)
  return markup`<colgroup>${widths.map((w) => markup`<col style="width:${((100 * w) / sum).toFixed(2)}%">`)}</colgroup>`
}

/** Rows per <table>: long tables are cut into chunks (each with its header), which Chromium lays out and paginates far faster. */
const ROWS_PER_TABLE = 100

function dataTable(
  headers: Array<{ text: string; num?: boolean; cls?: string }>,
  rows: HtmlValue[][],
  opts: { small?: boolean; widths?: number[] } = {}
): Html {
  const cellClass = (h: { num?: boolean; cls?: string } | undefined) => (h?.num ? markup` class="num"` : h?.cls ? markup` class="${h.cls}"` : '')
  const head = markup`${colgroup(opts.widths)}<thead><tr>${headers.map((h) => markup`<th${h.num ? markup` class="num"` : ''}>${h.text}</th>`)}</tr></thead>`
  const open = markup`<table class="data${opts.small ? ' small' : ''}"${opts.widths ? markup` style="table-layout:fixed"` : ''}>`
  const rowHtml = rows.map((r) => markup`<tr>${r.map((c, i) => markup`<td${cellClass(headers[i])}>${c}</td>`)}</tr>`)
  const out: Html[] = []
  for (let i = 0; i < Math.max(1, rowHtml.length); i += ROWS_PER_TABLE)
    out.push(markup`${open}${head}<tbody>${rowHtml.slice(i, i + ROWS_PER_TABLE)}</tbody></table>`)
  return joinHtml(out)
}

// ---------------------------------------------------------------------------------------------------------------

function accountRows(accounts: ReportAccount[]): HtmlValue[][] {
  return accounts.map((a) => [
    notionName(a.notion),
    a.budgetExact === null ? markup`<span class="muted">none set</span>` : up(a.budgetExact),
    up(a.spentInPeriodExact),
    up(a.spentTotalExact),
    a.remainingExact === null ? markup`<span class="muted">—</span>` : down(a.remainingExact),
    String(a.releasesInPeriod)
  ])
}

function datasetSummary(d: ReportDataset, data: ReportData): Html {
  const parts: Html[] = [markup`<h3>Dataset "${d.datasetName}" (id ${d.datasetId})</h3>`]
  const per = d.unit === 'row' ? 'row' : 'person'
  const budget =
    d.budgetPerUnitExact === null
      ? '; no budget set.'
      : ` of a budget per ${per} of ${up(d.budgetPerUnitExact)}; remaining ${down(d.remainingPerUnitExact)}.`
  parts.push(
    markup`<p>Privacy unit: ${d.unitText}. <b>Spent per ${per}, summed over notions: ${up(d.spentPerUnitTotalExact)}</b> (${up(
      d.spentPerUnitInPeriodExact
    )} in the period)${budget} The notions below are its breakdown.</p>`
  )
  parts.push(
    dataTable(
      [
        { text: 'Privacy notion' },
        { text: 'Own budget (end of period)', num: true },
        { text: 'Spent in period', num: true },
        { text: 'Spent in total', num: true },
        { text: 'Remaining', num: true },
        { text: 'Releases in period', num: true }
      ],
      accountRows(d.accounts)
    )
  )
  if (d.byAnalyst.length > 0) {
    parts.push(
      markup`<h4>Spend per analyst</h4><p>What each analyst account's own releases cost one ${per} at most, summed over notions; an analyst with an own budget is held to it and to the dataset's.</p>`
    )
    parts.push(
      dataTable(
        [
          { text: 'Analyst account' },
          { text: 'Own budget (end of period)', num: true },
          { text: 'Spent in period', num: true },
          { text: 'Spent in total', num: true },
          { text: 'Releases in period', num: true }
        ],
        d.byAnalyst.map((a) => [
          a.name,
          a.budgetExact === null ? markup`<span class="muted">the dataset's only</span>` : up(a.budgetExact),
          up(a.spentInPeriodExact),
          up(a.spentTotalExact),
          String(a.releasesInPeriod)
        ])
      )
    )
  }
  const shown = d.accounts.filter((a) => a.budgetExact !== null || Number(a.spentTotalExact) > 0)
  // Each notion is held to its own budget when it has one, else to the budget per unit (all notions together).
  const limitOf = (a: ReportDataset['accounts'][number]): string | null => a.budgetExact ?? d.budgetPerUnitExact
  if (shown.length > 0) {
    parts.push(
      markup`<div class="chart">${horizontalBars({
        title: `Spend per privacy notion up to the end of the period (they add up to the spend per ${per}), against its budget`,
        limitLabel: d.budgetPerUnitExact === null ? 'own budget' : `budget (own, else per ${per}: ${formatCharge(d.budgetPerUnitExact)})`,
        bars: shown.map((a) => ({
          label: notionName(a.notion),
          value: Number(a.spentTotalExact),
          valueText: `${formatCharge(a.spentTotalExact)}${a.budgetExact === null ? '' : ` of its own budget ${formatCharge(a.budgetExact)}`}`,
          limit: limitOf(a) === null ? null : Number(limitOf(a))
        }))
      })}</div>`
    )
  } else {
    parts.push(markup`<p class="empty">${d.budgetPerUnitExact === null ? 'No budget set and nothing' : 'Nothing'} spent under any notion.</p>`)
  }
  for (const a of d.accounts) {
    const cells = a.cells.filter((c) => c.key !== '{}')
    if (cells.length === 0) continue
    const more = a.cellCount > a.cells.length ? ` (the ${a.cells.length} largest of ${a.cellCount} cells)` : ''
    parts.push(markup`<h4>Spend per partition cell — ${notionName(a.notion)}${more}</h4>`)
    parts.push(
      markup`<div class="chart">${horizontalBars({
        title: `Spend per partition cell (${notionName(a.notion)}) against the budget`,
        bars: cells.map((c) => ({
          label: c.label,
          value: Number(c.totalExact),
          valueText: formatCharge(c.totalExact),
          limit: limitOf(a) === null ? null : Number(limitOf(a))
        }))
      })}</div>`
    )
    parts.push(
      dataTable(
        [{ text: 'Cell' }, { text: 'Spent in period', num: true }, { text: 'Spent in total', num: true }],
        a.cells.map((c) => [c.label, up(c.inPeriodExact), up(c.totalExact)])
      )
    )
  }
  const budgets = data.ledgerEntries.filter((x) => x.kind === 'budget' && x.datasetId === d.datasetId)
  if (budgets.length > 0) {
    parts.push(markup`<h4>Budget changes in the period</h4>`)
    parts.push(
      dataTable(
        [
          { text: 'Entry', num: true },
          { text: 'Time' },
          { text: 'Notion' },
          { text: 'New budget', num: true },
          { text: 'Officer' },
          { text: 'Reason' }
        ],
        budgets.map((b) => [
          String(b.seq),
          timeCell(b.at),
          b.notion === null ? `budget per ${per}` : notionName(b.notion),
          up(b.amountExact),
          b.actor,
          b.description
        ])
      )
    )
  }
  return joinHtml(parts)
}

function summarySection(d: ReportData): Html {
  const parts: Html[] = [markup`<h2>1. Summary</h2>`]
  parts.push(
    joinHtml([
      markup`<table class="facts"><tbody>`,
      markup`<tr><td>Releases in period</td><td><b>${d.totals.releases}</b></td></tr>`,
      markup`<tr><td>Denials in period</td><td><b>${d.totals.denials}</b></td></tr>`,
      markup`<tr><td>Ledger entries in period</td><td><b>${d.totals.ledgerEntries}</b></td></tr>`,
      markup`<tr><td>Sealed-cost unlocks in period</td><td><b>${d.totals.unlocks}</b></td></tr>`,
      markup`<tr><td>Experiments (simulations) in period</td><td><b>${d.totals.experiments}</b></td></tr>`,
      markup`</tbody></table>`
    ])
  )
  parts.push(
    markup`<p class="muted">${d.notionsNote} Spend under a notion is the largest, over partition cells, of the charges that cover the cell (parallel composition over disjoint cells). ${ROUNDING_NOTE}</p>`
  )
  if (d.datasets.length === 0)
    parts.push(markup`<p class="empty">No datasets and no ledger entries in this workspace up to the end of the period.</p>`)
  for (const ds of d.datasets) parts.push(datasetSummary(ds, d))
  return joinHtml(parts)
}

function releasesSection(d: ReportData): Html {
  const officer = d.edition === 'officer'
  const parts: Html[] = [markup`<h2>2. Releases</h2>`]
  parts.push(
    markup`<p class="muted">Every charged release in the period, with its decisions only (how many predicates or records were flagged); true counts and noisy values are never shown.${
      officer
        ? ' Officer edition: the sealed ex-post costs (the data-dependent ε actually spent, rounded up like a charge) are shown in the last columns; reading each one was recorded as an unlock audit event.'
        : ''
    }</p>`
  )
  if (d.releases.length === 0) return markup`${parts}<p class="empty">No releases in this period.</p>`
  const headers = [
    { text: 'ID', num: true },
    { text: 'Time' },
    { text: 'Dataset / query' },
    { text: 'Kind / mechanism' },
    { text: 'Parameters' },
    { text: 'Notion' },
    { text: 'Charge ε', num: true },
    { text: 'Seq', num: true },
    { text: 'Decisions' }
  ]
  if (officer) headers.push({ text: 'Ex-post ε (sealed)', num: true }, { text: 'Queries', num: true })
  const rows = d.releases.map((r) => {
    const row: HtmlValue[] = [
      String(r.releaseId),
      timeCell(r.createdAt),
      `${r.datasetName} / ${r.queryName} (#${r.queryId})`,
      `${kindWords(r.kind)} / ${r.mechanism}`,
      paramsInWords(r),
      notionName(r.notion),
      up(r.chargeExact),
      String(r.ledgerSeq),
      decisionsText(r)
    ]
    if (officer) {
      row.push(
        r.exPost?.sealed ? markup`<span class="sealed">${exPostText(r.exPost.spentMax)}</span>` : markup`<span class="muted">none sealed</span>`,
        r.exPost?.queries === null || r.exPost?.queries === undefined ? '' : String(r.exPost.queries)
      )
    }
    return row
  })
  // Each column holds its longest word (a header such as "Queries", a kind word such as "identification") at 6.6 pt.
  const widths = officer ? [4, 10, 10, 12, 14, 9, 8, 5, 13, 8, 8] : [4, 10, 11, 12, 21, 9, 8, 5, 20]
  parts.push(dataTable(headers, rows, { small: true, widths }))
  return joinHtml(parts)
}

function denialsSection(d: ReportData): Html {
  const parts: Html[] = [
    markup`<h2>3. Denials</h2>`,
    markup`<p class="muted">Requests refused because the charge would have exceeded the budget; nothing was spent.</p>`
  ]
  if (d.denials.length === 0) return markup`${parts}<p class="empty">No denials in this period.</p>`
  parts.push(
    dataTable(
      [
        { text: 'Audit', num: true },
        { text: 'Time' },
        { text: 'Actor' },
        { text: 'Dataset' },
        { text: 'Query' },
        { text: 'Notion' },
        { text: 'Requested ε', num: true },
        { text: 'Remaining ε', num: true },
        { text: 'Budget ε', num: true }
      ],
      d.denials.map((x) => [
        String(x.auditId),
        timeCell(x.at),
        x.actor,
        x.datasetName === null ? '' : `${x.datasetName} (${x.datasetId})`,
        x.queryId === null ? '' : `${x.queryName ?? ''} (#${x.queryId})`,
        notionName(x.notion),
        x.requestedExact === null ? '' : up(x.requestedExact),
        x.remainingExact === null ? 'no budget' : down(x.remainingExact),
        x.budgetExact === null ? 'none' : up(x.budgetExact)
      ]),
      { small: true }
    )
  )
  return joinHtml(parts)
}

function unlocksSection(d: ReportData): Html {
  const parts: Html[] = [
    markup`<h2>4. Unlocks of sealed costs</h2>`,
    markup`<p class="muted">Each time a privacy officer read the sealed ex-post costs of a release (recorded before the read).</p>`
  ]
  if (d.unlocks.length === 0) return markup`${parts}<p class="empty">No unlocks in this period.</p>`
  parts.push(
    dataTable(
      [{ text: 'Audit', num: true }, { text: 'Time' }, { text: 'Officer' }, { text: 'Release', num: true }, { text: 'Reason' }],
      d.unlocks.map((u) => [String(u.auditId), timeCell(u.at), u.officer, u.releaseId === null ? '' : String(u.releaseId), u.reason]),
      { small: true }
    )
  )
  return joinHtml(parts)
}

// ---------------------------------------------------------------------------------------------------------------
// Experiments

const MAX_PANELS = 6
const MAX_METRICS_PER_PANEL = 4

function paramValueText(v: unknown): string {
  return typeof v === 'number' ? shortNumber(v) : String(v)
}

/** Chart panels of an experiment: per sweep (and workload unless it is the x axis), x = the first swept parameter. */
function experimentCharts(x: ReportExperiment): Html {
  const done = x.cells.filter((c) => c.status === 'done')
  if (done.length === 0) return markup`<p class="empty">No finished cells to chart.</p>`
  const metrics = x.metrics
    .filter((m) => done.some((c) => c.metrics[m.name]?.mean !== null && c.metrics[m.name] !== undefined))
    .slice(0, MAX_METRICS_PER_PANEL)
  const bySweep = new Map<string, ReportExperimentCell[]>()
  for (const c of done) {
    const l = bySweep.get(c.sweep) ?? []
    l.push(c)
    bySweep.set(c.sweep, l)
  }
  const panels: Html[] = []
  let skipped = 0
  for (const [sweep, cells] of bySweep) {
    const keys = [...new Set(cells.flatMap((c) => Object.keys(c.params)))].sort()
    const varying = keys.filter((k) => new Set(cells.map((c) => JSON.stringify(c.params[k] ?? null))).size > 1)
    const numericVarying = varying.filter((k) => cells.every((c) => typeof c.params[k] === 'number'))
    const workloads = [...new Set(cells.map((c) => c.workload))]
    let xKey: string
    let xOf: (c: ReportExperimentCell) => number | string
    let panelWorkloads: Array<string | null>
    if (numericVarying.length > 0) {
      xKey = numericVarying[0]
      xOf = (c) => c.params[xKey] as number
      panelWorkloads = workloads
    } else if (workloads.length > 1) {
      xKey = 'workload'
      xOf = (c) => c.workload
      panelWorkloads = [null]
    } else {
      xKey = 'mechanism'
      xOf = (c) => c.mechanism
      panelWorkloads = workloads
    }
    const seriesKeys = varying.filter((k) => k !== xKey)
    const seriesOf = (c: ReportExperimentCell) =>
      xKey === 'mechanism' ? 'all' : [c.mechanism, ...seriesKeys.map((k) => `${k}=${paramValueText(c.params[k])}`)].join(' ')
    for (const w of panelWorkloads) {
      if (panels.length >= MAX_PANELS) {
        skipped++
        continue
      }
      const mine = cells.filter((c) => w === null || c.workload === w)
      const seriesNames = [...new Set(mine.map(seriesOf))]
      const charts = metrics.map((m) => {
        const series: LineSeries[] = seriesNames.map((name) => ({
          name,
          points: mine
            .filter((c) => seriesOf(c) === name && c.metrics[m.name] !== undefined)
            .map((c) => ({ x: xOf(c), y: c.metrics[m.name].mean, lo: c.metrics[m.name].ciLow, hi: c.metrics[m.name].ciHigh }))
        }))
        return markup`<div class="chart">${lineChart({ title: `SIMULATION · ${m.name}`, xLabel: xKey, series, width: 325, height: 190 })}</div>`
      })
      panels.push(
        markup`<div class="chartgroup"><h4>Sweep "${sweep}"${w === null ? '' : `, workload ${w}`}</h4>${
          seriesNames.length > 1 || seriesNames[0] !== 'all' ? legendHtml(seriesNames) : ''
        }<div class="charts">${charts}</div></div>`
      )
    }
  }
  if (skipped > 0)
    panels.push(markup`<p class="muted">${skipped} more chart panel(s) not drawn; every value is in the table below and in the experiments CSV.</p>`)
  const withData = x.metrics.filter((m) => done.some((c) => c.metrics[m.name] !== undefined && c.metrics[m.name].mean !== null))
  if (withData.length > metrics.length) {
    panels.push(
      markup`<p class="muted">Charts show ${metrics.map((m) => m.name).join(', ')}; the CSV export (table “experiments”) has every metric of every cell.</p>`
    )
  }
  return joinHtml(panels)
}

function metricCell(v: { mean: number | null; ciLow: number | null; ciHigh: number | null } | undefined): Html {
  if (!v || v.mean === null) return markup``
  const ci =
    v.ciLow !== null && v.ciHigh !== null ? markup`<br><span class="nowrap muted">[${shortNumber(v.ciLow)}, ${shortNumber(v.ciHigh)}]</span>` : ''
  return markup`<span class="nowrap">${shortNumber(v.mean)}</span>${ci}`
}

/** At most this many rows in an experiment's headline table (the full table is in the CSV). */
export const HEADLINE_ROWS = 16
/** At most this many metrics as columns of the headline table. */
const HEADLINE_METRICS = 4

/**
 * One table of the headline cells of an experiment: per sweep, workload and mechanism, the finished cells at the
 * two ends of the swept parameter; never a pending cell. Every cell with every metric is in the CSV export.
 */
export function headlineCells(x: ReportExperiment): ReportExperimentCell[] {
  const done = x.cells.filter((c) => c.status === 'done')
  const groups = new Map<string, ReportExperimentCell[]>()
  for (const c of done) {
    const k = `${c.sweep}\u0000${c.workload}\u0000${c.mechanism}`
    groups.set(k, [...(groups.get(k) ?? []), c])
  }
  const out: ReportExperimentCell[] = []
  for (const cells of groups.values()) {
    const keys = [...new Set(cells.flatMap((c) => Object.keys(c.params)))]
    const swept = keys.find((k) => cells.every((c) => typeof c.params[k] === 'number') && new Set(cells.map((c) => c.params[k])).size > 1)
    if (!swept) {
      out.push(cells[0])
      continue
    }
    const sorted = [...cells].sort((a, b) => (a.params[swept] as number) - (b.params[swept] as number))
    out.push(sorted[0], sorted[sorted.length - 1])
  }
  return out.slice(0, HEADLINE_ROWS)
}

function headlineTable(x: ReportExperiment): Html {
  const rows = headlineCells(x)
  const pending = x.cellsTotal - x.cellsDone
  const where = `The full table (every cell, every metric with its interval) is in the CSV export (table “experiments”).`
  if (rows.length === 0) return markup`<p class="empty">No finished cells yet. ${where}</p>`
  const metricNames = x.metrics
    .map((m) => m.name)
    .filter((n) => rows.some((c) => c.metrics[n] !== undefined && c.metrics[n].mean !== null))
    .slice(0, HEADLINE_METRICS)
  return joinHtml([
    markup`<h4>Headline cells (mean [95% interval]) — simulation</h4>`,
    markup`<p class="muted">Per mechanism, the finished cells at both ends of the swept parameter${
      pending > 0 ? `; ${pending} cells of this ${x.status} run have no result and are left out` : ''
    }. ${where}</p>`,
    dataTable(
      [{ text: 'Cell', num: true }, { text: 'Workload' }, { text: 'Mechanism' }, { text: 'Parameters' }, ...metricNames.map((n) => ({ text: n }))],
      rows.map((c) => [String(c.index), c.workload, c.mechanism, paramsText(c.params), ...metricNames.map((n) => metricCell(c.metrics[n]))]),
      { small: true }
    )
  ])
}

function experimentsSection(d: ReportData): Html {
  const parts: Html[] = [
    markup`<h2>5. Experiments (simulations)</h2>`,
    markup`<div class="sim"><span class="simtag">SIMULATION</span> Experiments run the mechanisms on known data (ground truth) with a seeded generator. They are never charged to the ledger and are not releases; their figures describe the mechanisms, not the datasets.</div>`
  ]
  if (d.experiments.length === 0) return markup`${parts}<p class="empty">No experiments in this period.</p>`
  for (const x of d.experiments) {
    parts.push(markup`<h3><span class="simtag">SIMULATION</span> ${x.name}</h3>`)
    parts.push(
      joinHtml([
        markup`<table class="facts"><tbody><tr><td>Experiment</td><td class="mono">${x.id}</td></tr><tr><td>Engine</td><td>${x.engine}</td></tr>`,
        markup`<tr><td>Base seed</td><td class="mono">${x.seed}</td></tr><tr><td>Status</td><td>${x.status}, ${x.cellsDone} of ${x.cellsTotal} cells done</td></tr>`,
        markup`<tr><td>Created</td><td>${reportTime(x.createdAt)}</td></tr></tbody></table>`
      ])
    )
    parts.push(experimentCharts(x))
    parts.push(headlineTable(x))
  }
  return joinHtml(parts)
}

function ledgerSection(d: ReportData): Html {
  const parts: Html[] = [
    markup`<h2>6. Ledger entries</h2>`,
    markup`<p class="muted">The hash-chained, append-only ledger entries written in the period (charges and budget changes). Each hash covers the entry and the hash before it.</p>`
  ]
  if (d.ledgerEntries.length === 0) return markup`${parts}<p class="empty">No ledger entries in this period.</p>`
  const headers = ['Entry', 'Time', 'Kind', 'Dataset', 'Notion', 'ε', 'Cells', 'Release', 'Actor', 'Description']
  const numeric = new Set(['Entry', 'ε', 'Cells', 'Release'])
  const head = markup`<thead><tr>${headers.map((h) => markup`<th${numeric.has(h) ? markup` class="num"` : ''}>${h}</th>`)}</tr></thead>`
  const rows = d.ledgerEntries.map((x) => {
    const main = [
      markup`<td class="num">${x.seq}</td>`,
      markup`<td>${timeCell(x.at)}</td>`,
      markup`<td>${x.kind}</td>`,
      markup`<td>${x.datasetName}</td>`,
      markup`<td>${x.notion === null ? (x.kind === 'budget' ? 'every notion' : '') : notionName(x.notion)}</td>`,
      markup`<td class="num">${up(x.amountExact)}</td>`,
      markup`<td class="num">${x.cellCount}</td>`,
      markup`<td class="num">${x.releaseId === null ? '' : x.releaseId}</td>`,
      markup`<td>${x.actor}</td>`,
      markup`<td>${x.description}</td>`
    ]
    const sub = markup`<td></td><td colspan="9">hash <span class="h6">${x.hash}</span><br>prev <span class="h6">${x.prevHash}</span></td>`
    return markup`<tbody class="entry"><tr class="main">${main}</tr><tr class="sub">${sub}</tr></tbody>`
  })
  const widths = [5, 11, 6, 10, 10, 8, 5, 7, 9, 29]
  for (let i = 0; i < rows.length; i += ROWS_PER_TABLE) {
    parts.push(markup`<table class="data small" style="table-layout:fixed">${colgroup(widths)}${head}${rows.slice(i, i + ROWS_PER_TABLE)}</table>`)
  }
  return joinHtml(parts)
}

function verificationSection(d: ReportData, v: ReportVerification): Html {
  const args = v.reproduceArgs
  const officerArg = d.edition === 'officer' ? ' --officer NAME' : ''
  return joinHtml([
    markup`<h2>7. Verification</h2>`,
    markup`<div class="box">`,
    markup`<p>Ledger hash-chain head at the end of the period: entry ${d.ledgerHead.seq}<br><span class="hash">${d.ledgerHead.hash}</span></p>`,
    markup`<p>SHA-256 of this report's data:<br><span class="hash" id="data-sha256">${v.dataSha256}</span></p>`,
    v.officerSignature === null
      ? markup``
      : markup`<p>Signed by officer ${v.officerSignature.officer} (key id <span class="hash">${v.officerSignature.keyId}</span>) with checkpoint ${v.officerSignature.checkpoint.id} (ledger entry ${v.officerSignature.checkpoint.ledgerSeq}, audit event ${v.officerSignature.checkpoint.auditId}), Ed25519 over the SHA-256 above and that checkpoint:<br><span class="hash" id="officer-signature">${v.officerSignature.signature}</span></p>`,
    markup`</div>`,
    markup`<h4>SHA-256 of the CSV tables of this report</h4>`,
    dataTable(
      [{ text: 'Table' }, { text: 'File' }, { text: 'SHA-256' }],
      (Object.keys(TABLE_FILES) as ReportTable[]).map((t) => [t, TABLE_FILES[t], markup`<span class="hash">${v.csvSha256[t]}</span>`])
    ),
    markup`<h4>At generation time (not covered by the SHA-256)</h4>`,
    markup`<p>Generated ${reportTime(v.generatedAt)}. Whole-ledger verification: <span class="${v.ledgerVerify.ok ? 'ok' : 'bad'}">${v.ledgerVerify.message}</span> (${v.ledgerVerify.entries} entries, head <span class="hash">${v.ledgerVerify.headHash}</span>).</p>`,
    markup`<h4>How to check this report</h4>`,
    markup`<ol>`,
    markup`<li>The record was not altered: run <code>npx quiet-alarm ledger verify --db WORKSPACE ${d.ledgerHead.seq === 0 ? '' : ` --head ${d.ledgerHead.hash}`}</code> on the workspace file. It recomputes every hash of the chain, must report it intact, and checks that the head above (entry ${d.ledgerHead.seq}) is still in the chain: the chain only grows, so later entries do not change it. Keep the head elsewhere and a rewrite of the ledger cannot go unnoticed.</li>`,
    markup`<li>This document shows the report's data (ε values rounded as section 1 says; the exports hold them exact): export it as JSON with the same options, <code>npx quiet-alarm report --db WORKSPACE --format json --out report.json ${args}${officerArg}</code>, and compute <code>sha256sum report.json</code>: it must equal the SHA-256 above. The file is canonical JSON (RFC 8785: keys sorted, no whitespace, UTF-8), so the hash can also be recomputed from its parsed content with an RFC 8785 serialiser (not a plain JSON library: Python's json writes 1e-05 for 0.00001 and escapes non-ASCII).</li>`,
    markup`<li>Each CSV table likewise: <code>npx quiet-alarm report --db WORKSPACE --format csv --table releases --out releases.csv ${args}${officerArg}</code>, then <code>sha256sum releases.csv</code> must equal the releases row above (tables: ledger, releases, denials, experiments).</li>`,
    markup`<li>Compare the figures of this document with the JSON or CSV export (releases, denials, spend per notion and per cell, remaining budget): each printed ε is the exported one at 6 significant digits, rounded up (down for what remains).</li>`,
    markup`</ol>`,
    d.edition === 'officer'
      ? markup`<p class="muted">Officer edition: exporting it again records new unlock events, after the end of the period, so its data and hash stay the same.</p>`
      : markup`<p class="muted">Analyst edition: contains no ex-post costs.</p>`
  ])
}

/** The PDF's page footer (Chromium's footer template): markup as text. */
export function footerHtml(d: ReportData): string {
  return markup`<div style="font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 7.5pt; color: #555; width: 100%; padding: 0 14mm; display: flex; justify-content: space-between;"><span>Quiet Alarm audit report · ${d.edition} edition · ${scopeText(
    d
  )}</span><span>Page <span class="pageNumber"></span> of <span class="totalPages"></span></span></div>`.text
}

/** The whole report as one HTML document (text). */
export function renderReportHtml(d: ReportData, v: ReportVerification): string {
  const title = `Privacy audit report — ${scopeText(d)}`
  const head = joinHtml([
    markup`<!DOCTYPE html>`,
    markup`<html lang="en"><head><meta charset="utf-8">`,
    markup`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    markup`<title>${title}</title>`,
    markup`<style>${trustedHtml(CSS)}</style></head><body>`
  ])
  const cover = joinHtml([
    markup`<h1>${title}</h1>`,
    markup`<p><span class="edition ${d.edition}">${
      d.edition === 'officer' ? 'OFFICER EDITION — with sealed ex-post costs' : 'ANALYST EDITION — no ex-post costs'
    }</span></p>`,
    markup`<table class="facts"><tbody>`,
    markup`<tr><td>Scope</td><td>${scopeText(d)}</td></tr>`,
    markup`<tr><td>Period</td><td>${periodText(d)}</td></tr>`,
    markup`<tr><td>Generated</td><td>${reportTime(v.generatedAt)}</td></tr>`,
    markup`<tr><td>Ledger head at end of period</td><td>entry ${d.ledgerHead.seq} · <span class="hash">${d.ledgerHead.hash}</span></td></tr>`,
    markup`<tr><td>Report data SHA-256</td><td><span class="hash">${v.dataSha256}</span></td></tr>`,
    markup`<tr><td>Ledger verification</td><td><span class="${v.ledgerVerify.ok ? 'ok' : 'bad'}">${v.ledgerVerify.message}</span></td></tr>`,
    markup`</tbody></table>`,
    markup`<p class="muted">Releases are charged runs on real data with secure noise; they show decisions only. Experiments are simulations (ground truth, seeded, never charged) and are marked as such. Section 7 says how to check this document.</p>`
  ])
  return joinHtml(
    [
      head,
      cover,
      summarySection(d),
      releasesSection(d),
      denialsSection(d),
      unlocksSection(d),
      experimentsSection(d),
      ledgerSection(d),
      verificationSection(d, v),
      markup`</body></html>`
    ],
    '\n'
  ).text
}
