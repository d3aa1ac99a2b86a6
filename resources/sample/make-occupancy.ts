/**
 * Generates the bundled sample: a SYNTHETIC building-occupancy log (no real person is in it).
 *
 *   node --import tsx resources/sample/make-occupancy.ts [outDir]     (default: resources/sample)
 *
 * Writes, deterministically from the fixed seed below:
 * - occupancy.csv   one row per person present in a room during an hour: timestamp (hour start, UTC), person_id, role,
 *                   building, room, floor, hour_of_day, weekday, minutes (minutes present in that hour)
 * - capacities.csv  building, room, capacity (the fire-code limit, persons at once)
 * - person-hours.csv  person_id, role, hours_on_site (per person over the whole log; one planted outlier)
 * Two working weeks (Mon 2024-03-04 .. Fri 2024-03-15), 08:00-18:00, four buildings, 32 rooms, 900 persons. Planted:
 * capacity violations (an overfull lecture on Tue 12 March 14:00 in A-101 and C-201, another on Thu 14 March 10:00 in
 * B-201; a few marginal ones occur on their own), rare night-time presence in building C (anomaly identification), and one person on site far longer than
 * anyone else (anomaly search).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import seedrandom from 'seedrandom'

const SEED = 'quiet-alarm-occupancy-v1'
const rng = seedrandom.alea(SEED)
const rand = () => rng.double()
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]
function poisson(mean: number): number {
  // Knuth for small means, normal approximation above 30.
  if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * gauss()))
  const l = Math.exp(-mean)
  let k = 0
  let p = 1
  do {
    k++
    p *= rand()
  } while (p > l)
  return k - 1
}
function gauss(): number {
  const u = 1 - rand()
  const v = rand()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}

interface Room {
  building: string
  room: string
  floor: number
  capacity: number
  kind: 'lecture' | 'lab' | 'office' | 'meeting'
}
const rooms: Room[] = []
const layout: Array<[string, Array<[Room['kind'], number, number]>]> = [
  [
    'A',
    [
      ['lecture', 1, 120],
      ['lecture', 1, 80],
      ['meeting', 2, 12],
      ['meeting', 2, 12],
      ['office', 2, 6],
      ['office', 3, 6],
      ['office', 3, 4],
      ['lab', 3, 24]
    ]
  ],
  [
    'B',
    [
      ['lab', 1, 30],
      ['lab', 1, 30],
      ['lab', 2, 20],
      ['meeting', 2, 16],
      ['office', 2, 6],
      ['office', 3, 6],
      ['office', 3, 6],
      ['lecture', 1, 60]
    ]
  ],
  [
    'C',
    [
      ['lecture', 1, 200],
      ['lecture', 2, 90],
      ['meeting', 2, 10],
      ['meeting', 3, 10],
      ['office', 3, 4],
      ['office', 3, 4],
      ['lab', 2, 18],
      ['lab', 2, 18]
    ]
  ],
  [
    'D',
    [
      ['office', 1, 8],
      ['office', 1, 8],
      ['office', 2, 8],
      ['office', 2, 6],
      ['meeting', 1, 20],
      ['meeting', 2, 14],
      ['lab', 3, 12],
      ['lab', 3, 12]
    ]
  ]
]
for (const [b, list] of layout) {
  const perFloor = new Map<number, number>()
  for (const [kind, floor, capacity] of list) {
    const n = (perFloor.get(floor) ?? 0) + 1
    perFloor.set(floor, n)
    rooms.push({ building: b, room: `${b}-${floor}${String(n).padStart(2, '0')}`, floor, capacity, kind })
  }
}

const ROLES = ['staff', 'student', 'visitor'] as const
const persons = Array.from({ length: 900 }, (_, i) => ({
  id: `P${String(i + 1).padStart(4, '0')}`,
  role: i < 220 ? 'staff' : i < 860 ? 'student' : 'visitor',
  home: pick(['A', 'B', 'C', 'D'])
}))
void ROLES
const OUTLIER = persons[417] // the person on site far longer than anyone else

const days = [
  '2024-03-04',
  '2024-03-05',
  '2024-03-06',
  '2024-03-07',
  '2024-03-08',
  '2024-03-11',
  '2024-03-12',
  '2024-03-13',
  '2024-03-14',
  '2024-03-15'
]
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri']
const overfull = new Map<string, number>([
  ['2024-03-12|14|A-101', 1.25],
  ['2024-03-12|14|C-201', 1.12],
  ['2024-03-14|10|B-201', 1.4]
])
const meanFill: Record<Room['kind'], number> = { lecture: 0.55, lab: 0.5, office: 0.45, meeting: 0.4 }

type Row = [string, string, string, string, string, number, number, string, number]
const rows: Row[] = []
const hoursOnSite = new Map<string, number>()
const addRow = (day: string, hour: number, p: (typeof persons)[number], r: Room, minutes: number, weekday: string) => {
  rows.push([`${day}T${String(hour).padStart(2, '0')}:00:00Z`, p.id, p.role, r.building, r.room, r.floor, hour, weekday, minutes])
  hoursOnSite.set(p.id, (hoursOnSite.get(p.id) ?? 0) + minutes / 60)
}

days.forEach((day, di) => {
  const weekday = WEEKDAYS[di % 5]
  for (let hour = 8; hour < 18; hour++) {
    const busy = new Set<string>() // a person is in one room per hour
    busy.add(OUTLIER.id)
    for (const r of rooms) {
      const lunch = hour === 12 ? 0.5 : 1
      let n = poisson(r.capacity * meanFill[r.kind] * lunch * (0.7 + 0.5 * rand()))
      n = Math.min(n, r.capacity) // normally nobody exceeds the limit
      const factor = overfull.get(`${day}|${hour}|${r.room}`)
      if (factor) n = Math.ceil(r.capacity * factor)
      // Each person has a weekly budget of presence so that normal totals stay moderate.
      let tries = 0
      let placed = 0
      while (placed < n && tries < n * 20) {
        tries++
        const p = persons[Math.floor(rand() * persons.length)]
        if (busy.has(p.id)) continue
        if ((hoursOnSite.get(p.id) ?? 0) > 44 && !factor) continue
        busy.add(p.id)
        addRow(day, hour, p, r, 20 + Math.floor(rand() * 41), weekday)
        placed++
      }
    }
    // The outlier is somewhere every working hour.
    addRow(day, hour, OUTLIER, pick(rooms.filter((r) => r.building === 'D')), 60, weekday)
  }
  // The outlier also stays the night in D, and a few night-time badge events happen in D.
  for (const hour of [19, 20, 21, 22])
    addRow(
      day,
      hour,
      OUTLIER,
      rooms.find((r) => r.room === 'D-101')!,
      60,
      weekday
    )
})
// Rare night-time presence in building C (the anomaly identification example asks about C at 03:00).
addRow(
  '2024-03-13',
  3,
  persons[12],
  rooms.find((r) => r.room === 'C-302')!,
  25,
  'Wed'
)
addRow(
  '2024-03-13',
  3,
  persons[13],
  rooms.find((r) => r.room === 'C-302')!,
  30,
  'Wed'
)

rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[4] < b[4] ? -1 : a[4] > b[4] ? 1 : a[1] < b[1] ? -1 : 1))

const outDir = resolve(process.argv[2] ?? resolve(import.meta.dirname ?? '.', '.'))
mkdirSync(outDir, { recursive: true })
const csv = (header: string[], data: Array<Array<string | number>>) => [header.join(','), ...data.map((r) => r.join(','))].join('\n') + '\n'
writeFileSync(
  resolve(outDir, 'occupancy.csv'),
  csv(['timestamp', 'person_id', 'role', 'building', 'room', 'floor', 'hour_of_day', 'weekday', 'minutes'], rows)
)
writeFileSync(
  resolve(outDir, 'capacities.csv'),
  csv(
    ['building', 'room', 'capacity'],
    rooms.map((r) => [r.building, r.room, r.capacity])
  )
)
writeFileSync(
  resolve(outDir, 'person-hours.csv'),
  csv(
    ['person_id', 'role', 'hours_on_site'],
    persons.map((p) => [p.id, p.role, Math.round((hoursOnSite.get(p.id) ?? 0) * 10) / 10])
  )
)
process.stdout.write(`wrote ${rows.length} occupancy rows, ${rooms.length} rooms, ${persons.length} persons to ${outDir}\n`)
