/**
 * The layer-boundary rule of eslint.config.mjs (`layers/imports`), checked with ESLint's Linter on code written for
 * the purpose: each layer's options are read from the real config for a file of that layer, so a boundary dropped
 * from the config or a rule that stops reporting fails here.
 */
import { describe, expect, it } from 'vitest'
import path from 'node:path'
import { ESLint, Linter } from 'eslint'
import tseslint from 'typescript-eslint'

const ROOT = path.resolve(__dirname, '../..')
const eslint = new ESLint({ cwd: ROOT })

/** The boundary rule and its options as the project's config gives them for `file` (relative to the root). */
async function boundaryFor(file: string): Promise<{ rule: unknown; setting: unknown }> {
  const config = await eslint.calculateConfigForFile(path.join(ROOT, file))
  return { rule: config.plugins?.layers?.rules?.imports, setting: config.rules?.['layers/imports'] }
}

/** Messages of the boundary rule for `code` placed at `file`. */
async function boundaryMessages(file: string, code: string): Promise<string[]> {
  const { rule, setting } = await boundaryFor(file)
  expect(rule, `the config gives ${file} no boundary rule`).toBeTruthy()
  const linter = new Linter({ configType: 'flat', cwd: ROOT })
  const config = {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser as Linter.Parser, ecmaVersion: 2022 as const, sourceType: 'module' as const },
    plugins: { layers: { rules: { imports: rule } } },
    rules: { 'layers/imports': setting }
  } as Linter.Config
  const messages = linter.verify(code, config, { filename: path.join(ROOT, file) })
  for (const m of messages) expect(m.ruleId, `not a boundary finding: ${m.message}`).toBe('layers/imports')
  return messages.map((m) => m.message)
}

describe('layer boundaries (eslint.config.mjs, layers/imports)', () => {
  it('the engine imports only itself (no package: its generators are its own copies)', async () => {
    const file = 'src-worker/engine/search/probe.ts'
    expect(await boundaryMessages(file, "import { seededRng } from '../random'\nexport { seededRng }\n")).toEqual([])
    expect(await boundaryMessages(file, "import seedrandom from 'seedrandom'\nexport { seedrandom }\n")).toHaveLength(1)
    const out = await boundaryMessages(file, "import { UserError } from '../../../src-main/services/errors'\nexport { UserError }\n")
    expect(out).toHaveLength(1)
    expect(out[0]).toContain('engine')
    expect(out[0]).toContain('src-main/services/errors')
    expect(await boundaryMessages(file, "import { readFileSync } from 'node:fs'\nexport { readFileSync }\n")).toHaveLength(1)
    expect(await boundaryMessages(file, "export * from '../../tasks/types'\n")).toHaveLength(1)
    expect(await boundaryMessages(file, "export const load = () => import('../../worker')\n")).toHaveLength(1)
  })

  it('the CLI uses the services only through their public surfaces', async () => {
    const file = 'src-main/cli/commands/probe.ts'
    const allowed = [
      "import { createServices } from '../../services'",
      "import { openWorkspaceStore } from '../../services/local'",
      "import { formatEpsilon } from '../../contract/format-epsilon'",
      "import { UsageError } from '../command'"
    ]
    expect(await boundaryMessages(file, allowed.join('\n') + '\n')).toEqual([])
    const internal = await boundaryMessages(
      file,
      "import type { Store } from '../../services/store/store'\nimport { verifyLedger } from '../../services/ledger/verify'\n"
    )
    expect(internal).toHaveLength(2)
    expect(internal[1]).toContain('src-main/services/ledger/verify')
  })

  it('the HTTP server and the Electron shell may not use the local surface or internals', async () => {
    expect(await boundaryMessages('src-main/server.ts', "import { createServices } from './services'\n")).toEqual([])
    expect(await boundaryMessages('src-main/server.ts', "import { openWorkspaceStore } from './services/local'\n")).toHaveLength(1)
    expect(await boundaryMessages('src-main/electron/main.ts', "import { FileHandles } from '../services/app/file-handles'\n")).toHaveLength(1)
  })

  it('the renderer imports only the contract and its own files, and no Node built-in', async () => {
    const file = 'src-renderer/src/screens/Probe.tsx'
    expect(
      await boundaryMessages(
        file,
        "import type { Methods } from '../../../src-main/contract'\nimport { api } from '../api/client'\nexport { api }\nexport type M = Methods\n"
      )
    ).toEqual([])
    expect(await boundaryMessages(file, "import { createServices } from '../../../src-main/services'\nexport { createServices }\n")).toHaveLength(1)
    expect(await boundaryMessages(file, "import { readFileSync } from 'fs'\nexport { readFileSync }\n")).toHaveLength(1)
  })
})
