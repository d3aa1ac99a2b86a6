/**
 * The officer's cryptography, node:crypto only.
 *
 * - Key pair: Ed25519 (signs officer acts and checkpoints) and X25519 (receives sealed data), created together.
 * - At rest: both private keys (PKCS#8 DER) are wrapped with AES-256-GCM under a 32-byte key derived from the
 *   passphrase by scrypt (N = 2^17, r = 8, p = 1: 128 MiB and a few hundred milliseconds per try), with a random salt and
 *   nonce; the key id is bound as associated data. A wrong passphrase fails the GCM tag: nothing else is learned.
 * - Sealing: a random content key encrypts the plaintext once (AES-256-GCM); for each recipient an ephemeral X25519 key
 *   agrees a secret with the recipient's public key, HKDF-SHA-256 turns it into a wrapping key, and AES-256-GCM wraps
 *   the content key. The context (e.g. "release:7") is associated data everywhere, so a sealed value cannot be moved.
 * - Key id: the first 32 hex digits of SHA-256 over both raw public keys.
 * - Keys move as DER (SPKI, PKCS#8), never through a JWK export, and an ephemeral sealing key is made from 32 random
 *   bytes, not by a key-generation job: one process sealed for good after about 11,700 releases with
 *   generateKeyPairSync + JWK export (a deadlock in Node's crypto: ExportJWK -> GC -> ~KeyGenJob -> uv_mutex_lock).
 */
import {
  type KeyObject,
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  scryptSync,
  sign,
  verify
} from 'node:crypto'
import { beginScrypt } from './kdf-worker'

export const SCRYPT = { N: 2 ** 17, r: 8, p: 1 } as const
const SCRYPT_MAXMEM = 256 * 1024 * 1024
/** The most a wrapped key may ask of scrypt: the memory above (128 N r bytes) and N at most 2^20. */
const SCRYPT_MAX_N = 2 ** 20

const b64 = (b: Buffer | Uint8Array) => Buffer.from(b).toString('base64')
const unb64 = (s: string) => Buffer.from(s, 'base64')

/** DER prefixes of a raw 32-byte key: SPKI (public) and PKCS#8 (private) for Ed25519 (OID 1.3.101.112) and X25519 (1.3.101.110). */
const SPKI_PREFIX = { Ed25519: Buffer.from('302a300506032b6570032100', 'hex'), X25519: Buffer.from('302a300506032b656e032100', 'hex') }
const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex')

/** Raw 32-byte public key (base64) of an Ed25519 or X25519 key (public, or private: its public half). */
function rawPublic(k: KeyObject): string {
  const pub = k.type === 'private' ? createPublicKey(k) : k
  const der = pub.export({ format: 'der', type: 'spki' })
  const crv = pub.asymmetricKeyType === 'ed25519' ? 'Ed25519' : pub.asymmetricKeyType === 'x25519' ? 'X25519' : null
  if (crv === null || der.length !== 44 || !der.subarray(0, 12).equals(SPKI_PREFIX[crv])) throw new Error('not an Ed25519 or X25519 key')
  return b64(der.subarray(12))
}

function publicFromRaw(raw: string, crv: 'Ed25519' | 'X25519'): KeyObject {
  const key = unb64(raw)
  if (key.length !== 32) throw new Error('not a 32-byte public key')
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX[crv], key]), format: 'der', type: 'spki' })
}

/** A fresh X25519 private key from 32 random bytes (no key-generation job). */
function ephemeralX25519(): KeyObject {
  const raw = randomBytes(32)
  const der = Buffer.concat([PKCS8_X25519_PREFIX, raw])
  raw.fill(0)
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
  } finally {
    der.fill(0)
  }
}

/**
 * Why a wrapped key's KDF parameters are refused, or null: scrypt with N a power of two from 2^10 to 2^20, r from 1 to
 * 32, p from 1 to 16, within scrypt's own limits at most 256 MiB of memory, a salt of 16 to 64 bytes. The parameters are
 * read from the file, so a file writer could otherwise lock the officer out (N = 2^30, or a set scrypt refuses: an
 * unexpected failure at every act while `ledger verify` says ok) or make every try take minutes. Every set accepted
 * here is one scrypt derives with.
 */
export function kdfProblem(wrapped: WrappedKeys): string | null {
  const k = (wrapped as { kdf?: Partial<WrappedKeys['kdf']> } | null)?.kdf
  if (!k || k.alg !== 'scrypt') return 'the key derivation is not scrypt'
  const { N, r, p } = k
  const whole = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x > 0
  if (!whole(N) || !whole(r) || !whole(p)) return 'the scrypt parameters are not whole numbers'
  const log2 = Math.log2(N)
  if (!Number.isInteger(log2) || N < 2 ** 10 || N > SCRYPT_MAX_N)
    return `scrypt N = ${Number.isInteger(log2) ? `2^${log2}` : N} is out of bounds (2^10 to 2^20)`
  if (r > 32 || p > 16) return `scrypt r = ${r}, p = ${p} is out of bounds (r at most 32, p at most 16)`
  // scrypt's own limits (OpenSSL's EVP_PBE_scrypt): N below 2^(16 r), and 128 r (N + 2 + p) bytes within maxmem.
  if (log2 >= 16 * r) return `scrypt N = 2^${log2} is not below 2^${16 * r}, the bound r = ${r} sets`
  if (128 * r * (N + 2 + p) > SCRYPT_MAXMEM) return `scrypt N = 2^${log2}, r = ${r}, p = ${p} needs more than ${SCRYPT_MAXMEM / 2 ** 20} MiB`
  const salt = typeof k.salt === 'string' ? unb64(k.salt).length : 0
  if (salt < 16 || salt > 64) return 'the scrypt salt is not 16 to 64 bytes'
  return null
}

