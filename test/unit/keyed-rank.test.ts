/**
 * The keyed rank of the maxGroups bound (keyed-hash.ts), pinned: one MD5 per person, four words mod P = 2^31 - 1, a cubic
 * in the predicate index by Horner. Fixed vectors (other engines' ports, e.g. ClickHouse, check theirs against them), the
 * Horner form against the plain sum of powers, and the worst-case arithmetic in SQLite's 64-bit integers (an overflow
 * there turns into a float and would silently change the order). The engines' SQL is checked against `keyedRank` in
 * test/integration/datasets/maxgroups-truncation.test.ts and equivalence.test.ts.
 */
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { sqliteDialect } from '../../src-main/services/sources/dialect-sqlite'
import { RANK_INDEX_SPAN, RANK_MODULUS, digestWord, keyedRank, personDigest, registerKeyedHash } from '../../src-main/services/sources/keyed-hash'

const KEY = '00112233445566778899aabbccddeeff'

describe('keyed rank', () => {
  it('fixed vectors: digest, words and ranks of person "p42"', () => {
    const d = personDigest(KEY, 'p42')
    expect(d).toBe('60763d6c5b76b8afc4abd1c060177f6f')
    // c4abd1c0 = 3,299,594,688 is above P: reduced mod P.
    expect([0, 1, 2, 3].map((j) => digestWord(d, j))).toEqual([1618361708, 1534507183, 1152111041, 1612152687])
    expect([0, 1, 7, 249, RANK_MODULUS - 1].map((i) => keyedRank(KEY, 'p42', i))).toEqual([1618361708, 1622165325, 1158950656, 576901626, 1771296526])
  })

  it('equals c0 + c1 i + c2 i^2 + c3 i^3 mod P', () => {
    const P = BigInt(RANK_MODULUS)
    for (const person of ['p1', 'p2', '-17', '1420070400000', 'ünïcode']) {
      const d = personDigest(KEY, person)
      const c = [0, 1, 2, 3].map((j) => BigInt(digestWord(d, j)))
      for (const i of [0, 1, 2, 3, 100, 29_999, 1_000_003, RANK_MODULUS - 1]) {
        const x = BigInt(i)
        const direct = (c[0] + c[1] * x + c[2] * x * x + c[3] * x * x * x) % P
        expect(keyedRank(KEY, person, i)).toBe(Number(direct))
      }
    }
    expect(() => keyedRank(KEY, 'p1', RANK_MODULUS)).toThrow(RangeError)
  })

  it("stays exact in SQLite's 64-bit integers at the largest coefficients and index", () => {
    const db = new Database(':memory:')
    registerKeyedHash(db)
    // The dialect's words are integers (a registered function's number comes back as a REAL, whose products past 2^53 round).
    const digest = sqliteDialect.personDigest(KEY, "'p42'", 'text')
    const word = db.prepare(`SELECT ${sqliteDialect.digestWord(digest, 2)} AS w, typeof(${sqliteDialect.digestWord(digest, 2)}) AS t`).get() as {
      w: number
      t: string
    }
    expect(word).toEqual({ w: 1152111041, t: 'integer' })
    const m = RANK_MODULUS - 1
    const row = db
      .prepare(
        `SELECT (((c3 * i + c2) % ${RANK_MODULUS} * i + c1) % ${RANK_MODULUS} * i + c0) % ${RANK_MODULUS} AS h, typeof(c3 * i + c2) AS t ` +
          `FROM (SELECT ${[0, 1, 2, 3, 4].map((j) => `CAST(? AS INTEGER) AS ${j === 4 ? 'i' : `c${j}`}`).join(', ')})`
      )
      .get(m, m, m, m, m) as { h: number; t: string }
    db.close()
    const P = BigInt(RANK_MODULUS)
    const x = BigInt(m)
    let r = 0n
    for (let j = 0; j < 4; j++) r = (r * x + x) % P
    expect(row.t).toBe('integer')
    expect(row.h).toBe(Number(r))
    // The engines' order key, rank 2^31 + i, stays below 2^62.
    expect(BigInt(m) * BigInt(RANK_INDEX_SPAN) + BigInt(m) < 2n ** 62n).toBe(true)
  })
})
