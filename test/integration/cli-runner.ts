/** The command line run in-process, as tests read it: the exit code and everything written to stdout and stderr. */
import { main } from '../../src-main/cli'

export interface CliRun {
  code: number
  out: string
  err: string
}

/** Runs `quiet-alarm <args>` in `cwd` (default: this process's), with `env` set for this run only. */
export async function runCli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  let out = ''
  let err = ''
  const io = {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    cwd: opts.cwd ?? process.cwd()
  }
  const saved: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    saved[k] = process.env[k]
    process.env[k] = v
  }
  try {
    const code = await main(args, io as never)
    return { code, out, err }
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}
