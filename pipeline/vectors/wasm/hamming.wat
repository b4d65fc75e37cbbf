;; Hamming distances of one bit vector to many (the sign bits of a vector and
;; of each list's centroid, kmeans.ts): i64.popcnt is one machine instruction,
;; where JavaScript counts the bits of a word in a dozen operations.
;; Assembled into hamming-wasm.ts by `npm run wasm`.
(module
  (memory (export "memory") 1)
  ;; For each of `count` rows of `words` 32-bit words from `rows`, the number of
  ;; bits in which it differs from the `words` words at `query`, as an i32 at
  ;; out + 4 * row. Every address a multiple of 8.
  (func (export "distances") (param $query i32) (param $rows i32) (param $count i32) (param $words i32) (param $out i32)
    (local $r i32) (local $w i32) (local $d i32) (local $row i32) (local $pairs i32) (local $last i32)
    (local.set $pairs (i32.shr_u (local.get $words) (i32.const 1)))
    (local.set $last (i32.shl (i32.sub (local.get $words) (i32.const 1)) (i32.const 2)))
    (local.set $row (local.get $rows))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $r) (local.get $count)))
        (local.set $d (i32.const 0))
        (local.set $w (i32.const 0))
        (block $paired
          (loop $pair
            (br_if $paired (i32.ge_u (local.get $w) (local.get $pairs)))
            (local.set $d
              (i32.add (local.get $d)
                (i32.wrap_i64
                  (i64.popcnt
                    (i64.xor
                      (i64.load (i32.add (local.get $query) (i32.shl (local.get $w) (i32.const 3))))
                      (i64.load (i32.add (local.get $row) (i32.shl (local.get $w) (i32.const 3)))))))))
            (local.set $w (i32.add (local.get $w) (i32.const 1)))
            (br $pair)))
        ;; An odd last word on its own.
        (if (i32.and (local.get $words) (i32.const 1))
          (then
            (local.set $d
              (i32.add (local.get $d)
                (i32.popcnt
                  (i32.xor
                    (i32.load (i32.add (local.get $query) (local.get $last)))
                    (i32.load (i32.add (local.get $row) (local.get $last)))))))))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2))) (local.get $d))
        (local.set $row (i32.add (local.get $row) (i32.shl (local.get $words) (i32.const 2))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each)))))
