/**
 * The attack: text a workspace holds (a dataset's name, a query's name, a budget's reason, an officer's name, a group
 * value of the data) written as markup, to run script or restyle the audit report an officer hands on. The report
 * template escapes every interpolated value (services/reports/html.ts), so each payload appears in the HTML only
 * escaped and in the PDF as the literal text that was typed, never as an element.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { escapeHtml } from '../../../src-main/services/reports/html'
import { tempWorkspace } from '../helpers'
import { cli, pdfText } from './helpers'

const PAYLOADS = {
  dataset: '<img/src=x/onerror=alert(1)>',
  query: '<svg/onload=alert(2)>',
  reason: '</td><script>alert(3)</script>',
  officer: '<u>Olga</u>',
  group: '<b>R1</b>'
}

let ws: ReturnType<typeof tempWorkspace>
let reportHtml: string
let reportPdfText: string

async function ok(args: string[]): Promise<string> {
  const r = await cli(args, ws.dir)
  if (r.code !== 0) throw new Error(`${args.join(' ')} exited ${r.code}: ${r.stderr}`)
  return r.stdout
}

beforeAll(async () => {
  ws = tempWorkspace('qa-report-inject-')
  const rows = [PAYLOADS.group, 'R2', 'R3'].flatMap((room, i) => Array.from({ length: 3 + i }, (_, j) => `${room},p${i}${j}`))
  writeFileSync(join(ws.dir, 'rooms.csv'), ['room,person', ...rows].join('\n') + '\n')
  writeFileSync(join(ws.dir, 'officer.pass'), 'a long enough officer passphrase\n')
  await ok(['import', '--db', ws.db, '--file', 'rooms.csv', '--name', PAYLOADS.dataset])
  await ok(['officer', 'init', '--db', ws.db, '--name', PAYLOADS.officer, '--passphrase-file', 'officer.pass'])
  await ok([
    'budget',
    '--db',
    ws.db,
    '--dataset',
    PAYLOADS.dataset,
    '--epsilon',
    '10',
    '--reason',
    PAYLOADS.reason,
    '--passphrase-file',
    'officer.pass'
  ])
  const definition = {
    kind: 'threshold',
    groupBy: ['room'],
    count: { kind: 'rows' },
    threshold: { kind: 'constant', value: 4 },
    groups: [[PAYLOADS.group], ['R2'], ['R3']]
  }
  writeFileSync(join(ws.dir, 'query.json'), JSON.stringify({ dataset: PAYLOADS.dataset, name: PAYLOADS.query, definition }))
  await ok(['query', 'save', '--db', ws.db, '--spec', 'query.json'])
  await ok(['release', '--db', ws.db, '--query', '1', '--beta', '0.05', '--alpha', '1'])
  await ok(['report', '--db', ws.db, '--format', 'html', '--out', 'report.html'])
  await ok(['report', '--db', ws.db, '--format', 'pdf', '--out', 'report.pdf'])
  reportHtml = readFileSync(join(ws.dir, 'report.html'), 'utf8')
  reportPdfText = pdfText(join(ws.dir, 'report.pdf'))
}, 180_000)

afterAll(() => ws?.cleanup())

describe('a report of a workspace whose names and reasons are markup', () => {
  for (const [field, payload] of Object.entries(PAYLOADS)) {
    it(`HTML: the ${field} is shown escaped, never as an element`, () => {
      expect(reportHtml).not.toContain(payload)
      expect(reportHtml).toContain(escapeHtml(payload))
    })

    it(`PDF: the ${field} reads as the text that was typed`, () => {
      // pdftotext wraps table cells: compare without white space.
      expect(reportPdfText.replace(/\s+/g, '')).toContain(payload.replace(/\s+/g, ''))
    })
  }

  it('the document has no script and no element but its own', () => {
    expect(reportHtml).not.toMatch(/<script|<img|<svg\/|<u>/i)
  })
})