export function keyIdOf(signPublic: string, sealPublic: string): string {
  return createHash('sha256').update(unb64(signPublic)).update(unb64(sealPublic)).digest('hex').slice(0, 32)
}

export interface WrappedKeys {
  v: 1
  kdf: { alg: 'scrypt'; N: number; r: number; p: number; salt: string }
  aead: { alg: 'aes-256-gcm'; iv: string; tag: string; data: string }
}

export interface NewKeyPair {
  keyId: string
  signPublic: string
  sealPublic: string
  wrapped: WrappedKeys
  signKey: KeyObject
  sealKey: KeyObject
}

function kek(passphrase: string, kdf: WrappedKeys['kdf']): Buffer {
  return scryptSync(passphrase.normalize('NFC'), unb64(kdf.salt), 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: SCRYPT_MAXMEM })
}

export function createKeyPair(passphrase: string): NewKeyPair {
  const ed = generateKeyPairSync('ed25519')
  const x = generateKeyPairSync('x25519')
  const signPublic = rawPublic(ed.publicKey)
  const sealPublic = rawPublic(x.publicKey)
  const keyId = keyIdOf(signPublic, sealPublic)
  const kdf = { alg: 'scrypt' as const, ...SCRYPT, salt: b64(randomBytes(16)) }
  const key = kek(passphrase, kdf)
  const iv = randomBytes(12)
  const c = createCipheriv('aes-256-gcm', key, iv)
  c.setAAD(Buffer.from(`quiet-alarm/officer-key/v1\n${keyId}`))
  const plain = Buffer.from(
    JSON.stringify({
      sign: b64(ed.privateKey.export({ format: 'der', type: 'pkcs8' })),
      seal: b64(x.privateKey.export({ format: 'der', type: 'pkcs8' }))
    })
  )
  const data = Buffer.concat([c.update(plain), c.final()])
  plain.fill(0)
  key.fill(0)
  return {
    keyId,
    signPublic,
    sealPublic,
    wrapped: { v: 1, kdf, aead: { alg: 'aes-256-gcm', iv: b64(iv), tag: b64(c.getAuthTag()), data: b64(data) } },
    signKey: ed.privateKey,
    sealKey: x.privateKey
  }
}

/** The private keys, or null when the passphrase is wrong (or the wrapped keys were altered). */
export function unwrapKeys(
  keyId: string,
  wrapped: WrappedKeys,
  passphrase: string,
  publicKeys?: { signPublic: string; sealPublic: string }
): { signKey: KeyObject; sealKey: KeyObject } | null {
  if (!unwrappable(wrapped)) return null
  return openWrapped(keyId, wrapped, kek(passphrase, wrapped.kdf), publicKeys)
}

/**
 * `unwrapKeys` with the key derivation begun on the KDF worker (kdf-worker.ts) while the caller works: `wait()` gives
 * what `unwrapKeys` gives, once.
 */
export function beginUnwrapKeys(
  keyId: string,
  wrapped: WrappedKeys,
  passphrase: string,
  publicKeys?: { signPublic: string; sealPublic: string }
): { wait(): { signKey: KeyObject; sealKey: KeyObject } | null } {
  if (!unwrappable(wrapped)) return { wait: () => null }
  const { salt, N, r, p } = wrapped.kdf
  const derived = beginScrypt(passphrase.normalize('NFC'), { salt, N, r, p, maxmem: SCRYPT_MAXMEM })
  return { wait: () => openWrapped(keyId, wrapped, derived.wait(), publicKeys) }
}

function unwrappable(wrapped: WrappedKeys): boolean {
  return wrapped.v === 1 && kdfProblem(wrapped) === null && wrapped.aead?.alg === 'aes-256-gcm'
}

