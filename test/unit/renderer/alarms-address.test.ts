/**
 * The Alarms screen's address (alarmsAddress.ts): `#/alarms?alarm=<id>` opens that alarm's timeline (and survives a
 * reload); anything else in an address opens none.
 */
import { describe, expect, it } from 'vitest'
import { alarmOfAddress, alarmsHref, watchHref, watchOfAddress } from '../../../src-renderer/src/screens/alarms/alarmsAddress'
import { routeFromHash } from '../../../src-renderer/src/sections'

describe('the Alarms screen address', () => {
  it('names the open alarm and reads it back', () => {
    expect(alarmsHref(7)).toBe('#/alarms?alarm=7')
    expect(alarmOfAddress(alarmsHref(7))).toBe(7)
    expect(alarmOfAddress('#/alarms/7')).toBe(7)
    expect(alarmsHref(null)).toBe('#/alarms')
    expect(routeFromHash(alarmsHref(7)).section).toBe('alarms')
  })

  it('names the saved question the form starts from', () => {
    expect(watchHref(12)).toBe('#/alarms?watch=12')
    expect(watchOfAddress(watchHref(12))).toBe(12)
    expect(alarmOfAddress(watchHref(12))).toBeNull()
    expect(watchOfAddress('#/queries/3?watch=12')).toBeNull()
    expect(watchOfAddress('#/alarms?watch=x')).toBeNull()
  })

  it('reads no alarm from another screen or from ids that are not whole positive numbers', () => {
    expect(alarmOfAddress('')).toBeNull()
    expect(alarmOfAddress('#/alarms')).toBeNull()
    expect(alarmOfAddress('#/queries/3?alarm=2')).toBeNull()
    expect(alarmOfAddress('#/alarms?alarm=0')).toBeNull()
    expect(alarmOfAddress('#/alarms?alarm=-1')).toBeNull()
    expect(alarmOfAddress('#/alarms?alarm=1e3')).toBeNull()
  })
})
