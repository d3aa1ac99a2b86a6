/**
 * The officer's passphrase on the command line: `--passphrase-file F` (its first line), else the environment
 * variable QUIET_ALARM_PASSPHRASE, else a prompt on the terminal (not echoed). Never a command-line value (it would be
 * visible to every user in the process list). Missing: one sentence, exit 2, nothing written.
 */
import { readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { type CliContext, type CliOptionSpec, type CliValues, UsageError, optString } from './command'

export const PASSPHRASE_ENV = 'QUIET_ALARM_PASSPHRASE'

export const OFFICER_OPTIONS: Record<string, CliOptionSpec> = {
  officer: { type: 'string', description: 'the registered officer who acts (name or key id)', defaultText: 'the only registered officer' },
  'passphrase-file': {
    type: 'string',
    description: `a file whose first line is the officer's passphrase`,
    defaultText: `$${PASSPHRASE_ENV}, else a prompt`
  }
}

function fromFile(path: string, option: string): string {
  let text: string
  try {
    if (statSync(path).size > 4096) throw new UsageError(`--${option}: ${path} is not a passphrase file (larger than 4 KiB)`)
    text = readFileSync(path, 'utf8')
  } catch (e) {
    if (e instanceof UsageError) throw e
    throw new UsageError(`--${option}: cannot read ${path}`)
  }
  const line = text.split(/\r?\n/)[0]
  if (line === '') throw new UsageError(`--${option}: the first line of ${path} is empty`)
  return line
}

/** Read a line from the terminal without echoing it. */
export function prompt(question: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const stdin = process.stdin
    process.stderr.write(question)
    let buf = ''
    const wasRaw = stdin.isRaw
    stdin.setRawMode(true)
    stdin.resume()
    stdin.setEncoding('utf8')
    const done = (err?: Error) => {
      stdin.setRawMode(wasRaw)
      stdin.pause()
      stdin.removeListener('data', onData)
      process.stderr.write('\n')
      if (err) reject(err)
      else resolvePromise(buf)
    }
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done()
        if (ch === '\u0003') return done(new UsageError('cancelled at the passphrase prompt; nothing was written'))
        if (ch === '\u007f' || ch === '\b') buf = buf.slice(0, -1)
        else buf += ch
      }
    }
    stdin.on('data', onData)
  })
}

export interface PassphraseSource {
  /** The option naming the file (default passphrase-file). */
  fileOption?: string
  /** The environment variable (default QUIET_ALARM_PASSPHRASE). */
  envVar?: string
  /** Shown at the prompt. */
  label: string
  /** Ask twice (a new passphrase). */
  confirm?: boolean
}

export async function readPassphrase(values: CliValues, ctx: Pick<CliContext, 'cwd'>, src: PassphraseSource): Promise<string> {
  const fileOption = src.fileOption ?? 'passphrase-file'
  const envVar = src.envVar ?? PASSPHRASE_ENV
  const file = optString(values, fileOption)
  if (file !== undefined) return fromFile(resolve(ctx.cwd, file), fileOption)
  const env = process.env[envVar]
  if (env !== undefined && env !== '') return env
  if (process.stdin.isTTY && process.stderr.isTTY) {
    const p = await prompt(`${src.label}: `)
    if (p === '') throw new UsageError('No passphrase was given; nothing was written')
    if (src.confirm && (await prompt(`${src.label} (again): `)) !== p) throw new UsageError('The two passphrases differ; nothing was written')
    return p
  }
  const what = src.label.charAt(0).toLowerCase() + src.label.slice(1)
  throw new UsageError(
    `This is an officer act: give ${what} with --${fileOption} F or the environment variable ${envVar} (or run it in a terminal to be asked); nothing was written`
  )
}
