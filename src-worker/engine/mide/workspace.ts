import { type LaneSamplerMemory, laneSamplerMemory } from '../lane-samplers'

/**
 * The buffers of one threshold run. A single run (a release, `runThresholdMechanism`) gets fresh ones; a Monte Carlo
 * batch (`runThresholdTrials`) makes one workspace and reuses it for every trial, so a trial allocates no per-predicate
 * arrays. A mechanism's result (`MechanismCore`) points into its workspace: it is valid until the next run on it.
 */
export class ThresholdWorkspace {
  readonly k: number
  /** 1 = reported positive */
  readonly decisions: Uint8Array
  /** the same bytes four at a time (the buffer is padded to whole words with zeros that nothing writes) */
  readonly decisionWords: Uint32Array
  /** ex-post eps per predicate */
  readonly exPost: Float64Array
  /** the current noise value per predicate (relaxed in place by the multi-step mechanisms) */
  readonly noise: Float64Array
  /** count + noise (DPPWLM's prediction reads the last noisy values) */
  readonly noisy: Float64Array
  /** indices still undecided, and the next step's list */
  undecided: Int32Array
  next: Int32Array
  /** NLM/TSLM: the cut on each draw's 53-bit key (single-step.ts), the inputs they were computed for, and how many
   * times they were computed (the kernel's copy is of one version) */
  readonly singleStepCuts: {
    cut: Float64Array
    counts: ArrayLike<number> | null
    thresholds: ArrayLike<number> | null
    eps: number
    shift: number
    version: number
  }
  /** DPPWLM: candidate scores by their exact level sequence (the scoring is deterministic: same input, same bits) */
  readonly scoreMemo = new Map<string, number>()

  constructor(k: number) {
    this.k = k
    const words = Math.ceil(k / 4)
    this.decisionWords = new Uint32Array(words)
    this.decisions = new Uint8Array(this.decisionWords.buffer, 0, k)
    this.exPost = new Float64Array(k)
    this.noise = new Float64Array(k)
    this.noisy = new Float64Array(k)
    this.undecided = new Int32Array(k)
    this.next = new Int32Array(k)
    this.singleStepCuts = { cut: new Float64Array(k), counts: null, thresholds: null, eps: NaN, shift: NaN, version: 0 }
  }

  private laneMemory: LaneSamplerMemory | null = null

  /** PPWLM's noise values and sample words (lane-samplers.ts: in the kernel's memory when it runs), made on first use. */
  lanes(): LaneSamplerMemory {
    return (this.laneMemory ??= laneSamplerMemory(this.k))
  }

  /** Swap the undecided list with the next step's. */
  swapLists(): void {
    const t = this.undecided
    this.undecided = this.next
    this.next = t
  }
}
