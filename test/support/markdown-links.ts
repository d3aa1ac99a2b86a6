/**
 * Checks the relative links of Markdown files as a forge renders them: every link that is not a URL must name a file or
 * folder inside the repository, and a `#anchor` must name a heading (GitHub's slug) or an `id`/`name` of the target
 * page. Links inside code (fenced blocks, inline code spans) are text, not links. Separately, a path of the repository
 * written in inline code (`src-main/...`, `test/...`) must exist, so that the docs follow a file that moves.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, extname, relative, resolve, sep } from 'node:path'

export interface BrokenLink {
  file: string
  line: number
  target: string
  reason: string
}

/** GitHub's heading anchor: the rendered text lower-cased, punctuation dropped, each space a hyphen. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image shows its text
    .replace(/<[^>]+>/g, '') // inline HTML shows nothing of its tags
    .replace(/(\*\*|__|\*|`)/g, '') // emphasis and code marks are not text
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The lines of a Markdown file with its fenced code blocks blanked (same number of lines). */
function withoutFences(markdown: string): string[] {
  let fence: string | null = null
  return markdown.split('\n').map((line) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
    if (fence !== null) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length) fence = null
      return ''
    }
    if (open) {
      fence = open[1]
      return ''
    }
    return line
  })
}

/** The lines of a Markdown file with all its code blanked: fenced blocks and inline code spans. */
function withoutCode(markdown: string): string[] {
  return withoutFences(markdown).map((line) => line.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length)))
}

/** The anchors a Markdown page defines: its headings' slugs (a repeated slug gets -1, -2, ...) and HTML ids and names. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of withoutFences(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading) {
      const slug = githubSlug(heading[1])
      const n = seen.get(slug) ?? 0
      seen.set(slug, n + 1)
      anchors.add(n === 0 ? slug : `${slug}-${n}`)
    }
    for (const m of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(m[1])
  }
  return anchors
}

/** Every link target of a Markdown page with its line: inline links and images, and reference definitions. */
export function linksOf(markdown: string): Array<{ line: number; target: string }> {
  const out: Array<{ line: number; target: string }> = []
  withoutCode(markdown).forEach((text, i) => {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line: i + 1, target: m[1] })
    const ref = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(text)
    if (ref) out.push({ line: i + 1, target: ref[1] })
  })
  return out
}

/** The broken relative links of `file` (an absolute path inside `root`). URLs (`https:`, `mailto:` ...) are not checked. */
export function brokenLinks(file: string, root: string): BrokenLink[] {
  const broken: BrokenLink[] = []
  const name = relative(root, file)
  const markdown = readFileSync(file, 'utf8')
  for (const { line, target } of linksOf(markdown)) {
    const fail = (reason: string) => broken.push({ file: name, line, target, reason })
    if (target === '') {
      fail('the link has no target')
      continue
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
    const hash = target.indexOf('#')
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash))
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1))
    const resolved = path === '' ? file : resolve(dirname(file), path)
    if (resolved !== root && !resolved.startsWith(root + sep)) {
      fail('it leads out of the repository')
      continue
    }
    if (!existsSync(resolved)) {
      fail('no such file or folder')
      continue
    }
    if (anchor === null) continue
    if (statSync(resolved).isDirectory() || extname(resolved) !== '.md') {
      fail('an anchor needs a Markdown page')
      continue
    }
    const anchors = resolved === file ? anchorsOf(markdown) : anchorsOf(readFileSync(resolved, 'utf8'))
    if (!anchors.has(anchor)) fail(`no heading or anchor "#${anchor}" in ${relative(root, resolved)}`)
  }
  return broken
}

/** Top-level folders whose paths the docs name in inline code. */
const TREE_ROOTS = ['src-main', 'src-worker', 'src-renderer', 'test', 'resources', 'docs']

/**
 * Repository paths named in inline code that do not exist: `src-main/services/csv.ts`, a folder, or an import specifier
 * without its extension. A span holding a pattern (`*`, `<name>`) is a pattern, not a path.
 */
export function missingCodePaths(file: string, root: string): BrokenLink[] {
  const missing: BrokenLink[] = []
  withoutFences(readFileSync(file, 'utf8')).forEach((text, i) => {
    for (const span of text.matchAll(/(`+)([^`]+?)\1/g)) {
      const code = span[2]
      if (/[*<>{}]/.test(code)) continue
      for (const m of code.matchAll(new RegExp(`(?:^|[\\s'"(=])((?:${TREE_ROOTS.join('|')})/[\\w./@-]*)`, 'g'))) {
        const path = m[1].replace(/[.,:;)]+$/, '')
        const exists = ['', '.ts', '.tsx', '.mjs', '.js'].some((ext) => existsSync(resolve(root, path + ext)))
        if (!exists) missing.push({ file: relative(root, file), line: i + 1, target: path, reason: 'no such file or folder' })
      }
    }
  })
  return missing
}
