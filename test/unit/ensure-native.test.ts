/** `npm start`'s first step names what is missing: the electron package, or only its binary (skipped at install). */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const SCRIPT = resolve(__dirname, '..', '..', 'resources', 'scripts', 'ensure-native.mjs')
let root = ''
afterEach(() => rmSync(root, { recursive: true, force: true }))

/** A project folder holding only the script, and an electron package whose index is `index` (none when null). */
function project(index: string | null): string {
  root = mkdtempSync(join(tmpdir(), 'qa-ensure-native-'))
  mkdirSync(join(root, 'resources', 'scripts'), { recursive: true })
  copyFileSync(SCRIPT, join(root, 'resources', 'scripts', 'ensure-native.mjs'))
  writeFileSync(join(root, 'package.json'), '{"name":"p","private":true}')
  if (index !== null) {
    mkdirSync(join(root, 'node_modules', 'electron'), { recursive: true })
    writeFileSync(join(root, 'node_modules', 'electron', 'package.json'), '{"name":"electron","version":"38.0.0","main":"index.js"}')
    writeFileSync(join(root, 'node_modules', 'electron', 'index.js'), index)
  }
  return root
}

const run = (dir: string) => spawnSync(process.execPath, [join(dir, 'resources', 'scripts', 'ensure-native.mjs'), 'electron'], { encoding: 'utf8' })

describe('ensure-native electron', () => {
  it('a package installed without its binary (its index throws, as electron does without path.txt) is named as that', () => {
    const r = run(project("throw new Error('Electron failed to install correctly, please delete node_modules/electron and try installing again')"))
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/^ensure-native: Electron's binary is not installed \(it was skipped, e\.g\. ELECTRON_SKIP_BINARY_DOWNLOAD=1/)
    expect(r.stderr).toContain('npm run serve')
  })

  it('a binary path that does not exist is named the same way', () => {
    const r = run(project("module.exports = '/nonexistent/electron'"))
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/Electron's binary is not installed/)
  })

  it('no electron package at all: install the packages', () => {
    const r = run(project(null))
    expect(r.status).toBe(1)
    expect(r.stderr).toBe('ensure-native: the electron package is not installed (npm ci).\n')
  })
})
