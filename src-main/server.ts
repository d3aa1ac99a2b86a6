/**
 * `npm run serve`: starts the HTTP door (src-main/door/headless.ts) from the command line and prints the address on
 * its first line: the workbench on 127.0.0.1, or a service with `--listen HOST:PORT` (HTTPS with `--tls-cert` and
 * `--tls-key`, required off loopback).
 */
import { parseArgs } from 'node:util'
import { startHeadless, type HeadlessServer } from './door/headless'
import { serviceOptionsFromFlags } from './door/serve-flags'

export { CONTENT_SECURITY_POLICY, MAX_UPLOAD_BYTES, startHeadless } from './door/headless'
export type { HeadlessOptions, HeadlessServer } from './door/headless'

async function runFromCommandLine(): Promise<void> {
  let values
  try {
    ;({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        db: { type: 'string' },
        workers: { type: 'string' },
        listen: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'cadence-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      }
    }))
  } catch (e) {
    process.stderr.write(`quiet-alarm serve: ${(e as Error).message.split('. ')[0]}\n`)
    process.exit(2)
  }
  if (values.help) {
    process.stdout.write(
      'npm run serve -- [--port N] [--db PATH] [--workers N] [--listen HOST:PORT [--tls-cert C --tls-key K] [--cadence-ms MS]]\n\n' +
        'Starts Quiet Alarm headless and prints the address to open in a browser on its first line. Without --listen: the\n' +
        'workbench, on 127.0.0.1 only. With --listen: a service (every answer at the public cadence, default 250 ms); an\n' +
        'address other than loopback needs HTTPS (--tls-cert and --tls-key, PEM files).\n'
    )
    return
  }
  const port = values.port === undefined ? 0 : Number(values.port)
  const workers = values.workers === undefined ? undefined : Number(values.workers)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`quiet-alarm serve: --port must be a whole number from 0 to 65535 (got "${values.port}")\n`)
    process.exit(2)
  }
  if (workers !== undefined && (!Number.isInteger(workers) || workers < 1 || workers > 64)) {
    process.stderr.write(`quiet-alarm serve: --workers must be a whole number from 1 to 64 (got "${values.workers}")\n`)
    process.exit(2)
  }
  let h: HeadlessServer
  try {
    const service = serviceOptionsFromFlags({
      listen: values.listen,
      tlsCert: values['tls-cert'],
      tlsKey: values['tls-key'],
      cadenceMs: values['cadence-ms']
    })
    h = await startHeadless({ port, dbPath: values.db, poolSize: workers, ...service, watch: true })
  } catch (e) {
    process.stderr.write(`quiet-alarm serve: ${(e as Error).message.split('\n')[0]}\n`)
    process.exit((e as { name?: string }).name === 'UserError' ? 2 : 1)
  }
  const workspace = `  Workspace: ${h.services.context.store.path}\n  Workers:   ${h.services.context.pool.size}\n`
  process.stdout.write(
    h.cadenceMs === null
      ? `Quiet Alarm (headless) is running.\n  Open:      ${h.url}\n${workspace}` +
          `Only this machine can connect (127.0.0.1). Keep the address private: it contains the session token. Ctrl+C stops.\n`
      : // A service prints its address on the first line (scripts read it).
        `${h.url}\nQuiet Alarm (service, every answer at a ${h.cadenceMs} ms cadence) is running.\n${workspace}` +
          `Accounts sign in with their credentials (quiet-alarm account add). Ctrl+C stops.\n`
  )
  const stop = () => {
    void h.close().finally(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

const entry = process.argv[1] ?? ''
if (/server\.(c?js|ts|mjs)$/.test(entry)) void runFromCommandLine()
