/**
 * The systemd units of docs/guide/alarms.md (resources/systemd/): `systemd-analyze verify` accepts them with nothing
 * to say (an unknown key or a bad calendar is a warning on stderr, which fails here too), and every command they run is
 * a command and sub-command of this CLI (a renamed command would leave the timer running nothing).
 */
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { commands } from '../../src-main/cli/commands'

const dir = join(__dirname, '..', '..', 'resources', 'systemd')
const units = ['quiet-alarm-run-due.service', 'quiet-alarm-run-due.timer']
const hasAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0

describe('systemd units for alarm run-due', () => {
  it.skipIf(!hasAnalyze)('pass systemd-analyze verify without a warning', () => {
    const r = spawnSync('systemd-analyze', ['verify', ...units.map((u) => join(dir, u))], { encoding: 'utf8' })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  })

  it('run commands this CLI has, and the timer starts the service', () => {
    const service = readFileSync(join(dir, units[0]), 'utf8')
    const starts = service
      .split('\n')
      .filter((l) => l.startsWith('ExecStart='))
      .map((l) => l.replace(/^ExecStart=\/usr\/bin\/env npx quiet-alarm /, '').split(' '))
    expect(starts.map((a) => `${a[0]} ${a[1]}`)).toEqual(['alarm run-due', 'webhook deliver'])
    for (const [name, sub] of starts) {
      const c = commands.find((x) => x.name === name)
      expect(c, name).toBeDefined()
      expect(c!.subcommands ?? [], name).toContain(sub)
    }
    expect(readFileSync(join(dir, units[1]), 'utf8')).toMatch(/^OnCalendar=\S+$/m)
  })
})
