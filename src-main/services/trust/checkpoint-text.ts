/** The text an officer's checkpoint signature covers (written by checkpoints.ts, checked by the trust kernel). */
import { createHash } from 'node:crypto'

/**
 * What a checkpoint signs: both heads, and the previous checkpoint's signature (hashed), so that checkpoints form a chain
 * of their own: removing one before the last breaks the signature of the next.
 */
export function checkpointText(c: {
  at: string
  ledgerSeq: number
  ledgerHash: string
  auditId: number
  auditHash: string
  keyId: string
  prevSignature: string | null
}): string {
  const prev = c.prevSignature === null ? 'none' : createHash('sha256').update(c.prevSignature).digest('hex')
  return `quiet-alarm/checkpoint/v1\n${c.at}\n${c.ledgerSeq}\n${c.ledgerHash}\n${c.auditId}\n${c.auditHash}\n${c.keyId}\n${prev}`
}
