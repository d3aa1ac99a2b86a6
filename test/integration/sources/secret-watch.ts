/**
 * What the linked database server tests share around the server's password: every error sentence they see is kept and,
 * after the file, checked not to contain the password; the CLI run in the workspace's folder; a call that must fail;
 * the workspace file's bytes (with its WAL and journal) to search for the password; the environment variables a file
 * sets, restored after it; a listener on loopback that records every password sent to it.
 */
import { existsSync, readFileSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { afterAll, expect } from 'vitest'
import { type CliRun, runCli } from '../cli-runner'

export interface SecretWatch {
  /** `quiet-alarm <args>` in `cwd`; its stderr is kept. */
  cli(args: string[], cwd: string): Promise<CliRun>
  /** The error sentence of a call that must fail (kept). */
  failure(p: Promise<unknown> | (() => unknown)): Promise<string>
}

/** Watches every sentence for `secret()` (checked after the file). */
export function watchSecret(secret: () => string): SecretWatch {
  const sentences: string[] = []
  afterAll(() => {
    for (const s of sentences) expect(s).not.toContain(secret())
  })
  return {
    async cli(args, cwd) {
      const r = await runCli(args, { cwd })
      sentences.push(r.err)
      return r
    },
    async failure(p) {
      try {
        await (typeof p === 'function' ? p() : p)
      } catch (e) {
        const m = (e as Error).message
        sentences.push(m)
        return m
      }
      throw new Error('expected a failure')
    }
  }
}

/** The workspace file, its WAL and its journal, as text (for a search). */
export function workspaceBytes(db: string): string {
  return [db, `${db}-wal`, `${db}-journal`]
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('\n')
}

/** The variables' values now, restored after the file (a variable that was unset is unset again). */
export function restoreEnvAfterAll(names: readonly string[]): void {
  const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]))
  afterAll(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  })
}

export interface PasswordCatcher {
  port: number
  connections: () => number
  /** The passwords (or credentials) received, in order. */
  caught: string[]
  close: () => Promise<void>
}

/**
 * A fake server on loopback, `listener` being the script of a worker thread (a release blocks this thread while its
 * client works) that posts `{ port }` once listening, `{ connection: true }` for each client and `{ password }` for
 * each credential it is sent.
 */
export async function passwordCatcher(listener: string): Promise<PasswordCatcher> {
  const w = new Worker(listener, { eval: true })
  const caught: string[] = []
  let connections = 0
  const port = await new Promise<number>((resolve) =>
    w.on('message', (m: { port?: number; connection?: true; password?: string }) => {
      if (m.port !== undefined) resolve(m.port)
      if (m.connection) connections++
      if (m.password !== undefined) caught.push(m.password)
    })
  )
  return {
    port,
    connections: () => connections,
    caught,
    close: async () => {
      // Let the messages posted meanwhile arrive first.
      await new Promise((r) => setTimeout(r, 50))
      await w.terminate()
    }
  }
}
