/**
 * The doors' path refusal. `services.dispatch` runs `checkRequest` (request-check.ts: this refusal, then the method's
 * schema) before any handler; the sandboxed preload calls `refusePathParameters` alone (it stays small: no schemas in it).
 *
 * Paths: no contract method takes a server-side path (files are opaque handles,
 * reports are downloaded or saved through the desktop dialog), so a parameter named like a path is an attempt to reach
 * the file system and is refused with one sentence, before any handler runs.
 *
 * The one exception: experiments from the app may name the bundled sample workloads of the papers' presets (public
 * sample data shipped with Quiet Alarm), exactly as the presets spell them. Any other workload file is run with the CLI
 * (`quiet-alarm sweep --spec FILE`), which is the local user and keeps paths.
 */
import { PRESETS } from '../experiments/presets'

/** Keys that name files or folders. `fileId` (an opaque handle) is not one of them. */
const PATH_KEY =
  /^(?:path|paths|.*_?path|file|files|filename|file_?name|out|outfile|out_?file|dir|dirs|directory|folder|cwd|db|windows|spec_?file|upload_?dir|download_?dir)$/i

/** The workload paths of the bundled presets: the only file names an experiment from a door may use. */
const SAMPLE_PATHS: ReadonlySet<string> = new Set(
  PRESETS.flatMap((p) => p.spec.workloads.flatMap((w) => ('path' in w && typeof w.path === 'string' ? [w.path] : [])))
)

const MAX_DEPTH = 64

/** Objects whose keys are data (column names from the user's file), not parameters: a column may well be called "path". */
const DATA_MAPS: ReadonlySet<string> = new Set(['types', 'on'])

export interface DoorRefusal {
  message: string
  code: 'bad-input'
}

function sampleWorkloadPath(method: string, trail: readonly string[], key: string, value: unknown): boolean {
  return (
    (method === 'experiments/validate' || method === 'experiments/start') &&
    key === 'path' &&
    trail.length >= 2 &&
    trail[trail.length - 2] === 'workloads' &&
    typeof value === 'string' &&
    SAMPLE_PATHS.has(value)
  )
}

/** null when the request names no file; else why it is refused. */
export function refusePathParameters(method: string, req: unknown): DoorRefusal | null {
  const walk = (v: unknown, trail: string[], depth: number): DoorRefusal | null => {
    if (depth > MAX_DEPTH) return { message: 'The request is nested too deeply', code: 'bad-input' }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const r = walk(v[i], [...trail, String(i)], depth + 1)
        if (r) return r
      }
      return null
    }
    if (v === null || typeof v !== 'object') return null
    const dataMap = trail.length > 0 && DATA_MAPS.has(trail[trail.length - 1])
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      if (!dataMap && PATH_KEY.test(key) && !sampleWorkloadPath(method, trail, key, value)) {
        const where = [...trail, key].join('.')
        const hint = method.startsWith('experiments/')
          ? 'experiments from the app use the bundled sample workloads or saved queries; run your own workload files with the CLI (quiet-alarm sweep --spec FILE)'
          : 'choose the file in the app (desktop) or upload it (browser), and download reports instead of naming an output file'
        return {
          message: `Refused: "${where.slice(0, 80)}" names a file or folder, and the app never takes file paths; ${hint}`,
          code: 'bad-input'
        }
      }
      const r = walk(value, [...trail, key], depth + 1)
      if (r) return r
    }
    return null
  }
  return walk(req, [], 0)
}
