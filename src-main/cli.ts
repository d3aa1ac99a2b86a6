#!/usr/bin/env node
/**
 * `quiet-alarm <command> [options]`: the command line door to the same services and engine.
 * Exit codes: 0 success, 1 an unexpected failure, 2 bad input (one line on stderr, nothing written),
 * 3 a check that ran and failed (the result is printed, e.g. `ledger verify` on a tampered ledger).
 */
import { parseArgs } from 'node:util'
import { commands } from './cli/commands'
import { type CliCommand, type CliContext, UsageError, missingOptionsText, missingOptions } from './cli/command'
import { didYouMean } from './cli/suggest'
import { environmentFailure, isUserError } from './services'

const PROG = 'quiet-alarm'

function globalHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  return [
    `${PROG}: privacy-preserving alarms over local data (threshold queries, anomaly identification, anomaly search).`,
    '',
    `Usage: ${PROG} <command> [options]     (${PROG} <command> --help for its options)`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Every command takes --json (print exactly one JSON object on stdout).',
    'Exit codes: 0 success, 1 unexpected failure, 2 bad input (one line on stderr, nothing written),',
    '            3 a check that ran and failed (e.g. "ledger verify" found tampering; the result is printed).'
  ].join('\n')
}

function commandHelp(cmd: CliCommand, sub: string | undefined): string {
  const names = Object.keys(cmd.options)
  const width = Math.max(6, ...names.map((n) => n.length + 2))
  const lines = [`${PROG} ${cmd.usage}`, '', cmd.summary, '', 'Options:']
  for (const n of names) {
    const o = cmd.options[n]
    lines.push(`  --${n.padEnd(width)} ${o.description}${o.defaultText !== undefined ? ` (default: ${o.defaultText})` : ''}`)
  }
  lines.push(`  --${'json'.padEnd(width)} print exactly one JSON object on stdout`)
  lines.push(`  --${'help'.padEnd(width)} this help`)
  const notes = cmd.helpNotes?.[sub ?? '']
  if (notes) lines.push('', notes)
  return lines.join('\n')
}

const GLOBAL_OPTIONS = ['json', 'help']

/**
 * Options the command does not know, found before parsing so that a typo gets a suggestion ("--bta": did you mean
 * "--beta"?). Everything after "--" is positional.
 */
function checkOptionNames(cmd: CliCommand, args: string[]): void {
  const known = [...Object.keys(cmd.options), ...GLOBAL_OPTIONS]
  for (const arg of args) {
    if (arg === '--') return
    if (!arg.startsWith('--')) continue
    const name = arg.slice(2).split('=')[0]
    if (!known.includes(name)) {
      const hint = didYouMean(name, known, (s) => `--${s}`)
      throw new UsageError(`"${cmd.name}" has no option --${name}${hint || `; run "${PROG} ${cmd.name} --help" for its options`}`)
    }
  }
}

function parseFailure(e: unknown): UsageError {
  const msg = e instanceof Error ? e.message : String(e)
  // node's parseArgs messages are long; keep the first sentence.
  return new UsageError(msg.split('. ')[0].replace(/\.$/, ''))
}

export async function main(argv: string[], io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() }): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(globalHelp() + '\n')
    return 0
  }
  if (name === '--version') {
    io.stdout.write('0.1.0\n')
    return 0
  }
  const cmd = commands.find((c) => c.name === name)
  const wantsJson = rest.includes('--json')
  try {
    if (!cmd) {
      const hint = didYouMean(
        name,
        commands.map((c) => c.name)
      )
      throw new UsageError(`unknown command "${name}"${hint || `; run "${PROG} --help" for the list`}`)
    }
    checkOptionNames(cmd, rest)
    let parsed
    try {
      parsed = parseArgs({
        args: rest,
        allowPositionals: true,
        strict: true,
        options: {
          ...Object.fromEntries(Object.entries(cmd.options).map(([k, o]) => [k, { type: o.type }])),
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' }
        }
      })
    } catch (e) {
      throw parseFailure(e)
    }
    if (parsed.positionals.length > 0 && !(cmd.subcommands ?? []).includes(parsed.positionals[0])) {
      const got = parsed.positionals[0]
      throw new UsageError(
        cmd.subcommands?.length
          ? `"${cmd.name}" takes one of: ${cmd.subcommands.join(', ')} (got "${got}")${didYouMean(got, cmd.subcommands)}`
          : `"${cmd.name}" takes no positional argument (got "${got}")`
      )
    }
    if (parsed.values.help) {
      io.stdout.write(commandHelp(cmd, parsed.positionals[0]) + '\n')
      return 0
    }
    const values = parsed.values as Record<string, string | boolean | undefined>
    const missing = missingOptions(values, cmd.required?.(values, parsed.positionals) ?? [])
    if (missing.length > 0) throw new UsageError(`${missingOptionsText(missing)}; see "${PROG} ${cmd.name} --help"`)
    const ctx: CliContext = {
      json: wantsJson,
      cwd: io.cwd,
      progress: (line) => {
        if (!wantsJson || process.env.QA_PROGRESS === '1') io.stderr.write(line + '\n')
      },
      print: (line) => io.stdout.write(line.replace(/\n?$/, '\n'))
    }
    const out = await cmd.run(values, parsed.positionals, ctx)
    if (!out.printed) io.stdout.write(wantsJson ? JSON.stringify(out.json) + '\n' : out.text.replace(/\n?$/, '\n'))
    if (out.stderrLine) io.stderr.write(`${PROG}: ${out.stderrLine.split('\n')[0]}\n`)
    return out.exitCode ?? 0
  } catch (caught) {
    // A full disk or a workspace locked by another process: one sentence, like bad input (nothing was written).
    const e = environmentFailure(caught) ?? caught
    if (isUserError(e)) {
      io.stderr.write(`${PROG}: ${e.message.split('\n')[0]}\n`)
      // A release charged but not answered wrote its charge: not "bad input, nothing written".
      return e.wroteSomething ? 1 : 2
    }
    const msg = e instanceof Error ? e.message : String(e)
    io.stderr.write(`${PROG}: unexpected failure: ${msg.split('\n')[0]}\n`)
    if (process.env.QA_DEBUG === '1' && e instanceof Error) io.stderr.write(String(e.stack) + '\n')
    return 1
  }
}

// Run when executed directly (built bundle or tsx), not when imported by tests or by the npx launcher (src-main/bin).
const invokedDirectly = (() => {
  const entry = process.argv[1] ?? ''
  return /cli\.(c?js|ts|mjs)$/.test(entry)
})()
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code
    },
    (e) => {
      process.stderr.write(`${PROG}: unexpected failure: ${String(e)}\n`)
      process.exitCode = 1
    }
  )
}
