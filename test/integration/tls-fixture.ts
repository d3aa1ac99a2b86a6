/**
 * TLS for tests and benchmarks: a self-signed certificate for 127.0.0.1 made with Debian's openssl (P-256, two days),
 * and an HTTPS client that trusts only it.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request as httpsRequest, Agent } from 'node:https'
import { join } from 'node:path'

export interface TestCertificate {
  cert: Buffer
  key: Buffer
  certPath: string
  keyPath: string
}

export function makeCertificate(dir: string, host = '127.0.0.1'): TestCertificate {
  const keyPath = join(dir, 'tls-key.pem')
  const certPath = join(dir, 'tls-cert.pem')
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '2',
      '-subj',
      `/CN=${host}`,
      '-addext',
      `subjectAltName=IP:${host}`
    ],
    { stdio: 'ignore' }
  )
  return { cert: readFileSync(certPath), key: readFileSync(keyPath), certPath, keyPath }
}

export interface HttpsAnswer {
  status: number
  body: string
  /** When the last byte arrived (ms since the epoch). */
  at: number
}

/** One HTTPS request to 127.0.0.1:`port`, trusting `ca` only. */
export function httpsCall(
  port: number,
  ca: Buffer,
  path: string,
  o: { method?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: Agent } = {}
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers: o.headers, ca, agent: o.agent ?? false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, at: Date.now() }))
    })
    req.on('error', reject)
    req.end(o.body)
  })
}
