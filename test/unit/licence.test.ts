/** The package is Apache-2.0: the licence's text at the top of the tree, and the same name in package.json and its lock. */
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const ROOT = resolve(__dirname, '../..')
const json = (f: string) => JSON.parse(readFileSync(join(ROOT, f), 'utf8')) as Record<string, unknown>

describe('the licence', () => {
  it('is the Apache License 2.0, named so in package.json and package-lock.json', () => {
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8')
    expect(text).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/)
    expect(text).toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION')
    expect(text).toContain('END OF TERMS AND CONDITIONS')
    expect(json('package.json').license).toBe('Apache-2.0')
    const lock = json('package-lock.json') as { packages: Record<string, { license?: string }> }
    expect(lock.packages[''].license).toBe('Apache-2.0')
  })
})
