/**
 * `quiet-alarm serve`: the custodian runs the service on the organisation's host (the HTTP door of door/headless.ts as a
 * service deployment). The first line printed is the service's URL (https://... wherever TLS is given; scripts read
 * it), then the command runs until SIGINT or SIGTERM. HTTPS is required on every address but loopback, and the
 * workspace must be readable by its owner only (both refused with one sentence, exit 2, before anything listens).
 */
import { type HeadlessServer, startHeadless } from '../../door/headless'
import { serviceOptionsFromFlags } from '../../door/serve-flags'
import { type CliCommand, UsageError, optNumber, optString } from '../command'
import { workspacePath } from '../workspace'
import { resolve } from 'node:path'

/** Resolves when the process is asked to stop (Ctrl+C, or SIGTERM from a service manager). */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolvePromise) => {
    const on = (s: NodeJS.Signals) => {
      process.off('SIGINT', on)
      process.off('SIGTERM', on)
      resolvePromise(s)
    }
    process.on('SIGINT', on)
    process.on('SIGTERM', on)
  })
}

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: "Run the service on this host (the custodian): analysts and officers connect over HTTPS with their accounts' credentials",
  usage: 'serve --db PATH --listen HOST:PORT --tls-cert CERT.pem --tls-key KEY.pem [--cadence-ms MS] [--workers N] [--head-record FILE]',
  required: () => ['db', 'listen'],
  options: {
    db: { type: 'string', description: 'the workspace the service holds (0600, in a folder only its owner can read)' },
    listen: { type: 'string', description: 'HOST:PORT to listen on (e.g. 0.0.0.0:8443; port 0 picks a free one)' },
    'tls-cert': { type: 'string', description: "the service's certificate chain (PEM); required on every address but loopback" },
    'tls-key': { type: 'string', description: "the certificate's private key (PEM)" },
    'cadence-ms': { type: 'string', description: 'the public cadence every answer leaves at (milliseconds)', defaultText: 'the door default' },
    workers: { type: 'string', description: 'worker threads', defaultText: 'processor cores minus one' },
    'head-record': {
      type: 'string',
      description: 'the head record kept outside the workspace (backup and restore read it)',
      defaultText: 'PATH.head.json beside the workspace'
    }
  },
  helpNotes: {
    '':
      'The first line printed is the service URL. Accounts are added by the officer (quiet-alarm account add); the first\n' +
      'officer is set up on the host before serving (quiet-alarm officer init). Clients: a browser at the URL, the CLI with\n' +
      '--server URL --credential-file F --ca-file CA, the desktop app ("Connect to a service").'
  },
  async run(values, _positionals, ctx) {
    // A new path gets a new workspace (0600 in a 0700 folder, store.ts); an existing one must be private (host-hygiene.ts).
    const dbPath = workspacePath(values, ctx.cwd)
    const poolSize = values.workers === undefined ? undefined : optNumber(values, 'workers', 1, { integer: true, ge: 1, le: 64 })
    const service = serviceOptionsFromFlags({
      listen: optString(values, 'listen'),
      tlsCert: optString(values, 'tls-cert'),
      tlsKey: optString(values, 'tls-key'),
      cadenceMs: optString(values, 'cadence-ms')
    })
    if (!service) throw new UsageError('serve needs --listen HOST:PORT')
    const stopped = stopSignal()
    const headRecordFlag = optString(values, 'head-record')
    const headRecord = headRecordFlag === undefined ? undefined : resolve(ctx.cwd, headRecordFlag)
    const h: HeadlessServer = await startHeadless({ dbPath, poolSize, headRecord, ...service, watch: true })
    const about = { url: h.url, cadenceMs: h.cadenceMs, workers: h.services.context.pool.size }
    ctx.print(
      ctx.json
        ? JSON.stringify(about)
        : `${h.url}\nQuiet Alarm service running (every answer at a ${h.cadenceMs} ms cadence, ${about.workers} workers). Ctrl+C stops.`
    )
    const signal = await stopped
    await h.close()
    return { json: about, text: `Stopped (${signal}).`, printed: ctx.json }
  }
}
