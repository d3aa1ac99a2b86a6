#!/usr/bin/env node
/**
 * Makes the migration fixtures: for a schema version N, test/fixtures/migrations/vN.sqlite is a small workspace with data
 * written by the app's own code at that version (its `demo`: imports, an officer where there were officers, budgets, a
 * public declaration, one release of each kind with its sealed costs, checkpoints; then a release the budget denies).
 * test/integration/store/migration-fixtures.test.ts migrates every fixture to the current version and verifies it.
 *
 *   npm run fixtures:migrations               the fixture of the current version, from this working tree (when missing)
 *   npm run fixtures:migrations -- --history  also every earlier version still missing, from the git history
 *   add --force to make a fixture again; name versions (e.g. `-- 19`) to make only those
 *
 * A fixture is made in a copy of the tree (the working tree, or the last commit of main's first-parent line at that
 * version), with the bundled occupancy sample cut to two hours so that the file stays small. A version that no commit
 * of that line ever ran (it arrived with the next one in the same commit) is made by the next version's tree with its
 * migration list cut at N; whatever of the demo that schema cannot hold fails and is left out (recorded in the
 * manifest). Fixtures are history: once checked in they are not made again.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const require = createRequire(join(root, 'package.json'))
const Database = require('better-sqlite3')
const outDir = join(root, 'test', 'fixtures', 'migrations')
const manifestPath = join(outDir, 'manifest.json')
const MIGRATIONS = 'src-main/services/store/migrations.ts'

const args = process.argv.slice(2)
const force = args.includes('--force')
const history = args.includes('--history')
const named = args.filter((a) => /^\d+$/.test(a)).map(Number)

const git = (...a) => execFileSync('git', a, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 }).trim()

/** The highest migration a migrations.ts text imports (1: the first one, which lives in that file). */
function versionOf(text) {
  const found = [...text.matchAll(/from '\.\/migrations\/(\d{3})-/g)].map((m) => Number(m[1]))
  return found.length ? Math.max(...found) : 1
}

const latest = versionOf(readFileSync(join(root, MIGRATIONS), 'utf8'))

/** For each version, the last commit of the first-parent line of HEAD whose migration list ends at it. */
function erasFromHistory() {
  const eras = new Map()
  for (const c of git('rev-list', '--first-parent', '--reverse', 'HEAD').split('\n')) {
    let text
    try {
      text = git('show', `${c}:${MIGRATIONS}`)
    } catch {
      continue
    }
    eras.set(versionOf(text), c)
  }
  return eras
}

/** A copy of a tree in a temporary folder, with the repository's node_modules and the small sample. */
function treeCopy(commit) {
  const dir = mkdtempSync(join(tmpdir(), 'qa-fixture-tree-'))
  if (commit) {
    execFileSync('bash', ['-c', `git archive ${commit} | tar -x -C '${dir}'`], { cwd: root, maxBuffer: 64 << 20 })
  } else {
    const files = git('ls-files', '-co', '--exclude-standard')
      .split('\n')
      .filter((f) => f && !f.startsWith('test/fixtures/migrations/') && existsSync(join(root, f)))
    for (const f of files) {
      mkdirSync(dirname(join(dir, f)), { recursive: true })
      cpSync(join(root, f), join(dir, f))
    }
  }
  symlinkSync(realpathSync(join(root, 'node_modules')), join(dir, 'node_modules'))
  const sampleDir = join(dir, 'resources', 'sample')
  if (existsSync(sampleDir)) {
    const sample = readFileSync(join(root, 'resources', 'sample', 'occupancy.csv'), 'utf8').split('\n')
    const cut = [sample[0], ...sample.filter((l) => /^2024-03-12T1[45]/.test(l))].join('\n') + '\n'
    writeFileSync(join(sampleDir, 'occupancy.csv'), cut)
  }
  return dir
}

/** Cut the tree's migration list after version `n` (a version no tree of its own ran). */
function cutMigrations(dir, n) {
  const file = join(dir, MIGRATIONS)
  const text = readFileSync(file, 'utf8')
  const marker = 'export const LATEST_SCHEMA_VERSION'
  if (!text.includes(marker)) throw new Error(`${MIGRATIONS} has no ${marker} line to cut before`)
  writeFileSync(file, text.replace(marker, `migrations.splice(${n})\n${marker}`))
}

function cli(dir, ...a) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', ...a], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' }
  })
  const text = `${r.stdout}${r.stderr}`
  return { status: r.status, text, last: text.trim().split('\n').filter(Boolean).pop() ?? '' }
}

function counts(db) {
  const has = (t) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) !== undefined
  const n = (t, where = '') => (has(t) ? db.prepare(`SELECT count(*) FROM ${t} ${where}`).pluck().get() : null)
  const cols = (t) => (has(t) ? db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t) : [])
  return {
    datasets: n('datasets'),
    queries: n('queries'),
    releases: n('releases'),
    releaseExPost: n('release_ex_post'),
    ledgerEntries: n('ledger_entries'),
    signedEntries: cols('ledger_entries').includes('signature') ? n('ledger_entries', 'WHERE signature IS NOT NULL') : null,
    checkpoints: n('ledger_checkpoints'),
    officers: n('officers'),
    auditEvents: n('audit_events'),
    denials: n('audit_events', "WHERE kind = 'release/denied'")
  }
}

