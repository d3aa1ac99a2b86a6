/**
 * TLS material made in the test with Debian's openssl: a throwaway certificate authority and a server certificate it
 * signed for the given IP addresses (and localhost), in a private temporary folder. Nothing is trusted outside the test:
 * clients pass `ca` explicitly.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TestPki {
  dir: string
  caCertPath: string
  certPath: string
  keyPath: string
  ca: Buffer
  cert: Buffer
  key: Buffer
  /** A second authority the server's certificate does not chain to (a client trusting it must refuse the server). */
  otherCaPath: string
  cleanup(): void
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
}

export function makeTestPki(ips: string[] = ['127.0.0.1']): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'qa-pki-'))
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Quiet Alarm test CA'], dir)
  openssl(['req', '-x509', ...ec, '-keyout', 'other-ca.key', '-out', 'other-ca.pem', '-days', '2', '-subj', '/CN=Some other CA'], dir)
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=quiet-alarm-test'], dir)
  const san = ['DNS:localhost', ...ips.map((ip) => `IP:${ip}`)].join(',')
  writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=${san}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`)
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'ext.cnf'
    ],
    dir
  )
  const p = (f: string) => join(dir, f)
  return {
    dir,
    caCertPath: p('ca.pem'),
    certPath: p('server.pem'),
    keyPath: p('server.key'),
    ca: readFileSync(p('ca.pem')),
    cert: readFileSync(p('server.pem')),
    key: readFileSync(p('server.key')),
    otherCaPath: p('other-ca.pem'),
    cleanup: () => rmSync(dir, { recursive: true, force: true })
  }
}
