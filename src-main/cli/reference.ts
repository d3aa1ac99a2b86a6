/**
 * The command reference of docs/cli.md, written from the commands' own specs (name, summary, usage, sub-commands,
 * options, help notes): what `--help` prints, as Markdown. The page keeps its hand-written conventions outside the
 * generated block; `npm run docs:cli` rewrites the block and test/unit/cli-reference.test.ts fails while it differs.
 */
import type { CliCommand } from './command'

export const REFERENCE_BEGIN =
  '<!-- BEGIN GENERATED COMMAND REFERENCE: written from the option specs in src-main/cli/commands by `npm run docs:cli`; do not edit by hand -->'
export const REFERENCE_END = '<!-- END GENERATED COMMAND REFERENCE -->'

/** The options every command takes, as `--help` lists them after the command's own. */
const GLOBAL_OPTIONS: ReadonlyArray<[string, string]> = [
  ['json', 'print exactly one JSON object on stdout'],
  ['help', 'this help']
]

/** Text for a Markdown table cell or paragraph: characters Markdown would read as markup are escaped. */
function mdText(text: string): string {
  return text.replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`)
}

/** Inline code that may itself hold backticks. */
function mdCode(text: string): string {
  const fence = text.includes('`') ? '``' : '`'
  return `${fence}${fence.length > 1 ? ' ' : ''}${text}${fence.length > 1 ? ' ' : ''}${fence}`
}

/**
 * The generated block: a table of the commands, then one section per command. `projectRoot` (an absolute path that
 * help notes may name) is written relative to the repository, so the page does not depend on where it was generated.
 */
export function cliReference(commands: readonly CliCommand[], projectRoot: string, prog = 'quiet-alarm'): string {
  const local = (text: string) => text.split(projectRoot + '/').join('')
  const out: string[] = [REFERENCE_BEGIN, '', '## Commands', '', '| command | what it does |', '| --- | --- |']
  for (const c of commands) out.push(`| [${c.name}](#${c.name}) | ${mdText(c.summary)} |`)
  for (const c of commands) {
    out.push('', `### ${c.name}`, '', mdText(c.summary) + '.', '', '```', `${prog} ${c.usage}`, '```')
    if (c.subcommands?.length) out.push('', `Sub-commands: ${c.subcommands.map((s) => mdCode(s)).join(', ')}.`)
    out.push('', '| option | what it sets | default |', '| --- | --- | --- |')
    for (const [name, o] of Object.entries(c.options)) {
      const flag = o.type === 'boolean' ? `--${name}` : `--${name} VALUE`
      out.push(`| ${mdCode(flag)} | ${mdText(local(o.description))} | ${o.defaultText === undefined ? '' : mdText(local(o.defaultText))} |`)
    }
    for (const [name, description] of GLOBAL_OPTIONS) out.push(`| ${mdCode(`--${name}`)} | ${mdText(description)} | |`)
    for (const [sub, notes] of Object.entries(c.helpNotes ?? {})) {
      out.push('', `Notes (${mdCode(`${prog} ${c.name}${sub ? ` ${sub}` : ''} --help`)}):`, '', '```text', local(notes), '```')
    }
  }
  out.push('', REFERENCE_END)
  return out.join('\n')
}

/** `page` with its generated block replaced by `block` (appended when the page has none yet). */
export function withCliReference(page: string, block: string): string {
  const begin = page.indexOf(REFERENCE_BEGIN)
  const end = page.indexOf(REFERENCE_END)
  if (begin < 0 || end < begin) return page.replace(/\n*$/, '\n\n') + block + '\n'
  return page.slice(0, begin) + block + page.slice(end + REFERENCE_END.length)
}
