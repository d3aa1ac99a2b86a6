/**
 * E2E fixture of the service deployment: the BUILT CLI sets up a workspace as docs/custodian.md does (the first officer,
 * an officer, a custodian and an analyst account, the sample occupancy data, a budget and the analyst's share), then
 * `node out/main/server.js --listen 127.0.0.1:0` serves it (plain HTTP is allowed on loopback only). Each role signs in
 * on the browser's sign-in screen with its credential.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { Role } from '../../src-main/contract/accounts'
import { ROOT } from './app'
import { setAxeRole } from './axe'

export const SERVICE_OFFICER = { name: 'olga', passphrase: 'correct horse battery staple' }
export const SERVICE_DATASET = 'occupancy'
/** The account of each role (the officer account holds the registered officer's name). */
export const ACCOUNTS: Readonly<Record<Role, string>> = { officer: 'olga', custodian: 'carl', analyst: 'ana' }

export interface RunningService {
  url: string
  dir: string
  db: string
  /** Each role's credential (`qa1_...`). */
  credentials: Record<Role, string>
  /** Runs the built CLI on the workspace (an officer act reads the officer's passphrase). */
  cli(args: string[]): string
  stop(): Promise<void>
}

function runCli(args: string[]): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'out', 'main', 'cli.js'), ...args], {
    env: { ...process.env, QUIET_ALARM_PASSPHRASE: SERVICE_OFFICER.passphrase },
    encoding: 'utf8'
  })
  if (r.status !== 0) throw new Error(`quiet-alarm ${args.slice(0, 2).join(' ')} failed: ${r.stderr}`)
  return r.stdout
}

export async function startService(): Promise<RunningService> {
  const server = join(ROOT, 'out', 'main', 'server.js')
  if (!existsSync(server)) throw new Error('out/main/server.js is missing: run "npm run build" first')
  const dir = mkdtempSync(join(tmpdir(), 'qa-e2e-service-'))
  const db = join(dir, 'ws.sqlite')
  runCli(['officer', 'init', '--db', db, '--name', SERVICE_OFFICER.name])
  const credentials = {} as Record<Role, string>
  for (const role of ['officer', 'custodian', 'analyst'] as const) {
    const out = JSON.parse(runCli(['account', 'add', '--db', db, '--role', role, '--name', ACCOUNTS[role], '--json'])) as { credential: string }
    credentials[role] = out.credential
  }
  const csv = join(ROOT, 'resources', 'sample', 'occupancy.csv')
  runCli(['import', '--db', db, '--file', csv, '--name', SERVICE_DATASET, '--person-column', 'person_id'])
  runCli(['budget', '--db', db, '--dataset', SERVICE_DATASET, '--epsilon', '5', '--reason', 'the e2e review'])
  runCli(['budget', '--db', db, '--dataset', SERVICE_DATASET, '--analyst', ACCOUNTS.analyst, '--epsilon', '2', '--reason', 'ana’s share'])

  const child: ChildProcess = spawn(process.execPath, [server, '--db', db, '--listen', '127.0.0.1:0', '--workers', '1', '--cadence-ms', '50'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  let err = ''
  child.stderr!.on('data', (d) => (err += String(d)))
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`service did not print its address in 30 s: ${out} ${err}`)), 30_000)
    child.stdout!.on('data', (d) => {
      out += String(d)
      const m = /^(https?:\/\/127\.0\.0\.1:\d+\/?)\s*$/m.exec(out)
      if (m) {
        clearTimeout(timer)
        res(m[1])
      }
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      rej(new Error(`service exited with ${code}: ${err}`))
    })
  })
  return {
    url,
    dir,
    db,
    credentials,
    cli: runCli,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await new Promise((r) => child.once('exit', r))
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Signs in on the service's sign-in screen as `role` (pasting the credential), and waits for the app. */
export async function signInAs(page: Page, service: RunningService, role: Role): Promise<void> {
  setAxeRole(page, `service ${role}`)
  await page.goto(service.url)
  await page.getByTestId('sign-in').waitFor()
  await page.getByTestId('sign-in-text').fill(service.credentials[role])
  await page.getByTestId('sign-in-submit').click()
  await page.getByRole('navigation', { name: 'Sections' }).waitFor()
}

/** A credential file as the officer hands it over (the JSON `account add --json` printed). */
export function credentialFile(service: RunningService, role: Role): string {
  const path = join(service.dir, `${ACCOUNTS[role]}.cred`)
  writeFileSync(path, JSON.stringify({ credential: service.credentials[role] }) + '\n')
  return path
}
