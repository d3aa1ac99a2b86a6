/**
 * The built renderer's files, as both doors serve them (the headless server over HTTP, the desktop shell on `app://`):
 * one MIME table, one way to turn a URL path into a file of the renderer folder. A path that does not decode, or that
 * leads out of the folder, names no file.
 */
import { readFile, stat } from 'node:fs/promises'
import { extname, join, normalize, resolve, sep } from 'node:path'

const MIME: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2'
}

export function contentTypeOf(file: string): string {
  return MIME[extname(file).toLowerCase()] ?? 'application/octet-stream'
}

/**
 * The file of `rendererDir` that a URL path names ('/' and '' name index.html); `undecodable` when the path is not
 * valid percent-encoding, `outside` when it leads out of the folder.
 */
export function rendererFileFor(pathname: string, rendererDir: string): string | 'undecodable' | 'outside' {
  let rel: string
  try {
    rel = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '')
  } catch {
    return 'undecodable'
  }
  const root = resolve(rendererDir)
  const file = resolve(root, rel === '' || rel === '.' ? 'index.html' : rel)
  return file.startsWith(root + sep) ? file : 'outside'
}

export interface StaticFile {
  file: string
  body: Buffer
  contentType: string
}

/** The file's bytes and type, or null when it is missing or a folder. */
export async function readStaticFile(file: string): Promise<StaticFile | null> {
  try {
    if (!(await stat(file)).isFile()) return null
    return { file, body: await readFile(file), contentType: contentTypeOf(file) }
  } catch {
    return null
  }
}

/**
 * What the headless server sends for a page path: the file; `not-built` when the UI's index.html is missing (nothing
 * is served then); `missing` for any other path that names no file. The UI routes in the address's fragment, which
 * never reaches the server, so no other path is the UI's: `/health` or `/metrics` get no page.
 */
export async function readPage(file: string, rendererDir: string): Promise<StaticFile | 'missing' | 'not-built'> {
  const found = await readStaticFile(file)
  if (found) return found
  return (await readStaticFile(join(resolve(rendererDir), 'index.html'))) ? 'missing' : 'not-built'
}
