/**
 * The documentation's links hold: every relative link and anchor in README.md and docs/ names a file of the repository
 * and, with a `#anchor`, a heading of that page (GitHub's slugs); every repository path they name in inline code exists
 * (a moved file takes its docs along). The checker itself is tested on a small tree with a broken file link, a broken
 * anchor, a link out of the repository and a stale path.
 */
import { describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { anchorsOf, brokenLinks, githubSlug, missingCodePaths } from '../support/markdown-links'

const ROOT = join(__dirname, '..', '..')

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []
  )
}

describe('documentation links', () => {
  const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))]

  it('docs/ holds the pages the README links to', () => {
    expect(files.length).toBeGreaterThan(10)
  })

  for (const file of files) {
    it(`every relative link and anchor of ${file.slice(ROOT.length + 1)} resolves`, () => {
      expect(brokenLinks(file, ROOT)).toEqual([])
    })

    it(`every repository path ${file.slice(ROOT.length + 1)} names in code exists`, () => {
      expect(missingCodePaths(file, ROOT)).toEqual([])
    })

    it(`${file.slice(ROOT.length + 1)} names no file outside the repository (a reader of the repository cannot open it)`, () => {
      const outside = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => /(^|[\s(`'"])\.\.\/shared\//.test(l))
      expect(outside).toEqual([])
    })
  }
})

describe('the README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

  it('fits one terminal page (at most 50 lines); everything else lives in docs/', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(50)
  })

  it("names the command CI runs (.ci/run's last command) among its set-up commands", () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8')
      .trimEnd()
      .split('\n')
    const command = ci[ci.length - 1].trim()
    const setUp = /## Set up[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
    expect(setUp.split('\n').map((l) => l.replace(/#.*/, '').trim())).toContain(command)
  })
})

describe('the link checker', () => {
  it('slugs headings as GitHub does', () => {
    expect(githubSlug('Headless mode (`npm run serve`)')).toBe('headless-mode-npm-run-serve')
    expect(githubSlug('Reproducing the papers — MIDE')).toBe('reproducing-the-papers--mide')
    expect(githubSlug("Presets (the papers' figures)")).toBe('presets-the-papers-figures')
    expect(githubSlug('The [ledger](x.md) and **verify**')).toBe('the-ledger-and-verify')
    expect([...anchorsOf('# A\n## Notes\n```\n# not a heading\n```\n## Notes\n<a id="kept"></a>')]).toEqual(['a', 'notes', 'notes-1', 'kept'])
  })

  it('reports a missing file, a missing anchor and a link out of the repository, and passes good ones', () => {
    const root = mkdtempSync(join(tmpdir(), 'qa-links-'))
    try {
      mkdirSync(join(root, 'docs'))
      writeFileSync(join(root, 'docs', 'b.md'), '# B\n\n## Real heading\n')
      writeFileSync(
        join(root, 'README.md'),
        [
          '# Top',
          '[good](docs/b.md#real-heading) [self](#top) [dir](docs/) [web](https://example.org/x#y)',
          '[gone](docs/missing.md)',
          '[bad anchor](docs/b.md#no-such-heading)',
          '[outside](../elsewhere.md)',
          '`[in code](nowhere.md)`',
          '```',
          '[in a block](nowhere.md)',
          '```',
          '[ref]: docs/also-missing.md'
        ].join('\n')
      )
      writeFileSync(join(root, 'docs', 'mod.ts'), '')
      writeFileSync(join(root, 'docs', 'c.md'), 'See `docs/b.md`, `docs/mod` (an import), `docs/gone.ts`, `test/x-*.ts` and `docs/<name>.md`.\n')
      expect(missingCodePaths(join(root, 'docs', 'c.md'), root).map((b) => b.target)).toEqual(['docs/gone.ts'])
      const broken = brokenLinks(join(root, 'README.md'), root)
      expect(broken.map((b) => [b.line, b.target])).toEqual([
        [3, 'docs/missing.md'],
        [4, 'docs/b.md#no-such-heading'],
        [5, '../elsewhere.md'],
        [10, 'docs/also-missing.md']
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
