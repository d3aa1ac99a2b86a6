/**
 * ESLint (flat config): typescript-eslint's recommended rules, React's hook rules for the renderer, and the layer
 * boundaries of ARCHITECTURE.md kept by a rule instead of by discipline:
 *
 *   renderer -> contract <- services -> worker -> engine        (the engine imports nothing outside itself)
 *   services: platform -> store -> chain -> trust -> accounts -> catalog -> sources -> ledger -> datasets -> releases
 *             -> experiments -> reports -> app                 (each folder imports only itself and folders to its left)
 *   HTTP server, Electron shell -> the doors' shared code (src-main/door) -> the services' public surface only
 *                                   (src-main/services/index.ts, app/door-guard.ts)
 *   CLI -> that surface, plus src-main/services/local.ts (what a door that opens the workspace file itself may call)
 *   service client (src-main/client: a Node client of a remote service) -> the contract only; the CLI and the shell use it
 *
 * The boundary rule (`layers/imports`) resolves every relative import (static, `export ... from`, dynamic `import()`)
 * to a path in the repository and checks it against the importing layer's allow-list; package imports are checked
 * against the layer's package allow-list (the engine may use none; the renderer and contract no Node
 * built-ins). It is a rule of our own because `no-restricted-imports` patterns match the written
 * specifier, and a relative specifier says nothing about where it lands. test/unit/lint-boundaries.test.ts checks it
 * against this config (a forbidden import is reported, an allowed one is not). Tests are not bounded.
 */
import path from 'node:path'
import { builtinModules } from 'node:module'
import { fileURLToPath } from 'node:url'
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'

const ROOT = path.dirname(fileURLToPath(import.meta.url))

const NODE_BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)])

/** `a/b/c.ts` -> the module it names, without extension; a folder import also names its index. */
function moduleCandidates(absolute) {
  const rel = path.relative(ROOT, absolute).split(path.sep).join('/')
  const bare = rel.replace(/\.(?:d\.ts|tsx?|mjs|cjs|js)$/, '')
  return [bare, `${bare}/index`]
}

/** An allow-list entry ending in "/" allows a folder (and everything under it); any other entry one module. */
function allowed(candidates, allow) {
  return candidates.some((c) => allow.some((a) => (a.endsWith('/') ? c.startsWith(a) : c === a)))
}

function packageName(spec) {
  if (NODE_BUILTINS.has(spec) || spec.startsWith('node:')) return spec
  const parts = spec.split('/')
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

const layerImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps each layer to the modules and packages its allow-list names (ARCHITECTURE.md).' },
    schema: [
      {
        type: 'object',
        properties: {
          layer: { type: 'string' },
          allow: { type: 'array', items: { type: 'string' } },
          packages: { anyOf: [{ const: 'any' }, { const: 'no-node' }, { type: 'array', items: { type: 'string' } }] }
        },
        required: ['layer', 'allow'],
        additionalProperties: false
      }
    ],
    messages: {
      module: 'The {{layer}} may not import "{{spec}}" ({{target}}): it may import only {{allow}}.',
      package: 'The {{layer}} may not import the package "{{spec}}"{{why}}.'
    }
  },
  create(context) {
    const { layer, allow, packages = 'any' } = context.options[0]
    const dir = path.dirname(context.filename)
    function check(node, source) {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return
      const spec = source.value
      if (spec.startsWith('.')) {
        const candidates = moduleCandidates(path.resolve(dir, spec))
        if (!allowed(candidates, allow)) {
          context.report({ node: source, messageId: 'module', data: { layer, spec, target: candidates[0], allow: allow.join(', ') } })
        }
        return
      }
      const name = packageName(spec)
      const builtin = NODE_BUILTINS.has(name)
      if (packages === 'any') return
      if (packages === 'no-node') {
        if (builtin || name === 'electron')
          context.report({ node: source, messageId: 'package', data: { layer, spec, why: ' (it runs without Node)' } })
        return
      }
      if (!packages.includes(name)) {
        context.report({ node: source, messageId: 'package', data: { layer, spec, why: `: only ${packages.join(', ') || 'none'}` } })
      }
    }
    return {
      ImportDeclaration: (n) => check(n, n.source),
      ExportNamedDeclaration: (n) => check(n, n.source),
      ExportAllDeclaration: (n) => check(n, n.source),
      ImportExpression: (n) => check(n, n.source),
      TSImportEqualsDeclaration: (n) => n.moduleReference.type === 'TSExternalModuleReference' && check(n, n.moduleReference.expression)
    }
  }
}

const CONTRACT = ['src-main/contract', 'src-main/contract/']
/** The services' public surface: the composition root (createServices and what the doors need) and the door guard.
 * The CLI also gets services/local.ts: it works on a workspace file in-process, without the worker pool. */
const SERVICES_PUBLIC = ['src-main/services/index', 'src-main/services/app/door-guard']

