/**
 * `npm run docs:cli`: rewrites the generated command reference of docs/cli.md from the commands' option specs
 * (src-main/cli/reference.ts); test/unit/cli-reference.test.ts fails until it is run after a command changes.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { commands } from '../../src-main/cli/commands'
import { cliReference, withCliReference } from '../../src-main/cli/reference'

const root = join(__dirname, '..', '..')
const page = join(root, 'docs', 'cli.md')
const before = readFileSync(page, 'utf8')
const after = withCliReference(before, cliReference(commands, root))
writeFileSync(page, after)
process.stdout.write(after === before ? 'docs/cli.md is current\n' : 'docs/cli.md rewritten\n')
