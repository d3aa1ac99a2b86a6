/**
 * The arrays of one search's hot loops, in the search kernel's memory when the kernel runs (wasm/search-update.wat):
 * the posterior's weights and log-weights and the update's tables (log-posterior.ts), the two buffers of the packed
 * parts that the split and the update share (random-prefix.ts: the current round's and the next round's), the list
 * of the crossing part's members and the deeper levels' arrays. Without the kernel (no WebAssembly SIMD, turned off, or fewer than
 * KERNEL_MIN_SIZE individuals) the same arrays are plain typed arrays and every loop runs in JavaScript.
 *
 * Layout (bytes): the update's tables at 0 (TABLE_BYTES), then each array 16-byte aligned with a size rounded up to 16
 * bytes, so that the kernel's 16-byte loads never leave an array's region.
 */
import { partWords } from './packed-parts'
import { type SearchUpdateKernel, searchUpdateKernel } from '../wasm/kernels'

/** Bytes of the update's factor and shift tables and pair sums (256 pairs of doubles each), then the 16 part masses. */
export const TABLE_BYTES = 3 * 4096 + 16 * 8
/** parts per deeper level of the split (three key bits per candidate and level), ten to a random word */
export const WAYS = 8
export const WAYS_PER_WORD = 10

/** Below this many individuals the loops stay in JavaScript (the tables cost a round about as much as the pass). */
export const KERNEL_MIN_SIZE = 256

function align16(bytes: number): number {
  return Math.ceil(bytes / 16) * 16
}

/** The kernel on a memory of `bytes`, or null when it does not run or that memory cannot be had (the twin runs). */
function kernelOrNull(bytes: number): SearchUpdateKernel | null {
  try {
    return searchUpdateKernel(bytes)
  } catch {
    return null
  }
}

export class SearchMemory {
  readonly size: number
  /** the kernel over this memory, or null (JavaScript loops) */
  readonly kernel: SearchUpdateKernel | null
  /** the update's factor table, shift table, pair sums and part masses (TABLE_BYTES) */
  readonly tables: Float64Array
  readonly weight: Float64Array
  readonly logF: Float64Array
  /** the two buffers of packed parts (partWords(size) words each) */
  readonly parts: readonly [Int32Array, Int32Array]
  /** where the update copies parts that lie outside this memory (a posterior used without a shared RandomPrefix) */
  readonly copies: readonly [Int32Array, Int32Array]
  /** the crossing part's members (up to `size` indices) */
  readonly members: Int32Array
  /**
   * A deeper level's random words (ten candidates a word), its eight parts (part g at g * subStride), counts and
   * masses. The crossing part holds Binomial(size, 1/16) individuals: subStride leaves room for 1.5 times its mean plus
   * 64, and a split with a larger one deals in the JavaScript twin's arrays (random-prefix.ts).
   */
  readonly keyWords: Int32Array
  readonly sub: Int32Array
  readonly subStride: number
  readonly dealCount: Int32Array
  readonly dealMass: Float64Array

  constructor(size: number) {
    this.size = size
    const words = partWords(size)
    const wordBytes = align16(4 * words)
    const wAt = TABLE_BYTES
    const lAt = wAt + align16(8 * size)
    const partsAt = lAt + align16(8 * size)
    const copiesAt = partsAt + 2 * wordBytes
    const membersAt = copiesAt + 2 * wordBytes
    const keys = Math.ceil(size / WAYS_PER_WORD)
    const keysAt = membersAt + align16(4 * size)
    const subStride = Math.min(size, Math.ceil((1.5 * size) / 16) + 64)
    const subAt = keysAt + align16(4 * keys)
    const countAt = subAt + align16(4 * WAYS * subStride)
    const massAt = countAt + align16(4 * WAYS)
    const end = massAt + 8 * WAYS
    const kernel = size >= KERNEL_MIN_SIZE ? kernelOrNull(end) : null
    this.kernel = kernel
    if (kernel !== null) {
      const buffer = kernel.memory.buffer
      this.tables = new Float64Array(buffer, 0, TABLE_BYTES / 8)
      this.weight = new Float64Array(buffer, wAt, size)
      this.logF = new Float64Array(buffer, lAt, size)
      this.parts = [new Int32Array(buffer, partsAt, words), new Int32Array(buffer, partsAt + wordBytes, words)]
      this.copies = [new Int32Array(buffer, copiesAt, words), new Int32Array(buffer, copiesAt + wordBytes, words)]
      this.members = new Int32Array(buffer, membersAt, size)
      this.keyWords = new Int32Array(buffer, keysAt, keys)
      this.sub = new Int32Array(buffer, subAt, WAYS * subStride)
      this.subStride = subStride
      this.dealCount = new Int32Array(buffer, countAt, WAYS)
      this.dealMass = new Float64Array(buffer, massAt, WAYS)
    } else {
      this.tables = new Float64Array(TABLE_BYTES / 8)
      this.weight = new Float64Array(size)
      this.logF = new Float64Array(size)
      this.parts = [new Int32Array(words), new Int32Array(words)]
      this.copies = this.parts
      this.members = new Int32Array(size)
      this.keyWords = new Int32Array(keys)
      this.sub = new Int32Array(0)
      this.subStride = 0
      this.dealCount = new Int32Array(WAYS)
      this.dealMass = new Float64Array(WAYS)
    }
  }

  /** Whether `a` lies in the kernel's memory (its byteOffset is then the kernel's address of it). */
  holds(a: ArrayBufferView): boolean {
    return this.kernel !== null && a.buffer === this.kernel.memory.buffer
  }
}
