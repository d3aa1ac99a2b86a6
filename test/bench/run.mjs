#!/usr/bin/env node
// `npm run bench [-- name ...]`: runs test/bench/<name>.bench.ts (and <name>-*.bench.ts) files one after another (each in its own Node process,
// so they do not disturb each other's heap), and prints one JSON object { <name>: <that bench's JSON> } on stdout.
// Progress goes to stderr. Timings on shared machines are noisy: compare ratios measured in one run.
import { readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import os from 'node:os'

const here = dirname(fileURLToPath(import.meta.url))
const wanted = process.argv.slice(2)
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort()
  // A name also selects its variants: `sources` runs sources.bench.ts and sources-postgres.bench.ts.
  .filter((f) => wanted.length === 0 || wanted.some((w) => f === `${w}.bench.ts` || f.startsWith(`${w}-`)))
if (files.length === 0) {
  process.stderr.write(`bench: nothing matches ${wanted.join(', ')}\n`)
  process.exit(2)
}
const out = { machine: { cpus: os.cpus().length, node: process.version, date: new Date().toISOString() } }
let failed = false
for (const f of files) {
  const name = f.replace(/\.bench\.ts$/, '')
  process.stderr.write(`bench: ${name} ...\n`)
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', join(here, f)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit']
  })
  if (r.status !== 0) {
    out[name] = { error: `exit ${r.status}` }
    failed = true
    continue
  }
  try {
    out[name] = JSON.parse(r.stdout.trim().split('\n').pop())
  } catch {
    out[name] = { error: 'did not print JSON', stdout: r.stdout.slice(0, 500) }
    failed = true
  }
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n')
process.exit(failed ? 1 : 0)