/**
 * The services' layers, lowest first (issue 24): platform (errors, events, clock, jobs, pool, handler types) -> store
 * (SQLite, migrations) -> chain (canonical JSON, hash-chained ledger and audit log) -> trust (officers, signatures,
 * checkpoints and every signed fact: budgets in force, public flag, privacy unit, links, sealing) -> accounts (accounts,
 * roles, credentials) -> catalog (plain reads of datasets and columns) -> sources (the read path of every engine) ->
 * ledger (accounts per notion, admission, views, verify) -> datasets (import, link, declare public, query definitions)
 * -> releases -> experiments -> reports -> app.
 */
const SERVICE_LAYERS = [
  'platform',
  'store',
  'chain',
  'trust',
  'accounts',
  'catalog',
  'sources',
  'ledger',
  'datasets',
  'releases',
  'experiments',
  'reports',
  'alarms',
  'webhooks',
  'watch',
  'app'
]

const boundary = (files, options) => ({ files, rules: { 'layers/imports': ['error', options] } })

export default tseslint.config(
  {
    ignores: ['out/**', 'node_modules/**', 'dist/**', 'test-results/**', 'test/fixtures/**', 'resources/**/*.csv', '**/*.d.ts.map']
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node }
    },
    plugins: { layers: { rules: { imports: layerImports } } },
    rules: {
      // Typed code says `unknown` where it does not know; the few `any` left are at untyped seams (worker payloads,
      // JSON from files) and are reviewed there, so a warning would only be noise.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'prefer-const': 'error'
    }
  },
  {
    // Type-aware rules (lint takes about 20 s here instead of 10): a promise nobody awaits or catches is a silent failure.
    files: ['src-main/**/*.ts', 'src-worker/**/*.ts', 'src-renderer/**/*.{ts,tsx}', 'test/**/*.ts', '*.config.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: ROOT } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Handlers passed where a void return is expected (onClick={async () => ...}, createServer(async ...)) catch their own
      // errors here; what stays checked is a promise used as a condition or spread.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }]
    }
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error'
    }
  },
  {
    // Tests match the CLI's column-aligned text literally: two spaces in a pattern are the alignment, not a typo.
    files: ['test/**/*.ts'],
    rules: { 'no-regex-spaces': 'off' }
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' }
  },

  // ---- Layer boundaries (ARCHITECTURE.md: dependencies point one way) ----
  boundary(['src-worker/engine/**/*.ts'], {
    layer: 'engine (src-worker/engine)',
    allow: ['src-worker/engine/'],
    packages: []
  }),
  {
    ...boundary(['src-worker/**/*.ts'], { layer: 'worker (src-worker)', allow: ['src-worker/'], packages: 'any' }),
    ignores: ['src-worker/engine/**']
  },
  boundary(['src-main/contract.ts', 'src-main/contract/**/*.ts'], {
    layer: 'contract (src-main/contract)',
    allow: CONTRACT,
    packages: ['zod']
  }),
  boundary(['src-renderer/**/*.{ts,tsx}'], {
    layer: 'renderer (src-renderer)',
    allow: ['src-renderer/', ...CONTRACT],
    packages: 'no-node'
  }),
  // The services' folders, lowest first: each may import its own folder and those before it (never a later one), so
  // the trust rules (chain/, trust/) cannot come to depend on what they judge. services/index.ts and services/local.ts
  // compose them all.
  ...SERVICE_LAYERS.map((folder, i) =>
    boundary([`src-main/services/${folder}/**/*.ts`], {
      layer: `services layer ${folder}/ (src-main/services/${folder})`,
      allow: [...SERVICE_LAYERS.slice(0, i + 1).map((f) => `src-main/services/${f}/`), ...CONTRACT, 'src-worker/'],
      packages: 'any'
    })
  ),
  boundary(['src-main/services/*.ts'], {
    layer: 'services composition root (src-main/services/*.ts)',
    allow: ['src-main/services/', ...CONTRACT, 'src-worker/'],
    packages: 'any'
  }),
  boundary(['src-main/door/**/*.ts'], {
    layer: 'doors (src-main/door)',
    allow: ['src-main/door/', ...CONTRACT, ...SERVICES_PUBLIC],
    packages: 'any'
  }),
  boundary(['src-main/server.ts'], {
    layer: 'HTTP server (src-main/server.ts)',
    allow: ['src-main/door/', ...CONTRACT, ...SERVICES_PUBLIC],
    packages: 'any'
  }),
  boundary(['src-main/client/**/*.ts'], {
    layer: 'service client (src-main/client)',
    allow: ['src-main/client/', ...CONTRACT],
    packages: 'any'
  }),
  boundary(['src-main/electron/**/*.ts'], {
    layer: 'Electron shell (src-main/electron)',
    allow: ['src-main/electron/', 'src-main/door/', ...CONTRACT, ...SERVICES_PUBLIC, 'src-main/client/'],
    packages: 'any'
  }),
  boundary(['src-main/cli.ts', 'src-main/cli/**/*.ts'], {
    layer: 'CLI (src-main/cli)',
    // `serve` starts the HTTP door (src-main/door/headless, with the service's flags: door/serve-flags).
    allow: [
      'src-main/cli',
      'src-main/cli/',
      ...CONTRACT,
      ...SERVICES_PUBLIC,
      'src-main/services/local',
      'src-main/door/headless',
      'src-main/door/serve-flags',
      'src-worker/engine/',
      'src-main/client/'
    ],
    packages: 'any'
  })
)
