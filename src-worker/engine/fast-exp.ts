/**
 * exp(-x) for x >= 0 by tables, for the hot loops of the samplers (Math.exp is an out-of-line call costing about 8-12 ns
 * here; this is about 3.5 ns). With k = round(256 x / ln 2) and r = x - k ln2/256 (|r| <= ln2/512, the product k ln2/256
 * in two parts, fdlibm's ln2_hi and ln2_lo, so that it is exact for k < 2^21):
 *   exp(-x) = 2^-(k >> 8) * 2^-((k & 255)/256) * exp(-r),
 * exp(-r) by its series to r^5 (the rest is below 1e-20). Relative error below 5e-16 (a few units in the last place)
 * while the result is a normal double (x < 708); tested against Math.exp. Other arguments go to Math.exp.
 */
const FRACTION = new Float64Array(256) // 2^(-j/256)
for (let j = 0; j < 256; j++) FRACTION[j] = 2 ** (-j / 256)
const WHOLE = new Float64Array(1076) // 2^-m, down to the smallest subnormal
for (let m = 0; m < WHOLE.length; m++) WHOLE[m] = 2 ** -m
const K_PER_X = 256 / Math.LN2
const STEP_HI = 6.9314718036912381649e-1 / 256 // ln2_hi / 256: the low 21 bits of its significand are 0
const STEP_LO = 1.90821492927058770002e-10 / 256 // ln2_lo / 256

export function expNegative(x: number): number {
  if (!(x >= 0 && x < 745.2)) return Math.exp(-x)
  const k = Math.round(x * K_PER_X)
  const r = x - k * STEP_HI - k * STEP_LO
  const p = 1 - r * (1 - r * (0.5 - r * (0.16666666666666666 - r * (0.041666666666666664 - r * 0.008333333333333333))))
  return FRACTION[k & 255] * WHOLE[k >>> 8] * p
}
