/**
 * A throwaway PostgreSQL cluster for the tests (a real server, no mocks). `initdb` in a temp dir, `pg_ctl
 * start` listening on a unix socket in that dir only (no TCP port to collide on). initdb refuses root: as root (CI) the
 * cluster runs as `nobody` (`runuser`), with the temp dir chowned to it. The superuser `postgres` is trusted on the
 * socket (fixtures); every other role logs in with a password (scram-sha-256), so the password-from-environment path is
 * really exercised. Missing binaries are a failure with a sentence (CI installs Debian's postgresql), never a skip.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export interface PgCluster {
  /** Socket directory (the URL's host). */
  socketDir: string
  port: number
  database: string
  /** A URL for `role` (no password). */
  url(role: string): string
  /** Runs SQL as the superuser (fixtures, grants, schema changes). */
  admin(sql: string, params?: unknown[]): Promise<pg.QueryResult>
  /** Creates a login role with a password. */
  createRole(role: string, password: string): Promise<void>
  start(): void
  /** Stops the server (the data stays; `start` again). */
  stop(): void
  /** Stops the server and deletes everything. */
  destroy(): Promise<void>
}

/** The directory of initdb/pg_ctl: $QA_PG_BIN (only there when set), else Debian's /usr/lib/postgresql/<newest>/bin. Throws a sentence if absent. */
export function pgBinDir(): string {
  const env = process.env.QA_PG_BIN
  if (env) {
    if (existsSync(join(env, 'initdb')) && existsSync(join(env, 'pg_ctl'))) return env
    throw new Error(`PostgreSQL's server binaries (initdb, pg_ctl) are not in QA_PG_BIN (${env}): point it at their directory or unset it`)
  }
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions.length) return join(root, versions[0], 'bin')
  }
  throw new Error(
    "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: install Debian's postgresql package (.ci/run does) or set QA_PG_BIN to their directory"
  )
}

export function hasPgBinaries(): boolean {
  try {
    pgBinDir()
    return true
  } catch {
    return false
  }
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = pgBinDir()
  const dir = mkdtempSync(join(tmpdir(), 'qa-pg-'))
  const data = join(dir, 'data')
  const socketDir = join(dir, 'sock')
  const asRoot = process.getuid?.() === 0
  const run = (cmd: string, args: string[]) => {
    const full = join(bin, cmd)
    const [file, argv] = asRoot ? ['runuser', ['-u', 'nobody', '--', full, ...args]] : [full, args]
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir })
  }
  execFileSync('mkdir', ['-p', socketDir])
  if (asRoot) {
    const nobody = Number(execFileSync('id', ['-u', 'nobody']).toString().trim())
    const group = Number(execFileSync('id', ['-g', 'nobody']).toString().trim())
    chownSync(dir, nobody, group)
    chownSync(socketDir, nobody, group)
  }
  chmodSync(dir, 0o755)
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync'])
  writeFileSync(
    join(data, 'pg_hba.conf'),
    ['local all postgres trust', 'local all all scram-sha-256', 'host all all 127.0.0.1/32 scram-sha-256', ''].join('\n')
  )
  if (asRoot) {
    const nobody = Number(execFileSync('id', ['-u', 'nobody']).toString().trim())
    chownSync(join(data, 'pg_hba.conf'), nobody, Number(execFileSync('id', ['-g', 'nobody']).toString().trim()))
  }
  const port = 5432
  const database = 'qa'
  const start = () =>
    run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-k ${socketDir} -c listen_addresses='' -p ${port} -c fsync=off`, 'start'])
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
  start()
  let admin: pg.Client | null = null
  const adminClient = async (db: string) => {
    const c = new pg.Client({ host: socketDir, port, user: 'postgres', database: db })
    await c.connect()
    return c
  }
  const boot = await adminClient('postgres')
  await boot.query(`CREATE DATABASE ${database}`)
  await boot.end()
  const cluster: PgCluster = {
    socketDir,
    port,
    database,
    url: (role) => `postgresql://${encodeURIComponent(role)}@${encodeURIComponent(socketDir)}:${port}/${database}`,
    async admin(sql, params) {
      if (!admin) admin = await adminClient(database)
      return admin.query(sql, params)
    },
    async createRole(role, password) {
      await cluster.admin(`CREATE ROLE "${role}" LOGIN PASSWORD '${password.replace(/'/g, "''")}'`)
    },
    start,
    stop() {
      const a = admin
      admin = null
      void a?.end().catch(() => {})
      stop()
    },
    async destroy() {
      const a = admin
      admin = null
      await a?.end().catch(() => {})
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return cluster
}
