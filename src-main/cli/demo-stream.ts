/**
 * The demo's watched stream: a SYNTHETIC occupancy log hour by hour (no real person is in it), 72 hours from Monday
 * 2024-03-18 00:00 UTC, written deterministically (a fixed-seed generator of its own: demo data, never a release's
 * randomness). Each hour, every room of the bundled capacities with room for a crowd (capacity >= 20) holds about its
 * capacity less 25 persons, the small rooms a few at most, so no room is near its limit except three planted
 * over-capacity hours (PLANTED). Columns as occupancy.csv: timestamp (hour start), person_id, building, room.
 */
import { writeFileSync } from 'node:fs'

export const STREAM_START = '2024-03-18T00:00:00Z'
export const STREAM_HOURS = 72

/** [hour index, room, persons present]: the planted over-capacity hours. */
export const PLANTED: ReadonlyArray<[number, string, number]> = [
  [14, 'A-101', 150],
  [38, 'C-201', 110],
  [62, 'B-201', 40]
]

/** Writes the stream to `path` from the capacities' rows (building, room, capacity). Returns the number of rows. */
export function writeOccupancyStream(path: string, capacities: ReadonlyArray<{ building: string; room: string; capacity: number }>): number {
  let state = 0x2f6b_1d3a
  const rand = () => {
    // xorshift32: deterministic demo data only.
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 4_294_967_296
  }
  const lines = ['timestamp,person_id,building,room']
  const start = Date.parse(STREAM_START)
  for (let h = 0; h < STREAM_HOURS; h++) {
    const at = new Date(start + h * 3_600_000).toISOString().replace('.000Z', 'Z')
    let next = 1
    for (const c of capacities) {
      const planted = PLANTED.find(([ph, room]) => ph === h && room === c.room)
      const usual = c.capacity >= 20 ? Math.max(0, c.capacity - 25 - Math.floor(rand() * 6)) : Math.floor(rand() * 3)
      const n = planted ? planted[2] : usual
      for (let i = 0; i < n; i++) lines.push(`${at},P${String(next++).padStart(4, '0')},${c.building},${c.room}`)
    }
  }
  writeFileSync(path, lines.join('\n') + '\n')
  return lines.length - 1
}
