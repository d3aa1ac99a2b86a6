/**
 * A throwaway ClickHouse cluster for the tests (a real server, no mocks): `shards` servers of Debian's
 * `clickhouse-server` (18.16 here; `QA_CH_SERVER` names another binary), each a daemon with its own config, data
 * directory and free loopback ports (HTTP for the client, TCP for the Distributed engine between shards), all in one
 * remote_servers cluster `qa`. As root (CI) the servers run as `nobody` (`runuser`), with the temp dir chowned to it.
 *
 * Users: `default` (no password, loopback only: fixtures), and three password users the tests link with: `reader`
 * (a plain profile: Quiet Alarm sets readonly = 1 itself), `reader2` (profile readonly = 2: reads and settings only),
 * `reader1` (profile readonly = 1: may not even set the execution-time limit). `stop()` ends every server and waits
 * for it; a process exit kills what is left. Missing binaries are a failure with a sentence (CI installs Debian's
 * clickhouse-server), never a skip.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface ChShard {
  httpPort: number
  tcpPort: number
  pid: number
}

export interface ChCluster {
  shards: ChShard[]
  /** The cluster's name in remote_servers. */
  name: string
  /** A URL for `user` (no password) on shard `i` (the initiator: 0). */
  url(user: string, shard?: number): string
  /** Runs SQL as `default` on shard `i` (fixtures, DDL) and returns its TabSeparated output. */
  admin(sql: string, shard?: number): Promise<string>
  /** Runs SQL on every shard. */
  onEachShard(sql: string): Promise<void>
  /** Stops shard `i` (its data stays; `startShard` again). */
  stopShard(i: number): void
  startShard(i: number): Promise<void>
  /** Stops every server and deletes everything. */
  destroy(): void
}

export const CH_USER_PASSWORD = `ch-${process.pid}-p@ss:w'rd`

/** The clickhouse-server binary: $QA_CH_SERVER, else Debian's /usr/sbin/clickhouse-server or /usr/bin/clickhouse. Throws a sentence if absent. */
export function chServerBinary(): { file: string; args: string[] } {
  const env = process.env.QA_CH_SERVER
  if (env) {
    if (existsSync(env)) return { file: env, args: /clickhouse$/.test(env) ? ['server'] : [] }
    throw new Error(`QA_CH_SERVER (${env}) does not exist: point it at clickhouse-server or unset it`)
  }
  if (existsSync('/usr/sbin/clickhouse-server')) return { file: '/usr/sbin/clickhouse-server', args: [] }
  if (existsSync('/usr/bin/clickhouse')) return { file: '/usr/bin/clickhouse', args: ['server'] }
  throw new Error("ClickHouse's server is not installed: install Debian's clickhouse-server package (.ci/run does) or set QA_CH_SERVER")
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.unref()
    s.on('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')
const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function usersXml(): string {
  const user = (name: string, profile: string, password: string | null) =>
    `<${name}>${password === null ? '<password></password>' : `<password_sha256_hex>${sha256(password)}</password_sha256_hex>`}` +
    `<networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>${profile}</profile><quota>default</quota></${name}>`
  return `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default><max_memory_usage>6000000000</max_memory_usage><max_threads>2</max_threads></default>
    <ro2><readonly>2</readonly><max_threads>2</max_threads></ro2>
    <ro1><readonly>1</readonly><max_threads>2</max_threads></ro1>
  </profiles>
  <users>
    ${user('default', 'default', null)}
    ${user('reader', 'default', CH_USER_PASSWORD)}
    ${user('reader2', 'ro2', CH_USER_PASSWORD)}
    ${user('reader1', 'ro1', CH_USER_PASSWORD)}
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`
}

function configXml(dir: string, http: number, tcp: number, cluster: string, shards: Array<{ tcp: number }>): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${xml(join(dir, 'server.log'))}</log><errorlog>${xml(join(dir, 'error.log'))}</errorlog><console>0</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${http}</http_port>
  <tcp_port>${tcp}</tcp_port>
  <path>${xml(join(dir, 'data'))}/</path>
  <tmp_path>${xml(join(dir, 'tmp'))}/</tmp_path>
  <user_files_path>${xml(join(dir, 'user_files'))}/</user_files_path>
  <format_schema_path>${xml(join(dir, 'format_schemas'))}/</format_schema_path>
  <users_config>${xml(join(dir, 'users.xml'))}</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <!-- Longer than the clients' idle sockets (Node's fetch keeps one 4 s): the client, not the server, closes an idle connection. -->
  <keep_alive_timeout>10</keep_alive_timeout>
  <timezone>UTC</timezone>
  <remote_servers><${cluster}>${shards.map((s) => `<shard><replica><host>127.0.0.1</host><port>${s.tcp}</port></replica></shard>`).join('')}</${cluster}></remote_servers>
