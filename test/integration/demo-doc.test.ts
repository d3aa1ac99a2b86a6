/**
 * docs/guide/demo.md shows the output of `quiet-alarm demo`: it must be a run's output, line for line, except what
 * varies from run to run (the released answers, which the noise decides, times, hashes and the officer's key). Run
 * with QA_WRITE_DEMO_DOC=1 to put this run's output in the page.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { main } from '../../src-main/cli'
import { tempWorkspace } from './helpers'

const ROOT = join(__dirname, '..', '..')
const PAGE = join(ROOT, 'docs', 'guide', 'demo.md')
const ws = tempWorkspace('qa-demo-doc-')
afterAll(() => ws.cleanup())

/** The page's block: from the line "$ quiet-alarm demo" to the end of its fence. */
function pageBlock(page: string): { start: number; end: number; lines: string[] } {
  const lines = page.split('\n')
  const start = lines.indexOf('$ quiet-alarm demo')
  const end = lines.indexOf('```', start)
  return { start, end, lines: lines.slice(start + 1, end) }
}

/** What varies between runs, masked: answers (between a release's header and its guarantee), times, hashes, the key. */
function masked(lines: string[]): string[] {
  const out: string[] = []
  let inAnswer = false
  let dashes = 0
  for (const line of lines) {
    if (/^-{20,}$/.test(line)) {
      dashes++
      if (dashes % 2 === 0) {
        inAnswer = true
        out.push(line)
        continue
      }
    }
    if (inAnswer) {
      if (!line.startsWith('Guarantee:')) continue
      inAnswer = false
    }
    out.push(
      line
        .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+Z)?/g, 'TIME')
        .replace(/\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC/g, 'TIME')
        .replace(/\b[0-9a-f]{16}\b/g, 'HASH')
        .replace(/key( [0-9a-f]{4}){8}/, 'key KEY')
    )
  }
  return out
}

it("docs/guide/demo.md's output is what the demo prints (answers, times, hashes and the key aside)", async () => {
  let out = ''
  const io = { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: () => true }, cwd: ROOT }
  expect(await main(['demo', '--db', ws.db], io as never)).toBe(0)
  const run = out.replaceAll(ws.db, 'quiet-alarm-demo.sqlite').trimEnd().split('\n')
  const page = readFileSync(PAGE, 'utf8')
  const block = pageBlock(page)
  expect(block.start).toBeGreaterThan(0)
  if (process.env.QA_WRITE_DEMO_DOC === '1') {
    const lines = page.split('\n')
    writeFileSync(PAGE, [...lines.slice(0, block.start + 1), ...run, ...lines.slice(block.end)].join('\n'))
    return
  }
  expect(masked(block.lines)).toEqual(masked(run))
}, 120_000)