function make(version, source) {
  process.stderr.write(`v${version}: from ${source.label} ...\n`)
  const dir = treeCopy(source.commit)
  const work = mkdtempSync(join(tmpdir(), 'qa-fixture-ws-'))
  const db = join(work, 'workspace.sqlite')
  try {
    if (source.cutAt !== undefined) cutMigrations(dir, source.cutAt)
    const demo = cli(dir, 'demo', '--db', db)
    const steps = { demo: demo.status === 0 ? 'ok' : `failed: ${demo.last}` }
    if (!existsSync(db)) {
      // A tree without a demo: the workspace as its own store opens it.
      writeFileSync(
        join(dir, 'open-workspace.ts'),
        `import { openStore } from './src-main/services/store/store'\nopenStore(${JSON.stringify(db)}).close()\n`
      )
      const open = spawnSync(process.execPath, ['--import', 'tsx', 'open-workspace.ts'], { cwd: dir, encoding: 'utf8' })
      if (!existsSync(db)) throw new Error(`v${version}: neither the demo nor the store made a workspace: ${demo.last} ${open.stderr}`)
    }
    const deny = cli(dir, 'release', '--db', db, '--query', '3')
    steps.denial = /Denied/.test(deny.text) ? 'ok' : `not recorded: ${deny.last}`
    if (source.migrateTo !== undefined) {
      // Then this repository's own migrations up to the version, as a workspace of that tree's would have been migrated.
      const script = join(work, 'migrate-to.ts')
      writeFileSync(
        script,
        `import { openStore } from ${JSON.stringify(join(root, 'src-main/services/store/store.ts'))}\n` +
          `import { migrations } from ${JSON.stringify(join(root, MIGRATIONS))}\n` +
          `openStore(${JSON.stringify(db)}, { migrations: migrations.filter((m) => m.version <= ${source.migrateTo}) }).close()\n`
      )
      const m = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: root, encoding: 'utf8' })
      if (m.status !== 0) throw new Error(`v${version}: migrating the workspace to ${source.migrateTo} failed: ${m.stderr}`)
      steps.migrated = `to ${source.migrateTo} by this repository's migrations`
    }
    const conn = new Database(db)
    try {
      const v = conn.prepare('SELECT max(version) FROM schema_migrations').pluck().get()
      if (v !== version) throw new Error(`v${version}: the tree wrote schema ${v}`)
      if (conn.prepare('SELECT count(*) FROM audit_events').pluck().get() === 0) {
        // The first schema holds nothing but the workspace's audit events: two, as the app of then recorded them.
        const add = conn.prepare("INSERT INTO audit_events (kind, actor, subject, detail) VALUES (?, 'analyst', NULL, '{}')")
        add.run('workspace/created')
        add.run('workspace/opened')
        steps.auditEvents = 'two written by this script (the tree wrote none)'
      }
      conn.pragma('wal_checkpoint(TRUNCATE)')
      mkdirSync(outDir, { recursive: true })
      const target = join(outDir, `v${version}.sqlite`)
      rmSync(target, { force: true })
      conn.prepare('VACUUM INTO ?').run(target)
      const made = new Database(target)
      // Small pages keep a file of some forty mostly empty tables small.
      made.pragma('journal_mode = DELETE')
      made.pragma('page_size = 1024')
      made.exec('VACUUM')
      const c = counts(made)
      made.close()
      return { version, madeBy: source.label, steps, counts: c }
    } finally {
      conn.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    rmSync(work, { recursive: true, force: true })
  }
}

const manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : { fixtures: [] }
const have = new Set(existsSync(outDir) ? readdirSync(outDir).flatMap((f) => (/^v\d+\.sqlite$/.test(f) ? [Number(f.slice(1, -7))] : [])) : [])
const wanted = named.length ? named : history ? Array.from({ length: latest }, (_, i) => i + 1) : [latest]
const todo = wanted.filter((v) => force || !have.has(v))
if (todo.some((v) => v > latest)) throw new Error(`There is no schema version above ${latest}`)
const eras = todo.some((v) => v < latest) ? erasFromHistory() : new Map()
function record(entry) {
  manifest.fixtures = [...manifest.fixtures.filter((f) => f.version !== entry.version), entry].sort((a, b) => a.version - b.version)
  process.stderr.write(`v${entry.version}: ${JSON.stringify(entry.steps)} ${JSON.stringify(entry.counts)}\n`)
}
for (const version of todo) {
  let source
  if (version === latest) source = { label: `the working tree (HEAD ${git('rev-parse', '--short', 'HEAD')})` }
  else if (eras.has(version)) {
    const c = eras.get(version)
    source = { commit: c, label: `commit ${c.slice(0, 12)}` }
  } else {
    // No tree of the line ran this version: the previous version's tree and demo, migrated up to it, when that demo
    // runs; else the next version's tree with its migrations cut at it.
    const known = [...eras.keys()].sort((a, b) => a - b)
    const before = known.filter((v) => v < version).pop()
    const after = known.find((v) => v > version)
    if (before !== undefined) {
      const c = eras.get(before)
      const entry = make(version, {
        commit: c,
        migrateTo: version,
        label: `commit ${c.slice(0, 12)} (schema ${before}), then migrations up to ${version}`
      })
      if (entry.steps.demo === 'ok') {
        record(entry)
        continue
      }
    }
    if (after === undefined) throw new Error(`No commit of the history reaches schema ${version}`)
    const c = eras.get(after)
    source = { commit: c, cutAt: version, label: `commit ${c.slice(0, 12)} (schema ${after}) with its migrations cut at ${version}` }
  }
  record(make(version, source))
}
writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n')
if (!todo.length) process.stderr.write('Every fixture asked for exists already (--force makes one again).\n')