</yandex>
`
}

/** The daemons started by this process, killed at exit if a test left them. */
const running = new Set<number>()
process.on('exit', () => {
  for (const pid of running) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
})

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function waitFor(what: string, ok: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await ok()) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`ClickHouse test cluster: ${what} within ${ms / 1000} s`)
}

function httpQuery(port: number, sql: string): Promise<string> {
  // A connection of its own per statement: a pooled one may have been closed by the server's keep-alive timeout
  // meanwhile (fetch then fails with "other side closed"). Inserts through a Distributed table reach the shards
  // before the call returns.
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/?user=default&insert_distributed_sync=1', agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('error', reject)
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        if (res.statusCode === 200) resolve(text)
        else reject(new Error(`ClickHouse (port ${port}): ${text.slice(0, 500)}`))
      })
    })
    req.on('error', reject)
    req.end(sql)
  })
}

export async function startChCluster(shardCount: number): Promise<ChCluster> {
  const bin = chServerBinary()
  const root = mkdtempSync(join(tmpdir(), 'qa-ch-'))
  const asRoot = process.getuid?.() === 0
  const owner = asRoot
    ? { uid: Number(execFileSync('id', ['-u', 'nobody']).toString().trim()), gid: Number(execFileSync('id', ['-g', 'nobody']).toString().trim()) }
    : null
  const name = 'qa'
  const dirs = Array.from({ length: shardCount }, (_, i) => {
    const dir = join(root, `shard${i + 1}`)
    for (const d of [dir, join(dir, 'data'), join(dir, 'tmp'), join(dir, 'user_files'), join(dir, 'format_schemas')])
      mkdirSync(d, { recursive: true })
    return dir
  })
  const ports: Array<{ http: number; tcp: number }> = []
  const shards: ChShard[] = []
  // Free ports are only free when asked: another test file may take one before the shard binds it, so a start that
  // finds its address in use is retried on new ports.
  const writeConfigs = async () => {
    ports.length = 0
    for (let i = 0; i < shardCount; i++) ports.push({ http: await freePort(), tcp: await freePort() })
    dirs.forEach((dir, i) => {
      writeFileSync(join(dir, 'config.xml'), configXml(dir, ports[i].http, ports[i].tcp, name, ports))
      writeFileSync(join(dir, 'users.xml'), usersXml())
      rmSync(join(dir, 'error.log'), { force: true })
      shards[i] = { httpPort: ports[i].http, tcpPort: ports[i].tcp, pid: shards[i]?.pid ?? 0 }
    })
  }
  await writeConfigs()
  if (owner) {
    const chownAll = (p: string) => {
      chownSync(p, owner.uid, owner.gid)
      const st = spawnSync('find', [p, '-mindepth', '1'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean)
      for (const f of st) chownSync(f, owner.uid, owner.gid)
    }
    chownAll(root)
  }
  const startShard = async (i: number) => {
    const dir = dirs[i]
    const pidFile = join(dir, 'server.pid')
    rmSync(pidFile, { force: true })
    const args = [...bin.args, `--config-file=${join(dir, 'config.xml')}`, `--pid-file=${pidFile}`, '--daemon']
    const [file, argv] = owner ? ['runuser', ['-u', 'nobody', '--', bin.file, ...args]] : [bin.file, args]
    const r = spawnSync(file, argv, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`clickhouse-server did not start: ${(r.stderr || r.stdout).slice(0, 500)}`)
    await waitFor('the server wrote its pid file', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 20_000)
    const pid = Number(readFileSync(pidFile, 'utf8').trim())
    running.add(pid)
    shards[i].pid = pid
    await waitFor(
      `shard ${i + 1} did not answer /ping (see ${join(dir, 'error.log')})`,
      async () => {
        if (!alive(pid)) throw new Error(`clickhouse-server of shard ${i + 1} exited: ${readFileSync(join(dir, 'error.log'), 'utf8').slice(-1000)}`)
        try {
          const r2 = await fetch(`http://127.0.0.1:${ports[i].http}/ping`)
          return r2.ok
        } catch {
          return false
        }
      },
      30_000
    )
  }

  const stopShard = (i: number) => {
    const pid = shards[i].pid
    if (!pid || !alive(pid)) return
    process.kill(pid, 'SIGTERM')
    const until = Date.now() + 20_000
    while (alive(pid) && Date.now() < until) spawnSync('sleep', ['0.05'])
    if (alive(pid)) process.kill(pid, 'SIGKILL')
    while (alive(pid)) spawnSync('sleep', ['0.05'])
    running.delete(pid)
  }

  for (let attempt = 1; ; attempt++) {
    try {
      for (let i = 0; i < shardCount; i++) await startShard(i)
      break
    } catch (e) {
      for (let i = 0; i < shardCount; i++) stopShard(i)
      if (attempt < 4 && /Address already in use/.test(String(e))) {
        await writeConfigs()
        continue
      }
      rmSync(root, { recursive: true, force: true })
      throw e
    }
  }

  const cluster: ChCluster = {
    shards,
    name,
    url: (user, shard = 0) => `http://${encodeURIComponent(user)}@127.0.0.1:${shards[shard].httpPort}`,
    admin: (sql, shard = 0) => httpQuery(shards[shard].httpPort, sql),
    async onEachShard(sql) {
      for (const s of shards) await httpQuery(s.httpPort, sql)
    },
    stopShard,
    startShard,
    destroy() {
      for (let i = 0; i < shardCount; i++) stopShard(i)
      rmSync(root, { recursive: true, force: true })
    }
  }
  return cluster
}
