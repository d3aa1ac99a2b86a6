/**
 * docs/cli.md's command reference is what the commands' option specs generate now: a command, option, default or help
 * note that changes without `npm run docs:cli` fails here. The generator is checked on a changed spec too.
 */
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { commands } from '../../src-main/cli/commands'
import { REFERENCE_BEGIN, REFERENCE_END, cliReference, withCliReference } from '../../src-main/cli/reference'

const ROOT = join(__dirname, '..', '..')
const page = () => readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')

describe('docs/cli.md', () => {
  it('holds the command reference the option specs generate (run "npm run docs:cli" after changing a command)', () => {
    const current = page()
    expect(current).toContain(REFERENCE_BEGIN)
    expect(current).toBe(withCliReference(current, cliReference(commands, ROOT)))
  })

  it('names every command and every option of each', () => {
    const current = page()
    for (const c of commands) {
      expect(current).toContain(`### ${c.name}\n`)
      for (const name of Object.keys(c.options)) expect(current, `${c.name} --${name}`).toContain(`--${name}`)
    }
  })

  it('does not depend on where it was generated', () => {
    expect(page()).not.toContain(ROOT)
  })
})

describe('the generator', () => {
  it('changes when an option changes, and keeps the hand-written text around its block', () => {
    const release = commands.find((c) => c.name === 'release')!
    const changed = { ...release, options: { ...release.options, beta: { ...release.options.beta, description: 'another meaning' } } }
    const a = cliReference([release], ROOT)
    const b = cliReference([changed], ROOT)
    expect(b).not.toBe(a)
    expect(b).toContain('another meaning')
    const doc = `# Title\n\nBefore.\n\n${a}\n\nAfter.\n`
    expect(withCliReference(doc, b)).toBe(`# Title\n\nBefore.\n\n${b}\n\nAfter.\n`)
    expect(withCliReference('# Title\n', b)).toBe(`# Title\n\n${b}\n`)
    expect(b.endsWith(REFERENCE_END)).toBe(true)
  })

  it('escapes Markdown in descriptions', () => {
    const status = commands.find((c) => c.name === 'status')!
    const odd = { ...status, options: { x: { type: 'string' as const, description: 'a|b <tmp> *c* [d](e)' } } }
    expect(cliReference([odd], ROOT)).toContain('| a\\|b \\<tmp\\> \\*c\\* \\[d\\](e) |')
  })
})
