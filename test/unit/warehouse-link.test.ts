/** The engine-neutral pieces of linked database sources: door hosts, password variables, schema changes, time limits. */
import { afterEach, describe, expect, it } from 'vitest'
import { checkClickHouseDoorHost, checkClickHousePasswordEnv, clickhouseConnectionAtUse } from '../../src-main/services/sources/linked-clickhouse'
import { checkDoorHost, connectionAtUse } from '../../src-main/services/sources/linked-postgres'
import { checkDoorHosts, checkPasswordVariable, durationText, schemaChange } from '../../src-main/services/sources/warehouse-link'

const saved = { ...process.env }
afterEach(() => {
  for (const k of ['QA_PG_HOSTS', 'QA_CLICKHOUSE_HOSTS', 'PGPASSWORD', 'HR_PGPASSWORD', 'CLICKHOUSE_PASSWORD']) {
    if (saved[k] === undefined) delete process.env[k]
    else process.env[k] = saved[k]
  }
})

describe('linked database sources: shared checks', () => {
  it('a door connects only to this machine, a unix socket, or a listed host', () => {
    delete process.env.QA_PG_HOSTS
    delete process.env.QA_CLICKHOUSE_HOSTS
    for (const url of [
      'postgresql://r@localhost/hr',
      'postgresql://r@127.0.0.1:5432/hr',
      'postgresql://r@[::1]/hr',
      'postgresql://r@%2Ftmp%2Fsock/hr'
    ])
      expect(() => checkDoorHost(url)).not.toThrow()
    expect(() => checkDoorHost('postgresql://r@db.example/hr')).toThrow(
      /^From the app, PostgreSQL connections go to this machine or to the hosts listed in QA_PG_HOSTS/
    )
    // Every host of a multi-host URL is checked: one listed host does not let another through.
    process.env.QA_PG_HOSTS = ' DB.example , other.example'
    expect(() => checkDoorHost('postgresql://r@db.example/hr')).not.toThrow()
    expect(() => checkDoorHost('postgresql://r@db.example,evil.example/hr')).toThrow(/QA_PG_HOSTS/)

    for (const url of ['http://r@localhost:8123', 'https://127.0.0.1:8443', 'http://[::1]:8123'])
      expect(() => checkClickHouseDoorHost(url)).not.toThrow()
    expect(() => checkClickHouseDoorHost('http://r@ch.example:8123')).toThrow(
      /^From the app, ClickHouse connections go to this machine or to the hosts listed in QA_CLICKHOUSE_HOSTS/
    )
    // Each engine reads its own list.
    expect(() => checkClickHouseDoorHost('http://db.example:8123')).toThrow(/QA_CLICKHOUSE_HOSTS/)
    process.env.QA_CLICKHOUSE_HOSTS = 'ch.example'
    expect(() => checkClickHouseDoorHost('http://r@CH.example:8123')).not.toThrow()
    expect(() => checkDoorHosts(['ch.example'], 'PostgreSQL', 'QA_PG_HOSTS')).toThrow(/QA_PG_HOSTS/)
  })

  it('password variables must end in the engine suffix; the password is read at use from the named variable', () => {
    expect(checkPasswordVariable('', 'PGPASSWORD')).toBe(null)
    expect(checkPasswordVariable('PGPASSWORD', 'PGPASSWORD')).toBe('PGPASSWORD')
    expect(checkClickHousePasswordEnv('HR_CLICKHOUSE_PASSWORD')).toBe('HR_CLICKHOUSE_PASSWORD')
    for (const bad of ['HOME', 'HR_PGPASSWORD', 'X-CLICKHOUSE_PASSWORD', 'x'.repeat(101) + 'CLICKHOUSE_PASSWORD', 42])
      expect(() => checkClickHousePasswordEnv(bad)).toThrow(/ending in CLICKHOUSE_PASSWORD \(e.g. HR_CLICKHOUSE_PASSWORD\)/)

    delete process.env.PGPASSWORD
    expect(connectionAtUse('postgresql://r@localhost/hr', null)).toEqual({ url: 'postgresql://r@localhost/hr' })
    process.env.HR_PGPASSWORD = 'hr-secret'
    process.env.PGPASSWORD = 'default-secret'
    expect(connectionAtUse('postgresql://r@localhost/hr', 'HR_PGPASSWORD').password).toBe('hr-secret')
    expect(connectionAtUse('postgresql://r@localhost/hr', null).password).toBe('default-secret')
    process.env.CLICKHOUSE_PASSWORD = 'ch-secret'
    expect(clickhouseConnectionAtUse('http://r@localhost:8123', null)).toEqual({ url: 'http://r@localhost:8123', password: 'ch-secret' })
  })

  it('names the first column that is gone or changed type, else the order; null when unchanged', () => {
    const linked = [
      { name: 'room', pgType: 'text' },
      { name: 'floor', pgType: 'integer' }
    ]
    expect(schemaChange(linked, [...linked], 'pgType')).toBe(null)
    expect(schemaChange(linked, [{ name: 'room', pgType: 'text' }], 'pgType')).toBe('column "floor" is gone')
    expect(schemaChange(linked, [linked[0], { name: 'floor', pgType: 'text' }], 'pgType')).toBe('column "floor" changed type from integer to text')
    expect(schemaChange(linked, [linked[1], linked[0]], 'pgType')).toBe('its columns are not the ones it had (names or order changed)')
    expect(schemaChange(linked, [...linked, { name: 'extra', pgType: 'text' }], 'pgType')).toBe(
      'its columns are not the ones it had (names or order changed)'
    )
    const long = schemaChange([{ name: 'c', chType: 'String' }], [{ name: 'c', chType: `Nullable(${'X'.repeat(500)})` }], 'chType')
    expect(long).toBe(`column "c" changed type from String to ${`Nullable(${'X'.repeat(500)})`.slice(0, 60)}`)
  })

  it('time limits in sentences', () => {
    expect(durationText(500)).toBe('500 ms')
    expect(durationText(300_000)).toBe('5 min')
    expect(durationText(1500)).toBe('1.5 s')
  })
})