/** The private keys under the key-encryption key `key` (zeroed here), or null when the GCM tag or the keys do not match. */
function openWrapped(
  keyId: string,
  wrapped: WrappedKeys,
  key: Buffer,
  publicKeys?: { signPublic: string; sealPublic: string }
): { signKey: KeyObject; sealKey: KeyObject } | null {
  try {
    const d = createDecipheriv('aes-256-gcm', key, unb64(wrapped.aead.iv))
    d.setAAD(Buffer.from(`quiet-alarm/officer-key/v1\n${keyId}`))
    d.setAuthTag(unb64(wrapped.aead.tag))
    const plain = Buffer.concat([d.update(unb64(wrapped.aead.data)), d.final()])
    const parsed = JSON.parse(plain.toString('utf8')) as { sign: string; seal: string }
    plain.fill(0)
    const keys = {
      signKey: createPrivateKey({ key: unb64(parsed.sign), format: 'der', type: 'pkcs8' }),
      sealKey: createPrivateKey({ key: unb64(parsed.seal), format: 'der', type: 'pkcs8' })
    }
    // The private keys must be those of the registered public keys (a wrapped blob of other keys opens to nothing).
    if (publicKeys && (rawPublic(keys.signKey) !== publicKeys.signPublic || rawPublic(keys.sealKey) !== publicKeys.sealPublic)) return null
    return keys
  } catch {
    return null
  } finally {
    key.fill(0)
  }
}

export function signText(signKey: KeyObject, text: string): string {
  return b64(sign(null, Buffer.from(text, 'utf8'), signKey))
}

/** Signatures already checked (a pure function of its inputs): the kernel checks the same ones at every admission. */
const verified = new Map<string, boolean>()
const VERIFIED_MAX = 100_000

export function verifyText(signPublic: string, text: string, signature: string): boolean {
  const memo = `${signPublic}\n${signature}\n${text}`
  const known = verified.get(memo)
  if (known !== undefined) return known
  let ok: boolean
  try {
    ok = verify(null, Buffer.from(text, 'utf8'), publicFromRaw(signPublic, 'Ed25519'), unb64(signature))
  } catch {
    ok = false
  }
  if (verified.size >= VERIFIED_MAX) verified.clear()
  verified.set(memo, ok)
  return ok
}

// ---------------------------------------------------------------------------------------------------------------
// Sealing

export interface SealedRecipient {
  keyId: string
  epk: string
  iv: string
  tag: string
  key: string
}

export interface Sealed {
  v: 1
  iv: string
  tag: string
  data: string
  recipients: SealedRecipient[]
}

function wrappingKey(shared: Buffer, epk: string, recipientPublic: string, context: string): Buffer {
  const salt = Buffer.concat([unb64(epk), unb64(recipientPublic)])
  return Buffer.from(hkdfSync('sha256', shared, salt, Buffer.from(`quiet-alarm/seal/v1\n${context}`), 32))
}

/** Encrypt `plaintext` to every recipient's X25519 public key. */
export function seal(plaintext: string, context: string, recipients: Array<{ keyId: string; sealPublic: string }>): Sealed {
  if (recipients.length === 0) throw new Error('sealing needs at least one recipient')
  const cek = randomBytes(32)
  const iv = randomBytes(12)
  const c = createCipheriv('aes-256-gcm', cek, iv)
  c.setAAD(Buffer.from(`quiet-alarm/sealed/v1\n${context}`))
  const data = Buffer.concat([c.update(Buffer.from(plaintext, 'utf8')), c.final()])
  const out: Sealed = { v: 1, iv: b64(iv), tag: b64(c.getAuthTag()), data: b64(data), recipients: [] }
  for (const r of recipients) {
    const eph = ephemeralX25519()
    const epk = rawPublic(eph)
    const shared = diffieHellman({ privateKey: eph, publicKey: publicFromRaw(r.sealPublic, 'X25519') })
    const wk = wrappingKey(shared, epk, r.sealPublic, context)
    const wiv = randomBytes(12)
    const w = createCipheriv('aes-256-gcm', wk, wiv)
    w.setAAD(Buffer.from(`quiet-alarm/sealed-key/v1\n${context}\n${r.keyId}`))
    const key = Buffer.concat([w.update(cek), w.final()])
    out.recipients.push({ keyId: r.keyId, epk, iv: b64(wiv), tag: b64(w.getAuthTag()), key: b64(key) })
    shared.fill(0)
    wk.fill(0)
  }
  cek.fill(0)
  return out
}

/** Decrypt with one recipient's X25519 private key; null when it is not a recipient or anything was altered. */
export function unseal(sealed: Sealed, context: string, keyId: string, sealPublic: string, sealKey: KeyObject): string | null {
  const r = sealed.recipients.find((x) => x.keyId === keyId)
  if (!r) return null
  try {
    const shared = diffieHellman({ privateKey: sealKey, publicKey: publicFromRaw(r.epk, 'X25519') })
    const wk = wrappingKey(shared, r.epk, sealPublic, context)
    const w = createDecipheriv('aes-256-gcm', wk, unb64(r.iv))
    w.setAAD(Buffer.from(`quiet-alarm/sealed-key/v1\n${context}\n${keyId}`))
    w.setAuthTag(unb64(r.tag))
    const cek = Buffer.concat([w.update(unb64(r.key)), w.final()])
    const d = createDecipheriv('aes-256-gcm', cek, unb64(sealed.iv))
    d.setAAD(Buffer.from(`quiet-alarm/sealed/v1\n${context}`))
    d.setAuthTag(unb64(sealed.tag))
    const plain = Buffer.concat([d.update(unb64(sealed.data)), d.final()]).toString('utf8')
    cek.fill(0)
    return plain
  } catch {
    return null
  }
}
