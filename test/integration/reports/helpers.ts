/** Helpers of the report tests: run the CLI in-process, read PDFs with poppler, parse CSV, canonical JSON. */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { main } from '../../../src-main/cli'

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

export async function cli(args: string[], cwd = process.cwd()): Promise<CliRun> {
  let stdout = ''
  let stderr = ''
  const io = {
    stdout: { write: (s: string) => ((stdout += s), true) },
    stderr: { write: (s: string) => ((stderr += s), true) },
    cwd
  }
  const code = await main(args, io as never)
  return { code, stdout, stderr }
}

/** pdftotext -layout, with runs of spaces collapsed to one (table rows become "a b c" lines). */
export function pdfText(file: string): string {
  const raw = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
  return raw
    .split('\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
}

export function pdfPages(file: string): number {
  const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' })
  return Number(/Pages:\s+(\d+)/.exec(info)?.[1] ?? NaN)
}

/** Render pages [1, last] at 60 dpi into `dir` (a test artifact) as <prefix>-<n>.png; returns the files. */
export function renderPages(file: string, dir: string, prefix: string, last = 3): string[] {
  mkdirSync(dir, { recursive: true })
  for (const f of readdirSync(dir)) if (f.startsWith(`${prefix}-`)) rmSync(join(dir, f))
  execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', String(last), file, join(dir, prefix)])
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${prefix}-`) && f.endsWith('.png'))
    .map((f) => join(dir, f))
}

export function parseCsv(text: string): { header: string[]; rows: string[][] } {
  const records = parse(text, { relax_column_count: false }) as string[][]
  return { header: records[0], rows: records.slice(1) }
}

/** The reader's side of the formula neutralisation: one leading apostrophe of a text field is removed. */
export function unquote(field: string): string {
  return field.startsWith("'") ? field.slice(1) : field
}

/** Canonical JSON written independently of the service (keys sorted at every level, no whitespace). */
export function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v)
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  const o = v as Record<string, unknown>
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

/** The text between a heading and the next heading of the same report (for per-section checks). */
export function section(text: string, start: string, end: string | null): string {
  const i = text.indexOf(start)
  if (i < 0) throw new Error(`"${start}" not found in the PDF text`)
  const j = end === null ? -1 : text.indexOf(end, i + start.length)
  return text.slice(i, j < 0 ? undefined : j)
}
