;; The search round's kernels: the posterior update (search/log-posterior.ts `updateSplit` with the next round's parts),
;; two individuals per 128-bit vector, and the split's deeper work (search/random-prefix.ts `splitLabelled`). Assembled
;; by resources/scripts/build-wasm.mjs (wabt) into search-update.wasm.ts.
;;
;; Memory (imported; the caller lays it out, offsets in bytes):
;;   0     factor table: 256 pairs of f64: for a byte b holding the parts of individuals 2m (low nibble) and 2m + 1
;;         (high nibble), the factors their weights are multiplied by (Q's or the complement's)
;;   4096  shift table: the same layout, the increments added to their log-weights
;;   8192  pair masses: 256 pairs of f64, indexed by the byte of the two individuals' NEXT parts; lane 0 sums the weights
;;         of the even individual, lane 1 of the odd one (`tables` zeroes them, `reduce` sums them by part)
;;   12288 part masses: 16 f64, written by `reduce`
;;   then, as search/search-memory.ts lays them out (16-byte aligned): the weights and log-weights (f64), the packed
;;         parts (eight 4-bit fields a word, packed-parts.ts), the split's lists, key words, parts, counts and masses
;;
;; `update` processes `words` whole words (8 individuals each) and returns the largest updated weight. Each weight is
;; multiplied once, each log-weight incremented once, and each pair mass accumulates in index order: the same IEEE
;; operations, in the same order, as the JavaScript fallback (log-posterior.ts), so both give the same bits.
;;
;; `tables` writes the factor and shift tables of a round (Q = parts below t: their factor fq and shift sq, the others'
;; fo and so) and zeroes the pair masses; `reduce` sums the pair masses into the 16 part masses, adding in the order of
;; log-posterior.ts's loop (byte by byte, the even individual's part before the odd one's), so the same bits.
;;
;; `deal` is one deeper level of the split (random-prefix.ts `splitLabelled`): it sends the `cnt` candidates at `cur`
;; (i32 indices) to eight parts by three key bits each (ten to a word at `keys`, low bits first), appending candidate i
;; to part g at `sub` + 4 (g stride + count[g]) and adding w[i] (f64 at `w`) to mass[g], in candidate order: the 8 i32
;; counts at `count` and the 8 f64 masses at `mass` are zeroed first. `assign` sets the part of the `cnt` individuals
;; listed at `sub` to `value` in the words at `parts`. Both do the JavaScript twin's operations in its order.
;;
;; `members` lists the individuals of one part (random-prefix.ts `splitLabelled`: the crossing part's members): the
;; indices i < n whose 4-bit field in the `words` words at `parts` equals c, in increasing order, as i32 at `out`;
;; returns how many. It reads whole 16-byte blocks (32 individuals), so the words must lie in a 16-byte aligned region
;; whose size is a multiple of 16 (fields past the words belong to indices >= n and are never listed).
(module
  (import "env" "memory" (memory 1))
  (func (export "update")
    (param $w i32) (param $l i32) (param $parts i32) (param $next i32) (param $words i32) (result f64)
    (local $end i32) (local $word i32) (local $nword i32)
    (local $b i32) (local $pm i32) (local $v v128) (local $max v128)
    (local.set $max (f64x2.splat (f64.const -inf)))
    (local.set $end (i32.add (local.get $parts) (i32.shl (local.get $words) (i32.const 2))))
    (block $done
      (loop $word_loop
        (br_if $done (i32.ge_u (local.get $parts) (local.get $end)))
        (local.set $word (i32.load (local.get $parts)))
        (local.set $nword (i32.load (local.get $next)))
        ;; the word's four pairs in order: each pair's current parts (a byte) -> its factor and shift, its next parts ->
        ;; its pair-mass slot
          ;; pair 0: individuals 8k + 0 and 8k + 1
          (local.set $b (i32.shl (i32.and (local.get $word) (i32.const 255)) (i32.const 4)))
          (local.set $pm (i32.add (i32.const 8192) (i32.shl (i32.and (local.get $nword) (i32.const 255)) (i32.const 4))))
          (local.set $v (f64x2.mul (v128.load offset=0 (local.get $w)) (v128.load (local.get $b))))
          (v128.store offset=0 (local.get $w) (local.get $v))
          (v128.store offset=0 (local.get $l)
            (f64x2.add (v128.load offset=0 (local.get $l)) (v128.load offset=4096 (local.get $b))))
          (local.set $max (f64x2.pmax (local.get $max) (local.get $v)))
          (v128.store (local.get $pm) (f64x2.add (v128.load (local.get $pm)) (local.get $v)))
          ;; pair 1: individuals 8k + 2 and 8k + 3
          (local.set $b (i32.shl (i32.and (i32.shr_u (local.get $word) (i32.const 8)) (i32.const 255)) (i32.const 4)))
          (local.set $pm (i32.add (i32.const 8192) (i32.shl (i32.and (i32.shr_u (local.get $nword) (i32.const 8)) (i32.const 255)) (i32.const 4))))
          (local.set $v (f64x2.mul (v128.load offset=16 (local.get $w)) (v128.load (local.get $b))))
          (v128.store offset=16 (local.get $w) (local.get $v))
          (v128.store offset=16 (local.get $l)
            (f64x2.add (v128.load offset=16 (local.get $l)) (v128.load offset=4096 (local.get $b))))
          (local.set $max (f64x2.pmax (local.get $max) (local.get $v)))
          (v128.store (local.get $pm) (f64x2.add (v128.load (local.get $pm)) (local.get $v)))
          ;; pair 2: individuals 8k + 4 and 8k + 5
          (local.set $b (i32.shl (i32.and (i32.shr_u (local.get $word) (i32.const 16)) (i32.const 255)) (i32.const 4)))
          (local.set $pm (i32.add (i32.const 8192) (i32.shl (i32.and (i32.shr_u (local.get $nword) (i32.const 16)) (i32.const 255)) (i32.const 4))))
          (local.set $v (f64x2.mul (v128.load offset=32 (local.get $w)) (v128.load (local.get $b))))
          (v128.store offset=32 (local.get $w) (local.get $v))
          (v128.store offset=32 (local.get $l)
            (f64x2.add (v128.load offset=32 (local.get $l)) (v128.load offset=4096 (local.get $b))))
          (local.set $max (f64x2.pmax (local.get $max) (local.get $v)))
          (v128.store (local.get $pm) (f64x2.add (v128.load (local.get $pm)) (local.get $v)))
          ;; pair 3: individuals 8k + 6 and 8k + 7
          (local.set $b (i32.shl (i32.shr_u (local.get $word) (i32.const 24)) (i32.const 4)))
          (local.set $pm (i32.add (i32.const 8192) (i32.shl (i32.shr_u (local.get $nword) (i32.const 24)) (i32.const 4))))
          (local.set $v (f64x2.mul (v128.load offset=48 (local.get $w)) (v128.load (local.get $b))))
          (v128.store offset=48 (local.get $w) (local.get $v))
          (v128.store offset=48 (local.get $l)
            (f64x2.add (v128.load offset=48 (local.get $l)) (v128.load offset=4096 (local.get $b))))
          (local.set $max (f64x2.pmax (local.get $max) (local.get $v)))
          (v128.store (local.get $pm) (f64x2.add (v128.load (local.get $pm)) (local.get $v)))
        (local.set $w (i32.add (local.get $w) (i32.const 64)))
        (local.set $l (i32.add (local.get $l) (i32.const 64)))
        (local.set $parts (i32.add (local.get $parts) (i32.const 4)))
        (local.set $next (i32.add (local.get $next) (i32.const 4)))
        (br $word_loop)))
    (f64.max (f64x2.extract_lane 0 (local.get $max)) (f64x2.extract_lane 1 (local.get $max))))
  (func (export "tables") (param $t i32) (param $fo f64) (param $fq f64) (param $so f64) (param $sq f64)
    (local $b i32) (local $at i32) (local $lo i32) (local $hi i32)
    (loop $byte_loop
      (local.set $at (i32.shl (local.get $b) (i32.const 4)))
      (local.set $lo (i32.lt_s (i32.and (local.get $b) (i32.const 15)) (local.get $t)))
      (local.set $hi (i32.lt_s (i32.shr_u (local.get $b) (i32.const 4)) (local.get $t)))
      (f64.store (local.get $at) (select (local.get $fq) (local.get $fo) (local.get $lo)))
      (f64.store offset=8 (local.get $at) (select (local.get $fq) (local.get $fo) (local.get $hi)))
      (f64.store offset=4096 (local.get $at) (select (local.get $sq) (local.get $so) (local.get $lo)))
      (f64.store offset=4104 (local.get $at) (select (local.get $sq) (local.get $so) (local.get $hi)))
      (v128.store offset=8192 (local.get $at) (v128.const i64x2 0 0))
      (local.set $b (i32.add (local.get $b) (i32.const 1)))
      (br_if $byte_loop (i32.lt_u (local.get $b) (i32.const 256)))))
  (func (export "reduce")
    (local $b i32) (local $at i32) (local $g i32)
    (local.set $g (i32.const 12288))
    (loop $zero_loop
      (f64.store (local.get $g) (f64.const 0))
      (local.set $g (i32.add (local.get $g) (i32.const 8)))
      (br_if $zero_loop (i32.lt_u (local.get $g) (i32.const 12416))))
    (loop $byte_loop
      (local.set $at (i32.shl (local.get $b) (i32.const 4)))
      ;; lane 0 (the even individual, part b & 15), then lane 1 (the odd one, part b >> 4)
      (local.set $g (i32.add (i32.const 12288) (i32.shl (i32.and (local.get $b) (i32.const 15)) (i32.const 3))))
      (f64.store (local.get $g) (f64.add (f64.load (local.get $g)) (f64.load offset=8192 (local.get $at))))
      (local.set $g (i32.add (i32.const 12288) (i32.shl (i32.shr_u (local.get $b) (i32.const 4)) (i32.const 3))))
      (f64.store (local.get $g) (f64.add (f64.load (local.get $g)) (f64.load offset=8200 (local.get $at))))
      (local.set $b (i32.add (local.get $b) (i32.const 1)))
      (br_if $byte_loop (i32.lt_u (local.get $b) (i32.const 256)))))
  (func (export "deal")
    (param $cur i32) (param $cnt i32) (param $keys i32) (param $w i32) (param $sub i32) (param $stride i32)
    (param $count i32) (param $mass i32)
    (local $r i32) (local $end i32) (local $word i32) (local $g i32) (local $i i32) (local $k i32) (local $at i32)
    (v128.store (local.get $count) (v128.const i64x2 0 0))
    (v128.store offset=16 (local.get $count) (v128.const i64x2 0 0))
    (v128.store (local.get $mass) (v128.const i64x2 0 0))
    (v128.store offset=16 (local.get $mass) (v128.const i64x2 0 0))
    (v128.store offset=32 (local.get $mass) (v128.const i64x2 0 0))
    (v128.store offset=48 (local.get $mass) (v128.const i64x2 0 0))
    (block $done
      (loop $word_loop
        (br_if $done (i32.ge_u (local.get $r) (local.get $cnt)))
        (local.set $word (i32.load (local.get $keys)))
        (local.set $keys (i32.add (local.get $keys) (i32.const 4)))
        ;; ten candidates a word (three key bits each), fewer in the last one
        (local.set $end (i32.add (local.get $r) (i32.const 10)))
        (if (i32.gt_u (local.get $end) (local.get $cnt)) (then (local.set $end (local.get $cnt))))
        (loop $field_loop
          (local.set $g (i32.and (local.get $word) (i32.const 7)))
          (local.set $word (i32.shr_s (local.get $word) (i32.const 3)))
          (local.set $i (i32.load (local.get $cur)))
          ;; sub[g * stride + count[g]] = i; count[g] += 1; mass[g] += w[i]
          (local.set $at (i32.add (local.get $count) (i32.shl (local.get $g) (i32.const 2))))
          (local.set $k (i32.load (local.get $at)))
          (i32.store
            (i32.add (local.get $sub) (i32.shl (i32.add (i32.mul (local.get $g) (local.get $stride)) (local.get $k)) (i32.const 2)))
            (local.get $i))
          (i32.store (local.get $at) (i32.add (local.get $k) (i32.const 1)))
          (local.set $at (i32.add (local.get $mass) (i32.shl (local.get $g) (i32.const 3))))
          (f64.store (local.get $at)
            (f64.add (f64.load (local.get $at)) (f64.load (i32.add (local.get $w) (i32.shl (local.get $i) (i32.const 3))))))
          (local.set $cur (i32.add (local.get $cur) (i32.const 4)))
          (local.set $r (i32.add (local.get $r) (i32.const 1)))
          (br_if $field_loop (i32.lt_u (local.get $r) (local.get $end))))
        (br $word_loop))))
  (func (export "assign") (param $sub i32) (param $cnt i32) (param $parts i32) (param $value i32)
    (local $end i32) (local $i i32) (local $at i32) (local $s i32)
    (local.set $end (i32.add (local.get $sub) (i32.shl (local.get $cnt) (i32.const 2))))
    (block $done
      (loop $member_loop
        (br_if $done (i32.ge_u (local.get $sub) (local.get $end)))
        (local.set $i (i32.load (local.get $sub)))
        (local.set $at (i32.add (local.get $parts) (i32.shl (i32.shr_u (local.get $i) (i32.const 3)) (i32.const 2))))
        (local.set $s (i32.shl (i32.and (local.get $i) (i32.const 7)) (i32.const 2)))
        (i32.store (local.get $at)
          (i32.or
            (i32.and (i32.load (local.get $at)) (i32.xor (i32.shl (i32.const 15) (local.get $s)) (i32.const -1)))
            (i32.shl (local.get $value) (local.get $s))))
        (local.set $sub (i32.add (local.get $sub) (i32.const 4)))
        (br $member_loop))))
  (func (export "members")
    (param $parts i32) (param $words i32) (param $c i32) (param $n i32) (param $out i32) (result i32)
    (local $end i32) (local $base i32) (local $o i32) (local $m i32) (local $i i32)
    (local $x v128) (local $lo v128) (local $hi v128) (local $pattern v128)
    ;; c in both nibbles of every byte: x ^ pattern has a zero field exactly where the part is c
    (local.set $pattern (i8x16.splat (i32.mul (local.get $c) (i32.const 17))))
    (local.set $end (i32.add (local.get $parts) (i32.shl (local.get $words) (i32.const 2))))
    (local.set $o (local.get $out))
    (block $done
      (loop $block_loop
        (br_if $done (i32.ge_u (local.get $parts) (local.get $end)))
        (local.set $x (v128.xor (v128.load (local.get $parts)) (local.get $pattern)))
        ;; byte j holds individuals base + 2j (low nibble) and base + 2j + 1 (high nibble)
        (local.set $lo (i8x16.eq (v128.and (local.get $x) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
          (v128.const i64x2 0 0)))
        (local.set $hi (i8x16.eq (v128.and (local.get $x) (v128.const i8x16 240 240 240 240 240 240 240 240 240 240 240 240 240 240 240 240))
          (v128.const i64x2 0 0)))
        ;; bit k of m: individual base + k is in part c (the two nibbles' flags interleaved into index order)
        (local.set $m
          (i32.or
            (i8x16.bitmask (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $lo) (local.get $hi)))
            (i32.shl
              (i8x16.bitmask (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $lo) (local.get $hi)))
              (i32.const 16))))
        (block $bits_done
          (loop $bit_loop
            (br_if $bits_done (i32.eqz (local.get $m)))
            (local.set $i (i32.add (local.get $base) (i32.ctz (local.get $m))))
            ;; indices only grow: none after one >= n is listed either
            (br_if $bits_done (i32.ge_u (local.get $i) (local.get $n)))
            (i32.store (local.get $o) (local.get $i))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br $bit_loop)))
        (local.set $parts (i32.add (local.get $parts) (i32.const 16)))
        (local.set $base (i32.add (local.get $base) (i32.const 32)))
        (br $block_loop)))
    (i32.shr_u (i32.sub (local.get $o) (local.get $out)) (i32.const 2)))
)
