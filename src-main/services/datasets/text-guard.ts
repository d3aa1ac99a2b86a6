/**
 * A byte-stream check in front of the CSV parser: the file must be UTF-8 text. It counts bytes and lines, refuses
 * binary files (judged on the first block), NUL bytes and invalid UTF-8, each with the line where it happens.
 * Chunks are passed on unchanged (the parser decodes them); a multi-byte character split across chunks is handled.
 */
import { isUtf8 } from 'node:buffer'
import { Transform, type TransformCallback } from 'node:stream'
import { UserError } from '../platform/errors'

const SNIFF_BYTES = 8192

export class TextGuard extends Transform {
  /** Bytes passed on so far. */
  bytes = 0
  /** Newlines seen so far. */
  private newlines = 0
  private carry: Buffer = Buffer.alloc(0)
  private sniffed = false
  /** True when the file starts with a UTF-8 byte order mark. */
  hasBom = false

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      let buf = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk
      if (!this.sniffed) {
        if (buf.length < 4 && chunk.length > 0) {
          // Too little to judge the byte order mark yet.
          this.carry = buf
          cb()
          return
        }
        this.sniffed = true
        sniff(buf)
        this.hasBom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf
      }
      const keep = incompleteTail(buf)
      const body = keep ? buf.subarray(0, buf.length - keep) : buf
      this.carry = keep ? Buffer.from(buf.subarray(buf.length - keep)) : Buffer.alloc(0)
      this.check(body)
      this.bytes += body.length
      buf = body
      cb(null, buf)
    } catch (e) {
      cb(e as Error)
    }
  }

  override _flush(cb: TransformCallback): void {
    try {
      const rest = this.carry
      this.carry = Buffer.alloc(0)
      if (!this.sniffed && rest.length) {
        this.sniffed = true
        sniff(rest)
        this.hasBom = rest.length >= 3 && rest[0] === 0xef && rest[1] === 0xbb && rest[2] === 0xbf
      }
      if (rest.length) {
        this.check(rest)
        this.bytes += rest.length
        this.push(rest)
      }
      cb()
    } catch (e) {
      cb(e as Error)
    }
  }

  private check(body: Buffer): void {
    const nul = body.indexOf(0)
    const valid = isUtf8(body)
    if (nul < 0 && valid) {
      this.newlines += countNewlines(body, body.length)
      return
    }
    const bad = valid ? body.length : firstInvalidUtf8(body)
    if (nul >= 0 && nul <= bad) {
      const line = this.newlines + countNewlines(body, nul) + 1
      throw new UserError(`Line ${line} contains a NUL byte, which CSV text never has; the file may be binary or corrupted`, 'bad-file')
    }
    const line = this.newlines + countNewlines(body, bad) + 1
    throw new UserError(
      `Line ${line} is not valid UTF-8 text (byte ${this.bytes + bad + 1} of the file); save the file as UTF-8 and import it again`,
      'bad-file'
    )
  }
}

function countNewlines(buf: Buffer, end: number): number {
  let n = 0
  let i = buf.indexOf(10)
  while (i >= 0 && i < end) {
    n++
    i = buf.indexOf(10, i + 1)
  }
  return n
}

/** Refuses files that are obviously not UTF-8 text, judging by their first block. */
function sniff(buf: Buffer): void {
  if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) {
    throw new UserError('The file is UTF-16 text; save it as UTF-8 (CSV UTF-8) and import it again', 'bad-file')
  }
  const head = buf.subarray(0, SNIFF_BYTES)
  let control = 0
  for (let i = 0; i < head.length; i++) {
    const b = head[i]
    if ((b < 0x20 && b !== 9 && b !== 10 && b !== 13 && b !== 12) || b === 0x7f) control++
  }
  // Text has essentially no control characters; more than 5% (or many NULs) means binary.
  if (head.length > 0 && control > Math.max(4, head.length * 0.05)) {
    throw new UserError('The file is binary, not CSV or TSV text; choose a text file with a header row', 'bad-file')
  }
}

/** How many bytes at the end of `buf` start a multi-byte character that is not complete yet (0..3). */
function incompleteTail(buf: Buffer): number {
  const n = buf.length
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = buf[n - back]
    if ((b & 0xc0) === 0x80) continue // continuation byte: look further back
    const need = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 1
    return need > back ? back : 0
  }
  return 0
}

/** Index of the first byte that is not part of a valid UTF-8 sequence. */
export function firstInvalidUtf8(buf: Buffer): number {
  let i = 0
  const n = buf.length
  while (i < n) {
    const b = buf[i]
    if (b < 0x80) {
      i++
      continue
    }
    let need: number
    let min: number
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1
      min = 0x80
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2
      min = 0x800
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3
      min = 0x10000
    } else return i
    let cp = b & (0x3f >> need)
    for (let k = 1; k <= need; k++) {
      const c = buf[i + k]
      if (c === undefined || (c & 0xc0) !== 0x80) return i
      cp = (cp << 6) | (c & 0x3f)
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i
    i += need + 1
  }
  return n
}
