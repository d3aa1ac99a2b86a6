/** Plain-text renderings of ledger summaries, entries and releases, for the CLI (an analyst or officer reads them). */
import { formatCharge, formatRemaining } from '../../contract/format-epsilon'
import type { LedgerEntry, LedgerSummary, ReleasePreview, ReleaseRecord } from '../../contract/ledger'
import { releaseKindSpec, specOfAnswer } from '../../contract/release-kinds'
import { NOTION_LABEL } from '../chain/notions'
import { actedBy, unsignedActsText } from '../../contract/officer-acts'
import { ROW_LEVEL_ACCOUNTING } from './ledger-views'

const line = (n = 78) => '-'.repeat(n)

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length)
}
function lpad(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s
}
function short(at: string): string {
  return at.replace('T', ' ').slice(0, 19)
}
function clip(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n - 1) + '~'
}

export function summaryText(s: LedgerSummary, opts: { cells?: number } = {}): string {
  const out: string[] = []
  // An analyst of the service reads no head (analyst-ids.ts): the entries they may read, counted.
  out.push(
    `Privacy-budget ledger: ${s.entries} ${s.entries === 1 ? 'entry' : 'entries'}${s.headHash === '' ? '' : `, head ${s.headHash.slice(0, 16)}`}`
  )
  if ((s.unsignedActsInForce ?? 0) > 0) out.push(unsignedActsText(s.unsignedActsInForce ?? 0))
  out.push(s.notionsNote)
  if (s.datasets.length === 0) out.push('', 'No datasets yet.')
  for (const d of s.datasets) {
    out.push('', `Dataset "${d.datasetName}" (id ${d.datasetId})${d.exists ? '' : ' [deleted; history kept]'}, unit: ${d.unitText}`)
    const per = d.unitKind === 'person' ? 'per person' : 'per row'
    if (d.rowLevelEntries > 0) {
      out.push(
        `  ${d.rowLevelEntries} ${d.rowLevelEntries === 1 ? 'entry was' : 'entries were'} written before privacy units existed: ${ROW_LEVEL_ACCOUNTING}.`
      )
    }
    if (d.budgetPerUnitSource === 'none' && d.accounts.every((a) => a.releases === 0)) {
      out.push('  No budget set and nothing spent: releases on it are denied until the privacy officer sets a budget.')
      continue
    }
    const budgetText =
      d.budgetPerUnitSource === 'none'
        ? 'no budget set (releases are denied)'
        : `budget ${formatCharge(d.budgetPerUnitExact)}${d.budgetPerUnitSource === 'notion-budgets' ? ' (the sum of the notion budgets; no budget per unit set)' : ''}, remaining ${formatRemaining(d.remainingPerUnitExact)}`
    if (d.allotment === true && d.budgetPerUnitSource !== 'none') {
      out.push(
        `  Your allotment ${per}: ${formatCharge(d.budgetPerUnitExact)}, ${formatRemaining(d.remainingPerUnitExact)} left; you have spent ${formatCharge(d.spentPerUnitExact)} (summed over notions)`
      )
    } else out.push(`  Spent ${per}, summed over notions: ${formatCharge(d.spentPerUnitExact)}; ${budgetText}`)
    if ((d.overruns ?? 0) > 0) {
      out.push(
        `  ${d.overruns} ${d.overruns === 1 ? 'release' : 'releases'} overran the dataset's public answer time (answered at a later multiple of it): consider raising the answer time.`
      )
    }
    out.push(`  Breakdown by notion (each adds to the figure above):`)
    out.push(`  ${pad('Notion', 28)}${lpad('Spent', 12)}${lpad('Own budget', 12)}${lpad('Remaining', 12)}${lpad('Releases', 10)}`)
    for (const a of d.accounts) {
      out.push(
        `  ${pad(a.label, 28)}${lpad(formatCharge(a.spentExact), 12)}${lpad(a.budgetExact === null ? '-' : formatCharge(a.budgetExact), 12)}${lpad(a.remainingExact === null ? 'denied' : formatRemaining(a.remainingExact), 12)}${lpad(String(a.releases), 10)}`
      )
    }
    for (const a of d.accounts) {
      const real = a.cells.filter((c) => c.key !== '{}')
      if (real.length === 0) continue
      out.push(
        `  Spend per cell under ${a.label} (${a.cellCount} cells charged; a ${d.unitKind === 'person' ? 'person' : 'row'} has spent the total of the cells ${d.unitKind === 'person' ? 'their rows lie' : 'it lies'} in):`
      )
      // Cells with the same total are listed together, largest first.
      const levels: Array<{ total: string; labels: string[] }> = []
      for (const c of real) {
        const last = levels[levels.length - 1]
        if (last && last.total === c.totalExact) last.labels.push(c.label)
        else levels.push({ total: c.totalExact, labels: [c.label] })
      }
      const n = opts.cells ?? 5
      for (const l of levels.slice(0, n)) {
        const shown = l.labels.slice(0, 3).join('; ')
        const more = l.labels.length > 3 ? `; ... ${l.labels.length - 3} more` : ''
        out.push(`    ${lpad(formatCharge(l.total), 12)} on ${l.labels.length} cell${l.labels.length === 1 ? '' : 's'}: ${clip(shown + more, 120)}`)
      }
      if (levels.length > n) out.push(`    ... ${levels.length - n} smaller totals not shown (--cells N shows more)`)
    }
    if (d.budgetChanges.length) {
      out.push('  Budget changes:')
      for (const b of d.budgetChanges) {
        out.push(
          `    #${b.seq} ${short(b.at)}  ${b.notion ? NOTION_LABEL[b.notion] : `budget ${per}`} set to ${formatCharge(b.epsilonExact)} ${actedBy(b)}: "${b.reason}"`
        )
      }
    }
  }
  return out.join('\n')
}

