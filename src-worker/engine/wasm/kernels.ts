/**
 * The engine's WebAssembly kernels: hand-written WebAssembly text (`*.wat` beside this file), assembled by
 * resources/scripts/build-wasm.mjs into `*.wasm.ts` (the bytes as base64; a unit test assembles the sources again and
 * compares). Each kernel has a JavaScript twin that performs the same IEEE operations in the same order, so results do
 * not depend on which one ran; the twin runs where WebAssembly (with 128-bit SIMD) is missing, for inputs too small to
 * be worth a call, and when `useWasmKernels(false)` was called (tests and benchmarks compare the two).
 */
import { SearchUpdateWasm } from './search-update.wasm'
import { SamplersWasm } from './samplers.wasm'
import { SingleStepWasm } from './single-step.wasm'

let enabled = true
const compiled = new Map<string, WebAssembly.Module | null>()

/** Turns the kernels off (false: every caller takes its JavaScript twin) or on again. */
export function useWasmKernels(on: boolean): void {
  enabled = on
}

/** Whether the kernels run (WebAssembly with SIMD is present and they were not turned off). */
export function wasmKernelsEnabled(): boolean {
  return enabled && searchUpdateModule() !== null && compile('single-step', SingleStepWasm) !== null && compile('samplers', SamplersWasm) !== null
}

function decodeBase64(b64: string): Uint8Array<ArrayBuffer> {
  const text = atob(b64)
  const bytes = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i)
  return bytes
}

function compile(name: string, b64: string): WebAssembly.Module | null {
  if (!compiled.has(name)) {
    let mod: WebAssembly.Module | null = null
    try {
      // Compiling validates; a runtime without SIMD refuses the module and the callers use their twins.
      if (typeof WebAssembly === 'object') mod = new WebAssembly.Module(decodeBase64(b64))
    } catch {
      mod = null
    }
    compiled.set(name, mod)
  }
  return compiled.get(name) ?? null
}

function searchUpdateModule(): WebAssembly.Module | null {
  return compile('search-update', SearchUpdateWasm)
}

/**
 * search-update.wat: the search round's posterior update over whole words of parts, and the members of one part (see the
 * .wat for the layout).
 */
export interface SearchUpdateKernel {
  readonly memory: WebAssembly.Memory
  update(w: number, l: number, parts: number, next: number, words: number): number
  tables(threshold: number, factorOut: number, factorQ: number, shiftOut: number, shiftQ: number): void
  reduce(): void
  members(parts: number, words: number, part: number, n: number, out: number): number
  deal(cur: number, cnt: number, keys: number, w: number, sub: number, stride: number, count: number, mass: number): void
  assign(sub: number, cnt: number, parts: number, value: number): void
}

/** An instance of `mod` on a memory of its own of at least `bytes` bytes, or null when the kernels do not run. */
function instantiate(mod: WebAssembly.Module | null, bytes: number): { memory: WebAssembly.Memory; exports: WebAssembly.Exports } | null {
  if (!enabled || mod === null) return null
  const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) })
  const instance = new WebAssembly.Instance(mod, { env: { memory } })
  return { memory, exports: instance.exports }
}

/** A search-update kernel on a memory of its own of at least `bytes` bytes, or null when the kernels do not run. */
export function searchUpdateKernel(bytes: number): SearchUpdateKernel | null {
  const k = instantiate(searchUpdateModule(), bytes)
  return k === null
    ? null
    : {
        memory: k.memory,
        update: k.exports.update as SearchUpdateKernel['update'],
        tables: k.exports.tables as SearchUpdateKernel['tables'],
        reduce: k.exports.reduce as SearchUpdateKernel['reduce'],
        members: k.exports.members as SearchUpdateKernel['members'],
        deal: k.exports.deal as SearchUpdateKernel['deal'],
        assign: k.exports.assign as SearchUpdateKernel['assign']
      }
}

/** single-step.wat: NLM / TSLM decisions from sample words and 64-bit cuts (see the .wat for the layout). */
export interface SingleStepKernel {
  readonly memory: WebAssembly.Memory
  decide(words: number, cuts: number, out: number, pairs: number): number
  decideLanes(state: number, cuts: number, out: number, pairs: number): number
}

/** A single-step kernel on a memory of its own of at least `bytes` bytes, or null when the kernels do not run. */
export function singleStepKernel(bytes: number): SingleStepKernel | null {
  const k = instantiate(compile('single-step', SingleStepWasm), bytes)
  return k === null
    ? null
    : {
        memory: k.memory,
        decide: k.exports.decide as SingleStepKernel['decide'],
        decideLanes: k.exports.decideLanes as SingleStepKernel['decideLanes']
      }
}

/** samplers.wat: Laplace draws and noise relaxation, two lanes per vector (see the .wat for the layout). */
export interface SamplersKernel {
  readonly memory: WebAssembly.Memory
  laplace(words: number, out: number, pairs: number, scale: number): void
  relax(
    values: number,
    words: number,
    pairs: number,
    rate: number,
    keepScale: number,
    pNeg: number,
    insideScale: number,
    invSum: number,
    invDiff: number
  ): void
}

/** A samplers kernel on a memory of its own of at least `bytes` bytes, or null when the kernels do not run. */
export function samplersKernel(bytes: number): SamplersKernel | null {
  const k = instantiate(compile('samplers', SamplersWasm), bytes)
  return k === null
    ? null
    : { memory: k.memory, laplace: k.exports.laplace as SamplersKernel['laplace'], relax: k.exports.relax as SamplersKernel['relax'] }
}
