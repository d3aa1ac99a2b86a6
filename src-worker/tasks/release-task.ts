/**
 * What the three release tasks (`release:<kind>`) share: a payload is data only (counts, framed columns,
 * scores and public parameters), never a generator or a seed; the worker draws with its own `SecureRandom.create()`.
 * The services' thread reads the private data and charges; the worker computes the noisy answer from that data.
 */
import { type Rng, SecureRandom, assertSecure } from '../engine/random'

/** Names a release payload may not use at any depth: a generator, its seed or its state could not be secure there. */
const GENERATOR_KEYS = new Set(['rng', 'seed', 'generator', 'random', 'state'])

/**
 * Throws when `payload` carries a generator or a seed: a key named like one, or an object shaped like a generator (a
 * `kind` of 'seeded' or 'secure', which is how a generator arrives after structured cloning).
 */
export function assertNoGenerator(payload: unknown, path = 'payload'): void {
  if (payload === null || typeof payload !== 'object' || ArrayBuffer.isView(payload)) return
  if (Array.isArray(payload)) {
    // Column values may be long arrays of numbers and strings: only their object entries need looking at.
    for (let i = 0; i < payload.length; i++) if (typeof payload[i] === 'object') assertNoGenerator(payload[i], `${path}[${i}]`)
    return
  }
  if (payload instanceof Set || payload instanceof Map) return
  const o = payload as Record<string, unknown>
  if (o.kind === 'seeded' || o.kind === 'secure') throw new Error(`A release task takes no generator (${path} looks like one)`)
  for (const key of Object.keys(o)) {
    if (GENERATOR_KEYS.has(key.toLowerCase())) throw new Error(`A release task takes no generator or seed (${path}.${key})`)
    assertNoGenerator(o[key], `${path}.${key}`)
  }
}

/** The worker's side of a release task: the payload checked for a generator, then the computation with a fresh secure one. */
export function runReleaseTask<P, R>(payload: P, compute: (payload: P, rng: Rng) => R): R {
  assertNoGenerator(payload)
  const rng = SecureRandom.create()
  assertSecure(rng)
  return compute(payload, rng)
}
