;; Laplace draws and noise relaxation, two lanes per 128-bit vector (the twins: engine/lane-samplers.ts, which performs
;; the same IEEE operations in the same order). Assembled by resources/scripts/build-wasm.mjs (wabt) into samplers.wasm.ts.
;;
;; A uniform is two sample words (hi, lo) (batch-samplers.ts): U = (x + 1/2) 2^-52 with x = (hi mod 2^20) 2^32 + lo.
;; Logarithms and exponentials are polynomials (no tables: a vector has no gather):
;;   ln u, u in (0, 1] normal: u = m 2^e with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f),
;;     ln m = 2 s (1 + s^2/3 + s^4/5 + ... + s^20/21) (|s| < 0.172: the rest is below 1e-19), ln u = e ln2_hi + (e ln2_lo + 2 s P);
;;   exp(-x), x >= 0 (above 708 taken as 708, where every use below gives the same result as the exact value):
;;     n = round(x / ln 2) (by adding and subtracting 1.5 2^52), r = (x - n ln2_hi) - n ln2_lo, exp(-x) = 2^-n exp(-r),
;;     exp(-r) by its series to r^13 (|r| <= 0.35: the rest is below 1e-17).
;;
;; Memory (imported; the caller lays it out, 16-byte aligned):
;;   `laplace`: words (hi, lo per draw, 2 pairs words), out (f64 per draw)
;;   `relax`:   values (f64 per item, relaxed in place), words (four per item: the branch uniform's hi, lo, the value
;;              uniform's hi, lo)
(module
  (import "env" "memory" (memory 1))

  ;; two 64-bit lanes hi 2^32 + lo from the words (hi0, lo0, hi1, lo1)
  (func $draws (param $w v128) (result v128)
    (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $w) (local.get $w)))

  ;; U = (x + 1/2) 2^-52 for the low 52 bits x of each lane (x exact as (2^52 + x) - 2^52)
  (func $uniform (param $sw v128) (result v128)
    (f64x2.mul
      (f64x2.add
        (f64x2.sub
          (v128.or (v128.and (local.get $sw) (v128.const i64x2 0x000fffffffffffff 0x000fffffffffffff))
            (v128.const i64x2 0x4330000000000000 0x4330000000000000))
          (v128.const f64x2 0x1p52 0x1p52))
        (v128.const f64x2 0.5 0.5))
      (v128.const f64x2 0x1p-52 0x1p-52)))

  ;; ln u for u in (0, 1], normal
  (func $log (param $u v128) (result v128)
    (local $e v128) (local $m v128) (local $big v128) (local $f v128) (local $s v128) (local $z v128) (local $p v128)
    ;; e = biased exponent - 1023 (exact, through 2^52 + biased exponent)
    (local.set $e
      (f64x2.sub
        (v128.or (i64x2.shr_u (local.get $u) (i32.const 52)) (v128.const i64x2 0x4330000000000000 0x4330000000000000))
        (v128.const f64x2 4503599627371519.0 4503599627371519.0)))
    (local.set $m
      (v128.or (v128.and (local.get $u) (v128.const i64x2 0x000fffffffffffff 0x000fffffffffffff))
        (v128.const i64x2 0x3ff0000000000000 0x3ff0000000000000)))
    (local.set $big (f64x2.gt (local.get $m) (v128.const f64x2 1.4142135623730951 1.4142135623730951)))
    (local.set $m (v128.bitselect (f64x2.mul (local.get $m) (v128.const f64x2 0.5 0.5)) (local.get $m) (local.get $big)))
    (local.set $e (v128.bitselect (f64x2.add (local.get $e) (v128.const f64x2 1 1)) (local.get $e) (local.get $big)))
    (local.set $f (f64x2.sub (local.get $m) (v128.const f64x2 1 1)))
    (local.set $s (f64x2.div (local.get $f) (f64x2.add (v128.const f64x2 2 2) (local.get $f))))
    (local.set $z (f64x2.mul (local.get $s) (local.get $s)))
    (local.set $p (v128.const f64x2 0.047619047619047616 0.047619047619047616)) ;; 1/21
    (local.set $p (f64x2.add (v128.const f64x2 0.05263157894736842 0.05263157894736842) (f64x2.mul (local.get $z) (local.get $p)))) ;; 1/19
    (local.set $p (f64x2.add (v128.const f64x2 0.058823529411764705 0.058823529411764705) (f64x2.mul (local.get $z) (local.get $p)))) ;; 1/17
    (local.set $p (f64x2.add (v128.const f64x2 0.06666666666666667 0.06666666666666667) (f64x2.mul (local.get $z) (local.get $p)))) ;; 1/15
    (local.set $p (f64x2.add (v128.const f64x2 0.07692307692307693 0.07692307692307693) (f64x2.mul (local.get $z) (local.get $p)))) ;; 1/13
    (local.set $p (f64x2.add (v128.const f64x2 0.09090909090909091 0.09090909090909091) (f64x2.mul (local.get $z) (local.get $p)))) ;; 1/11
    (local.set $p (f64x2.add (v128.const f64x2 0.1111111111111111 0.1111111111111111) (f64x2.mul (local.get $z) (local.get $p)))) ;; 1/9
    (local.set $p (f64x2.add (v128.const f64x2 0.14285714285714285 0.14285714285714285) (f64x2.mul (local.get $z) (local.get $p)))) ;; 1/7
    (local.set $p (f64x2.add (v128.const f64x2 0.2 0.2) (f64x2.mul (local.get $z) (local.get $p)))) ;; 1/5
    (local.set $p (f64x2.add (v128.const f64x2 0.3333333333333333 0.3333333333333333) (f64x2.mul (local.get $z) (local.get $p)))) ;; 1/3
    (local.set $p (f64x2.add (v128.const f64x2 1 1) (f64x2.mul (local.get $z) (local.get $p))))
    (f64x2.add
      (f64x2.mul (local.get $e) (v128.const f64x2 6.93147180369123816490e-01 6.93147180369123816490e-01))
      (f64x2.add
        (f64x2.mul (local.get $e) (v128.const f64x2 1.90821492927058770002e-10 1.90821492927058770002e-10))
        (f64x2.mul (f64x2.add (local.get $s) (local.get $s)) (local.get $p)))))

  ;; exp(-x) for x >= 0
  (func $expneg (param $x v128) (result v128)
    (local $t v128) (local $n v128) (local $r v128) (local $p v128)
    (local.set $x (f64x2.min (local.get $x) (v128.const f64x2 708 708)))
    (local.set $t
      (f64x2.add (f64x2.mul (local.get $x) (v128.const f64x2 1.4426950408889634 1.4426950408889634))
        (v128.const f64x2 0x1.8p52 0x1.8p52)))
    (local.set $n (f64x2.sub (local.get $t) (v128.const f64x2 0x1.8p52 0x1.8p52)))
    (local.set $r
      (f64x2.sub
        (f64x2.sub (local.get $x) (f64x2.mul (local.get $n) (v128.const f64x2 6.93147180369123816490e-01 6.93147180369123816490e-01)))
        (f64x2.mul (local.get $n) (v128.const f64x2 1.90821492927058770002e-10 1.90821492927058770002e-10))))
    (local.set $p (v128.const f64x2 -1.6059043836821613e-10 -1.6059043836821613e-10)) ;; -1/13!
    (local.set $p (f64x2.add (v128.const f64x2 2.08767569878681e-09 2.08767569878681e-09) (f64x2.mul (local.get $r) (local.get $p)))) ;; 1/12!
    (local.set $p (f64x2.add (v128.const f64x2 -2.505210838544172e-08 -2.505210838544172e-08) (f64x2.mul (local.get $r) (local.get $p)))) ;; -1/11!
    (local.set $p (f64x2.add (v128.const f64x2 2.755731922398589e-07 2.755731922398589e-07) (f64x2.mul (local.get $r) (local.get $p)))) ;; 1/10!
    (local.set $p (f64x2.add (v128.const f64x2 -2.7557319223985893e-06 -2.7557319223985893e-06) (f64x2.mul (local.get $r) (local.get $p)))) ;; -1/9!
    (local.set $p (f64x2.add (v128.const f64x2 2.48015873015873e-05 2.48015873015873e-05) (f64x2.mul (local.get $r) (local.get $p)))) ;; 1/8!
    (local.set $p (f64x2.add (v128.const f64x2 -0.0001984126984126984 -0.0001984126984126984) (f64x2.mul (local.get $r) (local.get $p)))) ;; -1/7!
    (local.set $p (f64x2.add (v128.const f64x2 0.001388888888888889 0.001388888888888889) (f64x2.mul (local.get $r) (local.get $p)))) ;; 1/6!
    (local.set $p (f64x2.add (v128.const f64x2 -0.008333333333333333 -0.008333333333333333) (f64x2.mul (local.get $r) (local.get $p)))) ;; -1/5!
    (local.set $p (f64x2.add (v128.const f64x2 0.041666666666666664 0.041666666666666664) (f64x2.mul (local.get $r) (local.get $p)))) ;; 1/4!
    (local.set $p (f64x2.add (v128.const f64x2 -0.16666666666666666 -0.16666666666666666) (f64x2.mul (local.get $r) (local.get $p)))) ;; -1/3!
    (local.set $p (f64x2.add (v128.const f64x2 0.5 0.5) (f64x2.mul (local.get $r) (local.get $p))))
    (local.set $p (f64x2.add (v128.const f64x2 -1 -1) (f64x2.mul (local.get $r) (local.get $p))))
    (local.set $p (f64x2.add (v128.const f64x2 1 1) (f64x2.mul (local.get $r) (local.get $p))))
    ;; 2^-n from the bits of t: t's low bits hold n (its unit in the last place is 1)
    (f64x2.mul (local.get $p)
      (i64x2.shl
        (i64x2.sub (v128.const i64x2 1023 1023) (i64x2.sub (local.get $t) (v128.const f64x2 0x1.8p52 0x1.8p52)))
        (i32.const 52))))

  ;; out[i] = Laplace(0, scale) draw i: scale ln U(x) for sign bit 0, -scale ln U(~x) for sign bit 1
  (func (export "laplace") (param $words i32) (param $out i32) (param $pairs i32) (param $scale f64)
    (local $end i32) (local $sw v128) (local $neg v128) (local $v v128) (local $sc v128)
    (local.set $sc (f64x2.splat (local.get $scale)))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $pairs) (i32.const 4))))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $sw (call $draws (v128.load (local.get $words))))
        (local.set $neg (i64x2.shr_s (local.get $sw) (i32.const 63)))
        (local.set $v (f64x2.mul (local.get $sc) (call $log (call $uniform (v128.xor (local.get $sw) (local.get $neg))))))
        (v128.store (local.get $out)
          (v128.xor (local.get $v) (v128.and (local.get $neg) (v128.const i64x2 0x8000000000000000 0x8000000000000000))))
        (local.set $words (i32.add (local.get $words) (i32.const 16)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (br $pair))))

  ;; values[q] relaxed from e1 to e2 (mide/relax.ts `relaxNoise`, the branch and value uniforms from words 4q..4q+3);
  ;; the step's constants come computed by the caller
  (func (export "relax")
    (param $values i32) (param $words i32) (param $pairs i32)
    (param $rate f64) (param $keepScale f64) (param $pNeg f64) (param $insideScale f64) (param $invSum f64) (param $invDiff f64)
    (local $end i32) (local $a0 v128) (local $a1 v128) (local $v1 v128) (local $a v128) (local $d v128) (local $pKeep v128)
    (local $branch v128) (local $vw v128) (local $neg v128) (local $inside v128) (local $u v128) (local $l v128) (local $z v128)
    (local.set $end (i32.add (local.get $values) (i32.shl (local.get $pairs) (i32.const 4))))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $values) (local.get $end)))
        (local.set $a0 (v128.load (local.get $words)))
        (local.set $a1 (v128.load offset=16 (local.get $words)))
        (local.set $v1 (v128.load (local.get $values)))
        (local.set $a (f64x2.abs (local.get $v1)))
        (local.set $d (call $expneg (f64x2.mul (f64x2.splat (local.get $rate)) (local.get $a))))
        (local.set $pKeep (f64x2.mul (f64x2.splat (local.get $keepScale)) (local.get $d)))
        (local.set $branch
          (call $uniform (i8x16.shuffle 4 5 6 7 0 1 2 3 20 21 22 23 16 17 18 19 (local.get $a0) (local.get $a1))))
        (local.set $vw (i8x16.shuffle 12 13 14 15 8 9 10 11 28 29 30 31 24 25 26 27 (local.get $a0) (local.get $a1)))
        (local.set $neg (f64x2.lt (local.get $branch) (f64x2.add (local.get $pKeep) (f64x2.splat (local.get $pNeg)))))
        (local.set $inside
          (f64x2.lt (local.get $branch)
            (f64x2.add (f64x2.add (local.get $pKeep) (f64x2.splat (local.get $pNeg)))
              (f64x2.mul (f64x2.splat (local.get $insideScale)) (f64x2.sub (v128.const f64x2 1 1) (local.get $d))))))
        ;; the value uniform: U(x) on the opposite side and inside, U(~x) beyond
        (local.set $u
          (call $uniform (v128.xor (local.get $vw) (v128.andnot (v128.const i64x2 -1 -1) (local.get $inside)))))
        ;; inside (and not on the opposite side): the argument U (d - 1) + 1
        (local.set $u
          (v128.bitselect
            (f64x2.add (f64x2.mul (local.get $u) (f64x2.sub (local.get $d) (v128.const f64x2 1 1))) (v128.const f64x2 1 1))
            (local.get $u)
            (v128.andnot (local.get $inside) (local.get $neg))))
        (local.set $l (call $log (local.get $u)))
        (local.set $z
          (v128.bitselect (f64x2.mul (local.get $l) (f64x2.splat (local.get $invSum)))
            (v128.bitselect (f64x2.mul (local.get $l) (f64x2.splat (local.get $invDiff)))
              (f64x2.sub (local.get $a) (f64x2.mul (local.get $l) (f64x2.splat (local.get $invSum))))
              (local.get $inside))
            (local.get $neg)))
        (local.set $z
          (v128.xor (local.get $z)
            (v128.and (f64x2.lt (local.get $v1) (v128.const f64x2 0 0)) (v128.const i64x2 0x8000000000000000 0x8000000000000000))))
        (v128.store (local.get $values)
          (v128.bitselect (local.get $v1) (local.get $z)
            (f64x2.lt (local.get $branch) (local.get $pKeep))))
        (local.set $words (i32.add (local.get $words) (i32.const 32)))
        (local.set $values (i32.add (local.get $values) (i32.const 16)))
        (br $pair))))
)
