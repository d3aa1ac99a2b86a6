#!/usr/bin/env node
// `npx quiet-alarm ...`: launches the built CLI (out/main/cli.js, made by `npm run build`, which `npm ci` runs via `prepare`).
'use strict'
const { existsSync } = require('node:fs')
const { join } = require('node:path')

const cli = join(__dirname, '..', '..', 'out', 'main', 'cli.js')
if (!existsSync(cli)) {
  process.stderr.write('quiet-alarm: the app is not built yet; run "npm run build" in the project folder\n')
  process.exit(1)
}
require(cli)
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code
    },
    (e) => {
      process.stderr.write(`quiet-alarm: unexpected failure: ${e && e.message ? e.message : e}\n`)
      process.exitCode = 1
    }
  )
