/**
 * `officer init` registers a privacy officer (a key pair under a passphrase); `officer list` shows who is registered.
 */
import { listOfficers, registerOfficer, fingerprint, officerRows } from '../../services/local'
import { existsSync, rmSync } from 'node:fs'
import { openWorkspace, workspacePath } from '../workspace'
import { type CliCommand, UsageError, optString, reqString } from '../command'
import { PASSPHRASE_ENV, readPassphrase } from '../passphrase'

export const BY_PASSPHRASE_ENV = 'QUIET_ALARM_BY_PASSPHRASE'

export const officerCommand: CliCommand = {
  name: 'officer',
  required: (_values, pos) => (pos[0] === 'init' ? ['name'] : []),
  summary:
    'Register a privacy officer (a signing and sealing key under a passphrase; the first officer creates the workspace on a new path), or list the registered officers',
  usage:
    'officer init --db PATH --name NAME [--passphrase-file F] [--by OFFICER --by-passphrase-file F (when an officer is already registered)] | officer list --db PATH',
  subcommands: ['init', 'list'],
  options: {
    db: { type: 'string', description: 'workspace database file', defaultText: '$QUIET_ALARM_DB or the user data folder' },
    name: { type: 'string', description: "init: the new officer's name (recorded with every act)" },
    'passphrase-file': {
      type: 'string',
      description: `init: a file whose first line is the new officer's passphrase (at least 12 characters)`,
      defaultText: `$${PASSPHRASE_ENV}, else a prompt`
    },
    by: { type: 'string', description: 'init: the registered officer who adds the new one', defaultText: 'the only registered officer' },
    'by-passphrase-file': {
      type: 'string',
      description: "init: a file whose first line is that officer's passphrase",
      defaultText: `$${BY_PASSPHRASE_ENV}, else a prompt`
    }
  },
  async run(values, positionals, ctx) {
    const sub = positionals[0]
    if (sub === 'list') {
      const store = openWorkspace(values, ctx.cwd, { create: false })
      try {
        const list = listOfficers(store.db)
        const text = list.length
          ? list
              .map(
                (o) =>
                  `${o.name}  key ${fingerprint(o.keyId)}  registered ${o.createdAt}${o.addedBy === o.keyId ? ' (the first officer)' : ` by ${o.addedByName}`}`
              )
              .join('\n')
          : 'No privacy officer is registered; create one with "quiet-alarm officer init --name NAME".'
        return { json: { officers: list }, text }
      } finally {
        store.close()
      }
    }
    if (sub !== 'init') throw new UsageError('"officer" takes one of: init, list')
    const name = reqString(values, 'name')
    // The first officer starts a workspace: on a path with none, the new officer's passphrase is read first, then a
    // workspace is created (0600 in a 0700 folder) and removed again if the registration is refused, so bad input leaves
    // nothing behind. Adding a further officer (--by) needs the workspace that officer is registered in.
    const path = workspacePath(values, ctx.cwd)
    const creating = !existsSync(path) && values.by === undefined && values['by-passphrase-file'] === undefined
    const newPassphrase = () => readPassphrase(values, ctx, { label: `The new passphrase for officer "${name.trim()}"`, confirm: true })
    const early = creating ? await newPassphrase() : undefined
    const store = openWorkspace(values, ctx.cwd, { create: creating })
    let registered = false
    try {
      const existing = officerRows(store.db)
      if (existing.some((o) => o.name === name.trim())) throw new UsageError(`An officer named "${name.trim()}" is already registered`)
      // Who adds the new officer is checked first (an existing officer's passphrase), then the new passphrase is read.
      let by: { officer?: string; passphrase: string } | undefined
      if (existing.length > 0) {
        by = {
          officer: optString(values, 'by'),
          passphrase: await readPassphrase(values, ctx, {
            fileOption: 'by-passphrase-file',
            envVar: BY_PASSPHRASE_ENV,
            label: 'The passphrase of the registered officer who adds the new one'
          })
        }
      }
      const passphrase = early ?? (await newPassphrase())
      const o = registerOfficer(store.db, { name, passphrase, by })
      registered = true
      return {
        json: { officer: { keyId: o.keyId, name: o.name, createdAt: o.createdAt, addedBy: o.addedBy } },
        text: [
          `Officer "${o.name}" registered${o.addedBy === o.keyId ? ' (the first officer of this workspace)' : ` by ${o.addedByName}`}.`,
          `Key id: ${o.fingerprint}`,
          'Keep the key id somewhere else: ledger verify names the key behind every signature. The passphrase cannot be recovered.'
        ].join('\n')
      }
    } finally {
      store.close()
      if (creating && !registered) for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true })
    }
  }
}
