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
    const out = await boundaryMessages(file, "import { UserError } from '../../../src-main/services/platform/errors'\nexport { UserError }\n")
    expect(out).toHaveLength(1)
    expect(out[0]).toContain('engine')
    expect(out[0]).toContain('src-main/services/platform/errors')
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
    expect(await boundaryMessages('src-main/electron/main.ts', "import { FileHandles } from '../services/platform/file-handles'\n")).toHaveLength(1)
  })

  it("the doors' shared code (src-main/door) uses the services' public surface only, and the shell and server may use it", async () => {
    expect(
      await boundaryMessages('src-main/door/probe.ts', "import { createServices } from '../services'\nimport { send } from './http-io'\n")
    ).toEqual([])
    expect(await boundaryMessages('src-main/door/probe.ts', "import { runRelease } from '../services/local'\n")).toHaveLength(1)
    expect(await boundaryMessages('src-main/door/probe.ts', "import { main } from '../electron/main'\n")).toHaveLength(1)
    expect(await boundaryMessages('src-main/electron/main.ts', "import { callDoor } from '../door/calls'\n")).toEqual([])
    expect(await boundaryMessages('src-main/server.ts', "import { startHeadless } from './door/headless'\n")).toEqual([])
    expect(await boundaryMessages('src-main/cli/commands/probe.ts', "import { startHeadless } from '../../door/headless'\n")).toEqual([])
    expect(await boundaryMessages('src-main/cli/commands/probe.ts', "import { callDoor } from '../../door/calls'\n")).toHaveLength(1)
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

  it('each services folder imports only itself and the folders below it (platform -> store -> chain -> trust -> ... -> app)', async () => {
    // Allowed: the same folder and lower ones.
    const allowed: Array<[string, string]> = [
      [
        'src-main/services/chain/probe.ts',
        "import { UserError } from '../platform/errors'\nimport { openStore } from '../store/store'\nimport { canonicalJson } from './canonical'\n"
      ],
      ['src-main/services/trust/probe.ts', "import { appendEntry } from '../chain/ledger-chain'\nimport { verifyText } from './officer-crypto'\n"],
      [
        'src-main/services/sources/probe.ts',
        "import { getDataset } from '../catalog/catalog'\nimport { linkSignedByOfficer } from '../trust/link-signature'\n"
      ],
      [
        'src-main/services/ledger/probe.ts',
        "import { unitDeclaration } from '../trust/privacy-unit'\nimport { sourceFor } from '../sources/source'\n"
      ],
      [
        'src-main/services/reports/probe.ts',
        "import { listReleases } from '../releases/release-service'\nimport type { Methods } from '../../contract'\n"
      ],
      ['src-main/services/index.ts', "import { appHandlers } from './app/app-handlers'\nimport { openStore } from './store/store'\n"]
    ]
    for (const [file, code] of allowed) expect(await boundaryMessages(file, code + 'export {}\n'), file).toEqual([])
    // Forbidden: any import of a later folder, static, re-exported or dynamic.
    const forbidden: Array<[string, string, string]> = [
      ['src-main/services/platform/probe.ts', "import type { Store } from '../store/store'\n", 'src-main/services/store/store'],
      ['src-main/services/store/probe.ts', "import { dropOrphanStagingTables } from '../datasets/staging'\n", 'src-main/services/datasets/staging'],
      [
        'src-main/services/store/migrations/099-probe.ts',
        "import { auditHash } from '../../chain/audit-chain'\n",
        'src-main/services/chain/audit-chain'
      ],
      ['src-main/services/chain/probe.ts', "export { verifiedOfficerRows } from '../trust/officers'\n", 'src-main/services/trust/officers'],
      ['src-main/services/trust/probe.ts', "import { admission } from '../ledger/admission'\n", 'src-main/services/ledger/admission'],
      ['src-main/services/trust/probe.ts', "import { getDataset } from '../catalog/catalog'\n", 'src-main/services/catalog/catalog'],
      ['src-main/services/catalog/probe.ts', "import { sourceFor } from '../sources/source'\n", 'src-main/services/sources/source'],
      [
        'src-main/services/sources/probe.ts',
        "export const load = () => import('../datasets/query-definitions')\n",
        'src-main/services/datasets/query-definitions'
      ],
      [
        'src-main/services/ledger/probe.ts',
        "import { runRelease } from '../releases/release-service'\n",
        'src-main/services/releases/release-service'
      ],
      ['src-main/services/releases/probe.ts', "import { produceReport } from '../reports/build-report'\n", 'src-main/services/reports/build-report']
    ]
    for (const [file, code, target] of forbidden) {
      const out = await boundaryMessages(file, code + 'export {}\n')
      expect(out, `${file}: ${code}`).toHaveLength(1)
      expect(out[0]).toContain(target)
      expect(out[0]).toContain(`services layer ${file.split('/')[2]}/`)
    }
  })
})
