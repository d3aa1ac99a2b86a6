;; NLM / TSLM decisions (mide/single-step.ts `runShiftedLaplace`), two draws per 128-bit vector. Assembled by
;; resources/scripts/build-wasm.mjs (wabt) into single-step.wasm.ts.
;;
;; A draw is two sample words (hi, lo) (batch-samplers.ts); its 53-bit key is y = s 2^52 + x with s = bit 31 of hi and
;; x = (hi mod 2^20) 2^32 + lo. The predicate is decided positive when y > cut, cut a whole number in [-1, 2^53)
;; (single-step.ts derives it from the predicate's threshold on the noise).
;;
;; Memory (imported; the caller lays it out, offsets in bytes, 16-byte aligned):
;;   words  2 pairs words per call: hi, lo of draw 0, hi, lo of draw 1, ...
;;   state  the four xoshiro128** lanes of a seeded generator (random.ts `laneState`): state word w of lanes 0-3 at
;;          state + 16 w
;;   cuts   the cuts as signed 64-bit integers, one per draw
;;   out    one byte per draw: 1 = positive, 0 = not
;;
;; `decide` processes `pairs` pairs of draws from `words` and returns how many it decided positive. `decideLanes` does
;; the same with the words of the lanes, stepped as one vector (one step: lanes 0-3 give hi, lo of one draw and hi, lo
;; of the next, as `xoshiroLanesFill` lays them out), and leaves the advanced states in memory. The decisions are
;; integer comparisons: the JavaScript twin (single-step.ts with xoshiro.ts) gives the same bytes.
(module
  (import "env" "memory" (memory 1))
  (func (export "decide") (param $words i32) (param $cuts i32) (param $out i32) (param $pairs i32) (result i32)
    (local $end i32) (local $w v128) (local $sw v128) (local $y v128) (local $d v128) (local $pos v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $pairs) (i32.const 1))))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        ;; (hi0, lo0, hi1, lo1) -> two 64-bit lanes hi 2^32 + lo
        (local.set $w (v128.load (local.get $words)))
        (local.set $sw (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $w) (local.get $w)))
        ;; y = s 2^52 + x: the low 52 bits kept, bit 63 moved to bit 52
        (local.set $y
          (v128.or
            (v128.and (local.get $sw) (v128.const i64x2 0x000fffffffffffff 0x000fffffffffffff))
            (v128.and (i64x2.shr_u (local.get $sw) (i32.const 11)) (v128.const i64x2 0x0010000000000000 0x0010000000000000))))
        (local.set $d (i64x2.gt_s (local.get $y) (v128.load (local.get $cuts))))
        ;; each lane of d is -1 (positive) or 0
        (local.set $pos (i64x2.sub (local.get $pos) (local.get $d)))
        (v128.store16_lane 0 (local.get $out)
          (i8x16.neg (i8x16.shuffle 0 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0 (local.get $d) (local.get $d))))
        (local.set $words (i32.add (local.get $words) (i32.const 16)))
        (local.set $cuts (i32.add (local.get $cuts) (i32.const 16)))
        (local.set $out (i32.add (local.get $out) (i32.const 2)))
        (br $pair)))
    (i32.wrap_i64 (i64.add (i64x2.extract_lane 0 (local.get $pos)) (i64x2.extract_lane 1 (local.get $pos)))))

  (func (export "decideLanes") (param $state i32) (param $cuts i32) (param $out i32) (param $pairs i32) (result i32)
    (local $end i32) (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128) (local $r v128) (local $t v128)
    (local $w v128) (local $sw v128) (local $y v128) (local $d v128) (local $pos v128)
    (local.set $s0 (v128.load (local.get $state)))
    (local.set $s1 (v128.load offset=16 (local.get $state)))
    (local.set $s2 (v128.load offset=32 (local.get $state)))
    (local.set $s3 (v128.load offset=48 (local.get $state)))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $pairs) (i32.const 1))))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        ;; xoshiro128** in each lane: result = rotl(s1 * 5, 7) * 9; t = s1 << 9; s2 ^= s0; s3 ^= s1; s1 ^= s2;
        ;; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11)
        (local.set $r (i32x4.mul (local.get $s1) (v128.const i32x4 5 5 5 5)))
        (local.set $w
          (i32x4.mul (v128.or (i32x4.shl (local.get $r) (i32.const 7)) (i32x4.shr_u (local.get $r) (i32.const 25)))
            (v128.const i32x4 9 9 9 9)))
        (local.set $t (i32x4.shl (local.get $s1) (i32.const 9)))
        (local.set $s2 (v128.xor (local.get $s2) (local.get $s0)))
        (local.set $s3 (v128.xor (local.get $s3) (local.get $s1)))
        (local.set $s1 (v128.xor (local.get $s1) (local.get $s2)))
        (local.set $s0 (v128.xor (local.get $s0) (local.get $s3)))
        (local.set $s2 (v128.xor (local.get $s2) (local.get $t)))
        (local.set $s3 (v128.or (i32x4.shl (local.get $s3) (i32.const 11)) (i32x4.shr_u (local.get $s3) (i32.const 21))))
        ;; (hi0, lo0, hi1, lo1) -> two 64-bit lanes hi 2^32 + lo
        (local.set $sw (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $w) (local.get $w)))
        ;; y = s 2^52 + x: the low 52 bits kept, bit 63 moved to bit 52
        (local.set $y
          (v128.or
            (v128.and (local.get $sw) (v128.const i64x2 0x000fffffffffffff 0x000fffffffffffff))
            (v128.and (i64x2.shr_u (local.get $sw) (i32.const 11)) (v128.const i64x2 0x0010000000000000 0x0010000000000000))))
        (local.set $d (i64x2.gt_s (local.get $y) (v128.load (local.get $cuts))))
        ;; each lane of d is -1 (positive) or 0
        (local.set $pos (i64x2.sub (local.get $pos) (local.get $d)))
        (v128.store16_lane 0 (local.get $out)
          (i8x16.neg (i8x16.shuffle 0 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0 (local.get $d) (local.get $d))))
        (local.set $cuts (i32.add (local.get $cuts) (i32.const 16)))
        (local.set $out (i32.add (local.get $out) (i32.const 2)))
        (br $pair)))
    (v128.store (local.get $state) (local.get $s0))
    (v128.store offset=16 (local.get $state) (local.get $s1))
    (v128.store offset=32 (local.get $state) (local.get $s2))
    (v128.store offset=48 (local.get $state) (local.get $s3))
    (i32.wrap_i64 (i64.add (i64x2.extract_lane 0 (local.get $pos)) (i64x2.extract_lane 1 (local.get $pos)))))
)