export function entriesText(entries: LedgerEntry[], total: number): string {
  const out: string[] = []
  out.push(`Ledger entries (${entries.length} of ${total}, newest first)`)
  out.push(`  ${pad('#', 5)}${pad('When (UTC)', 21)}${pad('Kind', 8)}${pad('Notion', 27)}${lpad('Epsilon', 12)}  What`)
  for (const e of entries) {
    const notion = e.notion ? NOTION_LABEL[e.notion] : e.kind === 'budget' ? 'budget per unit' : '-'
    const where = e.kind === 'charge' ? (e.cellCount ? ` [${e.cellCount} cells]` : ' [whole dataset]') : ''
    const what =
      e.kind === 'budget'
        ? `budget of "${e.datasetName}" set ${actedBy(e)}: ${e.description}`
        : e.kind === 'public'
          ? `"${e.datasetName}" declared public ${actedBy(e)}: ${e.description}`
          : e.kind === 'alarm'
            ? `alarm on "${e.datasetName}" signed ${actedBy(e)}: ${e.description}`
            : `${e.description}${where}`
    const legacy = e.rowLevelAccounting ? ` (${ROW_LEVEL_ACCOUNTING})` : ''
    out.push(
      `  ${pad(String(e.seq), 5)}${pad(short(e.at), 21)}${pad(e.kind, 8)}${pad(notion, 27)}${lpad(formatCharge(e.epsilonExact), 12)}  ${what}${legacy}`
    )
  }
  return out.join('\n')
}

export function releaseText(r: ReleaseRecord): string {
  const out: string[] = []
  out.push(line())
  out.push(`RELEASE ${r.releaseId}  [released: real data, secure noise, charged to the ledger]`)
  out.push(`${releaseKindSpec(r.kind)?.title ?? r.kind} "${r.queryName}" on dataset "${r.datasetName}", mechanism ${r.mechanism}`)
  out.push(line())
  if (r.answer) out.push(...specOfAnswer(r.answer).answerLines(r.answer))
  else out.push(`Status: ${r.statusText}`)
  out.push('', `Guarantee: ${r.guarantee}`)
  out.push(`Charge: epsilon ${formatCharge(r.epsilonExact)} (${NOTION_LABEL[r.notion]}), ledger entry #${r.ledgerSeq}.`)
  return out.join('\n')
}

export function previewText(p: ReleasePreview): string {
  const out: string[] = []
  out.push(`PREVIEW (nothing spent): ${p.kind} query "${p.queryName}" on dataset "${p.datasetName}"`)
  out.push(`Cost: epsilon ${formatCharge(p.epsilonExact)} (${NOTION_LABEL[p.notion]}): ${p.chargeExplained}`)
  out.push(
    `Budget per unit: ${p.budgetExact === null ? 'not set' : formatCharge(p.budgetExact)}; spent per unit (summed over notions) ${formatCharge(p.spentBeforeExact)}; after this release ${formatCharge(p.spentAfterExact)}.`
  )
  out.push(p.allowed ? 'Would be admitted.' : (p.denial ?? 'Would be denied.'))
  for (const w of p.warnings ?? []) out.push(`Warning: ${w}`)
  if (!p.allowed && p.fit) out.push(p.fit.sentence)
  out.push(`Guarantee: ${p.guarantee}`)
  return out.join('\n')
}
