/**
 * The shape of a CLI command and the helpers that parse its options.
 *
 * Contract (ARCHITECTURE.md, "CLI contract"): `--json` prints exactly one JSON object on stdout; bad input exits with
 * code 2 and one line on stderr, and nothing is written. Commands throw `UsageError` (or `UserError`) for bad input.
 */
import { UserError } from '../services'
import { inRange } from '../contract/release-params'

/** Bad options on the command line: bad input like any other (code `bad-input`, exit 2, nothing written). */
export class UsageError extends UserError {
  constructor(message: string) {
    super(message, 'bad-input')
  }
}

export interface CliOptionSpec {
  type: 'string' | 'boolean'
  /** One line shown by `--help`. */
  description: string
  /** Shown by `--help` as the default; parsing does not fill it in (commands apply their defaults). */
  defaultText?: string
}

export type CliValues = Record<string, string | boolean | undefined>

export interface CliContext {
  /** True when `--json` was given. */
  json: boolean
  /** Write a progress line to stderr (suppressed with --json unless QA_PROGRESS=1). */
  progress(line: string): void
  /** The working directory the paths are relative to. */
  cwd: string
  /** Write a line to stdout now (a long-running command's first line, e.g. the service URL of `serve`). */
  print(line: string): void
}

export interface CliResult {
  /** The single JSON object printed with --json. */
  json: Record<string, unknown>
  /** What a person reads without --json (may be several lines). */
  text: string
  /** A check that ran and found a problem (e.g. `ledger verify`): exit with this code (3) after printing the result. */
  exitCode?: number
  /** One line for stderr alongside a non-zero exitCode. */
  stderrLine?: string
  /** The command printed its result already (`ctx.print`): nothing more goes to stdout. */
  printed?: boolean
}

export interface CliCommand {
  name: string
  summary: string
  /** e.g. "minent --eps 0.1,0.5,1" */
  usage: string
  options: Record<string, CliOptionSpec>
  /** Optional sub-commands named in the first positional (e.g. `ledger verify`). */
  subcommands?: string[]
  /**
   * The options this invocation cannot do without (they may depend on the sub-command or on other options). Checked
   * before the command runs, and every missing one is named in one line.
   */
  required?: (values: CliValues, positionals: string[]) => readonly string[]
  /** More lines for `--help`, per sub-command ('' for the command without one): examples, file formats. */
  helpNotes?: Record<string, string>
  run(values: CliValues, positionals: string[], ctx: CliContext): Promise<CliResult>
}

// ---------------------------------------------------------------------------------------------------------------
// Option parsing helpers. Each throws UsageError with one sentence naming the option.

export function optString(values: CliValues, name: string): string | undefined {
  const v = values[name]
  if (v === undefined) return undefined
  if (typeof v !== 'string') throw new UsageError(`--${name} needs a value`)
  return v
}

/** "--a is required" or "--a, --b and --c are required", with what needs them ("for a threshold release"). */
export function missingOptionsText(names: readonly string[], forWhat?: string): string {
  const flags = names.map((n) => `--${n}`)
  const list = flags.length === 1 ? flags[0] : `${flags.slice(0, -1).join(', ')} and ${flags[flags.length - 1]}`
  return `${list} ${flags.length === 1 ? 'is' : 'are'} required${forWhat ? ` ${forWhat}` : ''}`
}

/** The options of `names` not given (or given empty). */
export function missingOptions(values: CliValues, names: readonly string[]): string[] {
  return names.filter((n) => values[n] === undefined || values[n] === '')
}

/** Throw one UsageError naming every option of `names` that is missing. */
export function requireOptions(values: CliValues, names: readonly string[], forWhat?: string): void {
  const missing = missingOptions(values, names)
  if (missing.length > 0) throw new UsageError(missingOptionsText(missing, forWhat))
}

export function reqString(values: CliValues, name: string): string {
  const v = optString(values, name)
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`)
  return v
}

export interface NumberRule {
  /** strictly greater than */
  gt?: number
  /** greater or equal */
  ge?: number
  /** strictly less than */
  lt?: number
  /** less or equal */
  le?: number
  integer?: boolean
}

function describeRule(rule: NumberRule): string {
  const parts: string[] = []
  if (rule.integer) parts.push('a whole number')
  else parts.push('a finite number')
  if (rule.gt !== undefined) parts.push(`> ${rule.gt}`)
  if (rule.ge !== undefined) parts.push(`>= ${rule.ge}`)
  if (rule.lt !== undefined) parts.push(`< ${rule.lt}`)
  if (rule.le !== undefined) parts.push(`<= ${rule.le}`)
  return parts.join(' ')
}

export function parseNumber(name: string, raw: string, rule: NumberRule = {}): number {
  const trimmed = raw.trim()
  const x = trimmed === '' ? NaN : Number(trimmed)
  const ok = inRange(x, rule)
  if (!ok) throw new UsageError(`--${name} must be ${describeRule(rule)} (got "${raw}")`)
  return x
}

export function optNumber(values: CliValues, name: string, fallback: number, rule: NumberRule = {}): number {
  const raw = optString(values, name)
  return raw === undefined ? fallback : parseNumber(name, raw, rule)
}

export function reqNumber(values: CliValues, name: string, rule: NumberRule = {}): number {
  return parseNumber(name, reqString(values, name), rule)
}

/** A comma-separated list of numbers, each obeying `rule`. */
export function parseNumberList(name: string, raw: string, rule: NumberRule = {}): number[] {
  const parts = raw.split(',')
  if (parts.length === 0 || parts.some((p) => p.trim() === ''))
    throw new UsageError(`--${name} must be a comma-separated list of numbers (got "${raw}")`)
  return parts.map((p) => parseNumber(name, p, rule))
}

export function choice<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')} (got "${raw}")`)
  return raw as T
}

/** Format a number for human-readable output without noise digits. */
export function fmt(x: number, digits = 4): string {
  if (!Number.isFinite(x)) return String(x)
  return Number(x.toPrecision(digits)).toString()
}
