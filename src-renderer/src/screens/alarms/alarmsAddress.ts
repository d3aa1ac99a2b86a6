/**
 * Where the Alarms screen stands, as its address: `#/alarms?alarm=<id>` (the alarm whose timeline is open; `#/alarms/<id>`
 * reads the same). The screen writes it as an alarm is chosen or created, so a reload or a copied address opens the same
 * alarm. `#/alarms?watch=<query id>` (the Queries screen's "Watch it as an alarm") opens the form with that question. Pure: unit-tested under Node (test/unit/renderer/alarms-address.test.ts).
 */
import { href } from '../../sections'

const id = (s: string | null | undefined): number | null => (s && /^[1-9]\d{0,15}$/.test(s) ? Number(s) : null)

/** The alarm an address names (null: none, or not the Alarms screen, or not a whole positive id). */
export function alarmOfAddress(hash: string): number | null {
  const [path, search = ''] = hash.replace(/^#\/?/, '').split('?', 2)
  const parts = path.split('/')
  if (parts[0] !== 'alarms') return null
  return id(new URLSearchParams(search).get('alarm')) ?? id(parts[1])
}

/** The saved question an address asks to watch (null: none). */
export function watchOfAddress(hash: string): number | null {
  const [path, search = ''] = hash.replace(/^#\/?/, '').split('?', 2)
  return path.split('/')[0] === 'alarms' ? id(new URLSearchParams(search).get('watch')) : null
}

/** The address of the form to create an alarm on saved question `queryId`. */
export function watchHref(queryId: number): string {
  return `${href('alarms')}?watch=${queryId}`
}

/** The address of the screen with `alarmId`'s timeline open (null: the list only). */
export function alarmsHref(alarmId: number | null): string {
  return alarmId === null ? href('alarms') : `${href('alarms')}?alarm=${alarmId}`
}
