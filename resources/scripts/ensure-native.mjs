#!/usr/bin/env node
// Makes sure better-sqlite3's native module exists for the runtime about to start, rebuilding only on ABI mismatch.
//
//   node resources/scripts/ensure-native.mjs electron   (run by `npm start` and `npm run dev`)
//   node resources/scripts/ensure-native.mjs node       (checks Node's build; `npm rebuild better-sqlite3` repairs it)
//
// Node's build stays where npm put it (node_modules/better-sqlite3/build/Release). Electron's build goes to
// node_modules/.quiet-alarm-native/electron-<abi>/better_sqlite3.node and is picked at run time by the store
// (src-main/services/store/native-binding.ts), so switching between `npm test` and `npm start` never rebuilds anything.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, copyFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const require = createRequire(join(root, 'package.json'))
const target = process.argv[2] ?? 'node'

function fail(msg) {
  process.stderr.write(`ensure-native: ${msg}\n`)
  process.exit(1)
}

if (target === 'node') {
  try {
    const Database = require('better-sqlite3')
    new Database(':memory:').close()
    process.stdout.write(`ensure-native: better-sqlite3 loads in Node ${process.version} (ABI ${process.versions.modules})\n`)
  } catch (e) {
    fail(`better-sqlite3 does not load in Node (${e.message.split('\n')[0]}). Repair it with: npm rebuild better-sqlite3`)
  }
  process.exit(0)
}

if (target !== 'electron') fail(`unknown target "${target}" (use node or electron)`)

const noBinary =
  "Electron's binary is not installed (it was skipped, e.g. ELECTRON_SKIP_BINARY_DOWNLOAD=1, or could not be downloaded). " +
  'Install it with `node node_modules/electron/install.js` on a machine with internet access, or run the app headless: npm run serve'
try {
  require.resolve('electron/package.json')
} catch {
  fail('the electron package is not installed (npm ci).')
}
let electronPath
try {
  // The package's index throws when its binary was never downloaded (no path.txt).
  electronPath = require('electron')
} catch {
  fail(noBinary)
}
if (typeof electronPath !== 'string' || !existsSync(electronPath)) fail(noBinary)
const probe = spawnSync(electronPath, ['-p', 'process.versions.modules + " " + process.versions.electron'], {
  env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  encoding: 'utf8'
})
if (probe.status !== 0) fail(`could not run Electron to read its ABI: ${probe.stderr || probe.error}`)
const [abi, electronVersion] = probe.stdout.trim().split(' ')
const dest = join(root, 'node_modules', '.quiet-alarm-native', `electron-${abi}`, 'better_sqlite3.node')
if (existsSync(dest)) {
  process.stdout.write(`ensure-native: Electron ${electronVersion} (ABI ${abi}) build present\n`)
  process.exit(0)
}

process.stdout.write(`ensure-native: building better-sqlite3 for Electron ${electronVersion} (ABI ${abi}); once, about a minute...\n`)
const src = dirname(require.resolve('better-sqlite3/package.json'))
const work = mkdtempSync(join(tmpdir(), 'qa-native-'))
try {
  cpSync(src, work, { recursive: true, filter: (p) => !p.includes(`${join(src, 'build')}`) })
  const gyp = process.env.npm_config_node_gyp
  const [cmd, args] = gyp ? [process.execPath, [gyp]] : ['npx', ['--yes', 'node-gyp']]
  const r = spawnSync(
    cmd,
    [
      ...args,
      'rebuild',
      '--release',
      `--target=${electronVersion}`,
      `--arch=${process.arch}`,
      '--runtime=electron',
      '--dist-url=https://electronjs.org/headers'
    ],
    { cwd: work, stdio: 'inherit' }
  )
  if (r.status !== 0) fail('the Electron build of better-sqlite3 failed (see above). It needs a C++ toolchain and Electron headers.')
  mkdirSync(dirname(dest), { recursive: true })
  copyFileSync(join(work, 'build', 'Release', 'better_sqlite3.node'), dest)
  process.stdout.write(`ensure-native: wrote ${dest}\n`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
