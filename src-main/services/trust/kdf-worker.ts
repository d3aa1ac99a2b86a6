/**
 * The passphrase's key derivation (scrypt) on a worker thread of its own, so that the thread that asks for it works
 * meanwhile: linking a file derives the officer's key while DuckDB starts and reads the file whole (link-file.ts).
 *
 * The worker runs node:crypto's asynchronous scrypt (its event loop stays free, so its heartbeat moves while it
 * derives) and writes the 32-byte key into a SharedArrayBuffer of the caller's; the key never passes through a message,
 * and the worker zeroes its own copy. The caller copies the key out and zeroes the shared bytes. Parameters are those
 * of a wrapped key that passed `kdfProblem` (officer-crypto.ts): the worker only derives.
 */
import { type PendingCall, syncWorker } from '../platform/sync-worker'

const KDF_CODE = `
const { scrypt } = require('node:crypto')
async function handle({ passphrase, salt, N, r, p, maxmem, out }) {
  const key = await new Promise((resolve, reject) =>
    scrypt(passphrase, Buffer.from(salt, 'base64'), 32, { N, r, p, maxmem }, (e, k) => (e ? reject(e) : resolve(k)))
  )
  new Uint8Array(out).set(key)
  key.fill(0)
  return true
}
`

/** The worker's failure: its message is node:crypto's (parameters or memory), never the passphrase. */
export class KdfError extends Error {}

const kdf = syncWorker({
  code: KDF_CODE,
  workerData: () => null,
  // The heartbeat moves while scrypt runs on the worker's thread pool: only a dead or stuck worker is silent this long.
  stallMs: 30_000,
  stalled: (what) => new KdfError(`The key derivation ${what}`),
  failed: (message) => new KdfError(`The key derivation failed: ${message}`)
})

export interface ScryptParams {
  /** Base64, as stored in the wrapped keys. */
  salt: string
  N: number
  r: number
  p: number
  maxmem: number
}

/**
 * The 32-byte scrypt key of `passphrase` (already normalised), begun on the worker. `wait()` blocks until it is derived
 * and gives it (the caller zeroes it), or throws KdfError; it can be taken once.
 */
export function beginScrypt(passphrase: string, params: ScryptParams): { wait(): Buffer } {
  const out = new SharedArrayBuffer(32)
  const pending: PendingCall<boolean> = kdf.begin({ passphrase, ...params, out })
  let taken = false
  return {
    wait() {
      if (taken) throw new Error('a derived key is taken once')
      taken = true
      const shared = new Uint8Array(out)
      try {
        pending.wait()
        return Buffer.from(shared)
      } finally {
        shared.fill(0)
      }
    }
  }
}

/** Stops the worker (tests, shutdown); the next derivation starts a new one. */
export function closeKdfWorker(): Promise<void> {
  return kdf.close()
}
