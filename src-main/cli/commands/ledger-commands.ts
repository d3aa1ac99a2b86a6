/**
 * Store commands of the ledger area: release, ledger [verify|unlock], budget, demo.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { PLANTED, STREAM_HOURS, STREAM_START, writeOccupancyStream } from '../demo-stream'
import type { QueryKind } from '../../contract/datasets'
import { type CliReader, REQUESTED_KIND_LIST, RELEASE_KIND_SPECS, type RequestedKind, releaseKindsOf } from '../../contract/release-kinds'
import type { AccountInfo } from '../../contract/accounts'
import type { CheckpointResult, ExPostCosts, LedgerVerifyResult, PrivacyNotion, ReleaseParams, ReleaseRecord } from '../../contract/ledger'
import { isUserError } from '../../services'
import {
  type Store,
  NOTIONS,
  alarmHistory,
  asReportSignature,
  createAlarm,
  runDueAlarms,
  auditorExport,
  checkWritable,
  checkpoint,
  datasetLedger,
  declarePublic,
  entriesText,
  getQuery,
  ledgerSummary,
  listAccounts,
  listEntries,
  lookupDataset,
  openStore,
  planImport,
  previewRelease,
  previewText,
  projectRoot,
  releaseAccuracy,
  registerOfficer,
  releaseText,
  resolveDataset,
  runImport,
  runRelease,
  saveQuery,
  setBudget,
  summaryText,
  unlockExPost,
  verifyLedger,
  writeAtomically
} from '../../services/local'
import { decimalText } from '../../contract/decimal-text'
import type { LedgerReceipt } from '../../contract/ledger'
import { ledgerReceiptSchema } from '../../contract/schemas/requests'
import { formatCharge, formatRemaining } from '../../contract/format-epsilon'
import { RELEASE_PARAMS, rangeText } from '../../contract/release-params'
import { falsePositiveBand } from '../../../src-worker/engine/mide/guarantee'
import { OFFICER_OPTIONS, readPassphrase } from '../passphrase'
import { REMOTE_OPTIONS, remoteCall, remoteTarget } from '../remote'
import { remoteDatasetOf, remoteLedger, remoteRelease } from './remote-store-commands'
import { openWorkspace } from '../workspace'
import {
  type CliCommand,
  type CliResult,
  type CliValues,
  UsageError,
  choice,
  optNumber,
  optString,
  reqNumber,
  reqString,
  requireOptions
} from '../command'

function openDb(values: CliValues, ctx: { cwd: string }, readOnly = false): Store {
  return openWorkspace(values, ctx.cwd, { create: false, readOnly })
}

function withStore<T>(values: CliValues, ctx: { cwd: string }, f: (store: Store) => T, readOnly = false): T {
  const store = openDb(values, ctx, readOnly)
  try {
    return f(store)
  } finally {
    store.close()
  }
}

const DB_OPTION = {
  db: { type: 'string' as const, description: 'workspace database file', defaultText: '$QUIET_ALARM_DB or the user data folder' },
  ...REMOTE_OPTIONS
}
/** Said in the usage of the commands that also work on a service. */
const OR_SERVER = '   (or --server URL --credential-file F [--ca-file CA] instead of --db)'

// ---------------------------------------------------------------------------------------------------------------
// release

/** The kinds' option readers (their specs read their own options: contract/kinds/). */
function cliReader(values: CliValues): CliReader {
  return {
    require: (names, forWhat) => requireOptions(values, names, forWhat),
    string: (name) => optString(values, name),
    number: (name, range) => reqNumber(values, name, range),
    optionalNumber: (name, fallback, range) => optNumber(values, name, fallback, range),
    choice: (name, fallback, choices) => choice(name, optString(values, name) ?? fallback, choices)
  }
}

/** The release kind asked for (`--kind`), or the one kind that answers the saved query's kind. */
function releaseKindFor(queryKind: QueryKind, values: CliValues): RequestedKind {
  const kinds = releaseKindsOf(queryKind)
  const asked = optString(values, 'kind')
  if (asked === undefined) return kinds[0]
  return choice('kind', asked, kinds)
}

function releaseParams(queryKind: QueryKind, values: CliValues): ReleaseParams {
  return RELEASE_KIND_SPECS[releaseKindFor(queryKind, values)].cliParams(cliReader(values))
}

/** Each threshold mechanism's false-positive band at the defaults, in alphas (engine/mide/guarantee.ts; the preview states the request's). */
const ALPHA_BANDS = (() => {
  const T = RELEASE_PARAMS.threshold
  const p = { alpha: 1, beta: T.beta.start, epsMax: 1e9, eps1: T.eps1.default, steps: T.steps.default, fineSteps: T.fineSteps.default }
  return (
    T.mechanism.choices.map((m) => `${m} ${Number(falsePositiveBand(m, p)!.toPrecision(3))} alpha`).join(', ') + ` at beta ${p.beta} and the defaults`
  )
})()

export const releaseCommand: CliCommand = {
  name: 'release',
  required: () => ['query'],
  summary: 'Run a saved query as a charged release (real data, secure noise, charged to the ledger)',
  usage: `release --db PATH --query ID [--preview] ${REQUESTED_KIND_LIST.map((k) => RELEASE_KIND_SPECS[k].cliUsage).join('; ')}${OR_SERVER}`,
  options: {
    ...DB_OPTION,
    query: { type: 'string', description: 'saved query id' },
    kind: {
      type: 'string',
      description: `the release kind, where more than one answers the query's kind: ${REQUESTED_KIND_LIST.join(' | ')}`,
      defaultText: "the query's kind"
    },
    preview: {
      type: 'boolean',
      description: 'show the cost, whether it would be admitted and (anomaly questions) the accuracy against epsilon; spend nothing'
    },
    mechanism: {
      type: 'string',
      description: REQUESTED_KIND_LIST.map((k) => RELEASE_KIND_SPECS[k].cliMechanism)
        .filter((t) => t !== '')
        .join('; '),
      defaultText: `${RELEASE_PARAMS.threshold.mechanism.default} / ${RELEASE_PARAMS.anomalyIdentification.mechanism.default}`
    },
    beta: {
      type: 'string',
      description: `threshold: largest probability of missing a true violation, ${rangeText(RELEASE_PARAMS.threshold.beta.range)}`
    },
    alpha: { type: 'string', description: `threshold: counts within the band under the threshold may be flagged (${ALPHA_BANDS})` },
    'eps-max': { type: 'string', description: 'threshold: refuse if the charge would exceed this' },
    eps1: { type: 'string', description: 'ppwlm/dppwlm: first step epsilon', defaultText: String(RELEASE_PARAMS.threshold.eps1.default) },
    steps: { type: 'string', description: 'ppwlm/dppwlm: planned steps m', defaultText: String(RELEASE_PARAMS.threshold.steps.default) },
    'fine-steps': {
      type: 'string',
      description: 'dppwlm: fine grid points per interval',
      defaultText: String(RELEASE_PARAMS.threshold.fineSteps.default)
    },
    epsilon: { type: 'string', description: 'anomaly identification: epsilon per record asked' },
    actor: { type: 'string', description: 'who asks (recorded in the ledger)', defaultText: 'analyst' }
  },
  async run(values, _pos, ctx) {
    const remote = remoteTarget(values, ctx.cwd)
    if (remote) return remoteRelease(remote, values, (kind) => releaseParams(kind, values))
    const queryId = reqNumber(values, 'query', { integer: true, ge: 1 })
    const store = openDb(values, ctx)
    try {
      const query = getQuery(store.db, queryId)
      const params = releaseParams(query.kind, values)
      const req = { queryId, params, actor: optString(values, 'actor') }
      if (values.preview) {
        const p = previewRelease(store.db, req)
        // Accuracy against epsilon (anomaly questions; public inputs only; a search's is simulated, seeded).
        const accuracy = RELEASE_KIND_SPECS[params.kind].accuracyPreview ? await releaseAccuracy(store.db, req) : null
        return {
          json: { preview: p, ...(accuracy ? { accuracy } : {}) },
          text: previewText(p) + (accuracy ? `\nAccuracy: ${accuracy.sentence}` : '')
        }
      }
      // The workbench: the analyst holds the file, so nothing is padded or held.
      const r = runRelease(store.db, req)
      return { json: { release: r }, text: releaseText(r) }
    } finally {
      store.close()
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// ledger

function checkpointResult(c: CheckpointResult, receiptFile: string | undefined): CliResult {
  if (receiptFile !== undefined) writeAtomically(receiptFile, JSON.stringify(c.receipt, null, 2) + '\n')
  return {
    json: { checkpoint: c },
    text:
      `Checkpoint signed by officer "${c.officer}": ledger entry ${c.ledgerSeq} (head ${c.ledgerHash.slice(0, 16)}) and audit event ${c.auditId}. A rewrite of anything up to here is now detected by ledger verify.` +
      (receiptFile === undefined
        ? ''
        : ` Receipt written to ${receiptFile}: keep it outside the workspace; "ledger verify --receipt" then detects a rollback or a rewrite up to here.`)
  }
}

function verifyResult(v: LedgerVerifyResult): CliResult {
  if (!v.ok) {
    // A head not found beside an intact chain: the head this workspace has now, to compare with the one written down.
    const text = v.firstBroken === null ? `${v.message}\nThis ledger's head now: ${v.headHash}` : v.message
    return { json: { verify: v }, text, exitCode: 3, stderrLine: v.message }
  }
  return { json: { verify: v }, text: `${v.message}\nFull head hash (keep it elsewhere; pass it back with --head): ${v.headHash}` }
}

function exPostResult(ex: ExPostCosts): CliResult {
  const lines = [
    `SEALED COSTS of release ${ex.releaseId} (officer view; this unlock was signed and recorded in the audit log)`,
    `Charged (worst case): ${formatCharge(ex.chargedExact)}; actually spent (largest): ${formatCharge(ex.spentMax)}`
  ]
  if (ex.queries !== undefined) lines.push(`Queries asked: ${ex.queries}`)
  for (const p of ex.perPredicate?.slice(0, 50) ?? []) lines.push(`  ${p.predicate.join(' / ')}: ${formatCharge(p.epsilon)}`)
  return { json: { exPost: ex }, text: lines.join('\n') }
}

export const ledgerCommand: CliCommand = {
  name: 'ledger',
  required: (_values, pos) => (pos[0] === 'unlock' ? ['release', 'reason'] : pos[0] === 'export' ? ['auditor'] : []),
  summary: 'Show the privacy-budget ledger; "ledger verify" checks its hash chain; "ledger unlock" opens sealed costs (officer)',
  usage:
    'ledger --db PATH [--dataset D] [--limit N] | ledger verify --db PATH [--head HASH] [--receipt FILE] [--report-signature S [--report R]] | ledger unlock --db PATH --release ID --reason TEXT [--officer NAME] [--passphrase-file F] | ledger checkpoint --db PATH [--officer NAME] [--passphrase-file F] [--receipt FILE] | ledger export --db PATH --auditor FILE [--officer NAME] [--passphrase-file F]' +
    OR_SERVER,
  subcommands: ['verify', 'unlock', 'checkpoint', 'export'],
  options: {
    ...DB_OPTION,
    dataset: { type: 'string', description: 'one dataset (id or name)' },
    limit: { type: 'string', description: 'entries to list', defaultText: '20' },
    cells: { type: 'string', description: 'most-spent cells to list per notion', defaultText: '5' },
    head: {
      type: 'string',
      description: 'verify: a head hash recorded earlier (or its first 16 or more hex digits), to detect a rewrite after the last checkpoint'
    },
    receipt: {
      type: 'string',
      description:
        'checkpoint: also write the signed heads to this file, to keep outside the workspace; verify: check the workspace against such a receipt (a rollback or a rewrite up to it fails)'
    },
    auditor: {
      type: 'string',
      description:
        'export: write the auditor export here (ledger, audit events, public keys, checkpoints, spend, mechanisms; no rows, no keys, no sealed costs), signed by the officer with a checkpoint'
    },
    'report-signature': {
      type: 'string',
      description:
        "verify: a signed report's signature file (R.signature.json, written beside an officer edition's JSON): signed by a verified officer, tied to a checkpoint this workspace holds, its head still in the chain"
    },
    report: { type: 'string', description: "verify, with --report-signature: the report's JSON export, whose SHA-256 must be the one signed" },
    release: { type: 'string', description: 'unlock: release id' },
    reason: { type: 'string', description: 'unlock: why (recorded)' },
    ...OFFICER_OPTIONS
  },
  async run(values, positionals, ctx) {
    const sub = positionals[0]
    // Officer acts: the passphrase is read (file, environment, prompt) before the workspace is touched.
    let cred: { officer?: string; passphrase: string } | undefined
    const auditorPath = optString(values, 'auditor')
    const auditorFile = auditorPath === undefined ? undefined : resolve(ctx.cwd, auditorPath)
    if (auditorFile !== undefined && sub !== 'export') throw new UsageError('--auditor goes with "ledger export"')
    if (sub === 'export') {
      if (remoteTarget(values, ctx.cwd)) throw new UsageError('ledger export reads the workspace file: run it where the workspace is, with --db')
      checkWritable(auditorFile!)
    }
    if (sub === 'unlock' || sub === 'checkpoint' || sub === 'export') {
      if (sub === 'unlock') {
        reqNumber(values, 'release', { integer: true, ge: 1 })
        reqString(values, 'reason')
      }
      cred = { officer: optString(values, 'officer'), passphrase: await readPassphrase(values, ctx, { label: "The privacy officer's passphrase" }) }
    }
    const receiptPath = optString(values, 'receipt')
    const receiptFile = receiptPath === undefined ? undefined : resolve(ctx.cwd, receiptPath)
    if (receiptFile !== undefined && sub !== 'checkpoint' && sub !== 'verify')
      throw new UsageError('--receipt goes with "ledger checkpoint" or "ledger verify"')
    if (receiptFile !== undefined && sub === 'checkpoint') checkWritable(receiptFile)
    const receipt = receiptFile !== undefined && sub === 'verify' ? readReceipt(receiptFile) : undefined
    const remote = remoteTarget(values, ctx.cwd)
    if (remote) {
      if (optString(values, 'report-signature') !== undefined)
        throw new UsageError('--report-signature is checked against the workspace file: run ledger verify with --db')
      if (sub === undefined) return remoteLedger(remote, values)
      if (sub === 'verify') return verifyResult(await remoteCall(remote, 'ledger/verify', { expectHead: optString(values, 'head'), receipt }))
      if (sub === 'checkpoint') return checkpointResult(await remoteCall(remote, 'ledger/checkpoint', cred!), receiptFile)
      const releaseId = reqNumber(values, 'release', { integer: true, ge: 1 })
      return exPostResult(await remoteCall(remote, 'officer/unlock-ex-post', { releaseId, reason: reqString(values, 'reason'), ...cred }))
    }
    return withStore(
      values,
      ctx,
      (store) => {
        if (sub === 'checkpoint') return checkpointResult(checkpoint(store.db, cred!), receiptFile)
        if (sub === 'export') {
          const doc = auditorExport(store.db, cred!)
          writeAtomically(auditorFile!, JSON.stringify(doc, null, 1) + '\n')
          const summary = {
            file: auditorFile!,
            entries: doc.records.entries.length,
            auditEvents: doc.records.auditEvents.length,
            officers: doc.records.officers.length,
            checkpoint: doc.checkpoint,
            dataSha256: doc.signature.dataSha256
          }
          return {
            json: { export: summary },
            text:
              `Auditor export written to ${auditorFile}: ${summary.entries} ledger entries, ${summary.auditEvents} audit events, ${summary.officers} officers' public keys, ` +
              `spend per dataset and each charge's mechanism, signed by officer "${doc.signature.officer}" with checkpoint ${doc.checkpoint.id} (entry ${doc.checkpoint.ledgerSeq}, audit event ${doc.checkpoint.auditId}). ` +
              `No rows, wrapped keys or sealed costs are in it. Check it without Quiet Alarm: python3 resources/verifier/verify.py ${auditorPath}`
          }
        }
        if (sub === 'verify') return verifyResult(verifyLedger(store.db, optString(values, 'head'), receipt, readReportSignature(values, ctx.cwd)))
        if (sub === 'unlock') {
          const releaseId = reqNumber(values, 'release', { integer: true, ge: 1 })
          return exPostResult(unlockExPost(store.db, { releaseId, reason: reqString(values, 'reason'), ...cred }))
        }
        const ref = optString(values, 'dataset')
        // A deleted dataset keeps its ledger history under its id and last name.
        const dataset = ref === undefined ? undefined : lookupDataset(store.db, ref, { includeDeleted: true })
        if (ref !== undefined && !dataset)
          throw new UsageError(
            `--dataset: there is no dataset "${ref.slice(0, 80)}" in this workspace or its ledger; list them with "quiet-alarm datasets list"`
          )
        const datasetId = dataset?.id
        const limit = optNumber(values, 'limit', 20, { integer: true, ge: 1, le: 1000 })
        const cells = optNumber(values, 'cells', 5, { integer: true, ge: 0, le: 1000 })
        const summary = ledgerSummary(store.db, { datasetId })
        const entries = listEntries(store.db, { datasetId, limit })
        const v = verifyLedger(store.db)
        return {
          json: { summary, entries: entries.entries, total: entries.total, verify: v },
          text: [summaryText(summary, { cells }), '', entriesText(entries.entries, entries.total), '', v.message].join('\n')
        }
        // The ledger and its verification only read: an older workspace is refused, not migrated.
      },
      sub === undefined || sub === 'verify'
    )
  }
}

// ---------------------------------------------------------------------------------------------------------------
// budget

export const budgetCommand: CliCommand = {
  name: 'budget',
  required: (values) => (values.freeze === true ? ['dataset', 'reason'] : ['dataset', 'epsilon', 'reason']),
  summary:
    'Set or change a dataset budget per person (or row), or with --notion a cap on one notion (privacy officer; the reason is recorded in the ledger)',
  usage:
    'budget --db PATH --dataset D (--epsilon E | --freeze) --reason TEXT [--analyst NAME] [--notion eps-dp|predicate-wise-dp|eps-k-sensitive|anomaly-restricted-dp] [--officer NAME] [--passphrase-file F]' +
    OR_SERVER,
  options: {
    ...DB_OPTION,
    dataset: { type: 'string', description: 'dataset id or name' },
    epsilon: { type: 'string', description: 'the new budget (decimal; rounded down to 1e-9)' },
    reason: { type: 'string', description: 'why (required, recorded)' },
    notion: { type: 'string', description: 'an extra cap on one notion only', defaultText: 'the budget per unit, summed over notions' },
    analyst: {
      type: 'string',
      description:
        "an analyst account's allotment of the dataset's budget (the allotments sum to at most it; the analyst is held to their own alone)",
      defaultText: "the dataset's budget"
    },
    freeze: { type: 'boolean', description: 'no further releases: the budget becomes what is already spent (instead of --epsilon)' },
    ...OFFICER_OPTIONS
  },
  async run(values, _pos, ctx) {
    const ref = reqString(values, 'dataset')
    const freeze = values.freeze === true
    const typed = freeze ? '0' : reqString(values, 'epsilon')
    const epsilon = decimalText(typed)
    if (epsilon === null) throw new UsageError(`--epsilon must be a number of 0 or more, such as 2.5, 10000000.0 or 1e3 (got "${typed}")`)
    const reason = reqString(values, 'reason')
    const notionRaw = optString(values, 'notion')
    const notion = notionRaw === undefined ? undefined : choice('notion', notionRaw, NOTIONS as readonly PrivacyNotion[])
    // The dataset is checked before the passphrase is asked for (a typo is reported first).
    const remote = remoteTarget(values, ctx.cwd)
    const ds = remote ? await remoteDatasetOf(remote, values) : withStore(values, ctx, (store) => resolveDataset(store.db, ref).info)
    const analystName = optString(values, 'analyst')
    const analyst =
      analystName === undefined
        ? undefined
        : analystAccount(
            remote ? await remoteCall(remote, 'accounts/list', {}) : withStore(values, ctx, (store) => listAccounts(store.db)),
            analystName
          )
    const passphrase = await readPassphrase(values, ctx, { label: "The privacy officer's passphrase" })
    const input = { datasetId: ds.id, epsilon, notion, reason, officer: optString(values, 'officer'), passphrase, freeze, analyst: analyst?.id }
    const { entry, account } = remote
      ? await remoteCall(remote, 'budgets/set', input)
      : withStore(values, ctx, (store) => {
          const entry = setBudget(store.db, input)
          return { entry, account: datasetLedger(store.db, ds.id) }
        })
    const per = `per ${account.unitKind === 'person' ? 'person' : 'row'}`
    const own = analyst === undefined ? undefined : account.byAnalyst.find((a) => a.accountId === analyst.id)
    const head =
      analyst === undefined
        ? [
            `Budget of "${ds.name}" for ${notion ?? `each ${account.unitKind === 'person' ? 'person' : 'row'}, summed over notions,`} set to ${formatCharge(entry.epsilonExact)} (ledger entry #${entry.seq}, signed by officer ${entry.actor}: "${entry.description}").`
          ]
        : [
            `Analyst "${analyst.name}"'s own budget on "${ds.name}"${notion ? ` (${notion})` : ''} set to ${formatCharge(entry.epsilonExact)} (ledger entry #${entry.seq}, signed by officer ${entry.actor}: "${entry.description}"); the dataset's budget still binds them.`,
            `  Their own releases have spent ${formatCharge(own?.spentPerUnitExact ?? '0')} ${per} (summed over notions).`,
            `The dataset "${ds.name}", every analyst together:`
          ]
    const text = [
      ...head,
      `  Spent ${per} (summed over notions): ${formatCharge(account.spentPerUnitExact)} of ${account.budgetPerUnitSource === 'none' ? 'no budget' : formatCharge(account.budgetPerUnitExact)}; unit: ${account.unitText}.`,
      ...account.accounts.map(
        (a) =>
          `  ${a.label}: own budget ${a.budgetExact === null ? '-' : formatCharge(a.budgetExact)}, spent ${formatCharge(a.spentExact)}, remaining ${a.remainingExact === null ? '-' : formatRemaining(a.remainingExact)}`
      )
    ].join('\n')
    return { json: { entry, account }, text }
  }
}

/** The analyst account named NAME (or #ID), refused with one sentence when it is not an analyst account in force. */
function analystAccount(accounts: AccountInfo[], ref: string): AccountInfo {
  const r = ref.trim()
  const hit = accounts.find((a) => a.name === r) ?? (/^#?\d+$/.test(r) ? accounts.find((a) => a.id === Number(r.replace('#', ''))) : undefined)
  if (!hit) throw new UsageError(`--analyst: there is no account named "${r.slice(0, 80)}"; list them with "quiet-alarm account list"`)
  if (hit.role !== 'analyst')
    throw new UsageError(
      `--analyst: "${hit.name}" is ${hit.role === 'officer' ? 'an' : 'a'} ${hit.role} account; a budget may name an analyst account only`
    )
  if (hit.status !== 'active') throw new UsageError(`--analyst: account "${hit.name}" is ${hit.status}; a budget may name an account in force only`)
  return hit
}

// ---------------------------------------------------------------------------------------------------------------
// demo

const DEMO_FILE = 'quiet-alarm-demo.sqlite'
/** The demo officer's passphrase, printed by the demo (demo workspaces only). */
export const DEMO_PASSPHRASE = 'quiet alarm demo officer'

async function importSample(store: Store, file: string, name: string, personColumn?: string): Promise<{ id: number; rows: number }> {
  const path = resolve(projectRoot(), 'resources', 'sample', file)
  if (!existsSync(path))
    throw new UsageError(`The bundled sample ${path} is missing; regenerate it with "node --import tsx resources/sample/make-occupancy.ts"`)
  const result = await runImport(store.db, planImport(store.db, { path, name, onBadRow: 'abort', personColumn }))
  return { id: result.dataset.id, rows: result.dataset.rowCount }
}

/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/** The command that opens a workspace in the app (headless mode), run from the project's folder. */
export function openInAppCommand(dbPath: string, cwd: string): string {
  const root = projectRoot()
  return `${resolve(cwd) === root ? '' : `cd ${shellQuote(root)} && `}npm run serve -- --db ${shellQuote(dbPath)}`
}

export const demoCommand: CliCommand = {
  name: 'demo',
  summary: 'Create a demo workspace from the bundled synthetic sample, run one release of each kind, print the ledger',
  usage: 'demo [--db PATH] [--force] [--without-stream]',
  options: {
    db: { type: 'string', description: 'where to create the demo workspace', defaultText: `./${DEMO_FILE}` },
    force: { type: 'boolean', description: 'replace an existing file at --db' },
    'without-stream': { type: 'boolean', description: 'leave out the watched stream (its datasets, alarm and charges): the one-shot releases only' }
  },
  async run(values, _pos, ctx) {
    const path = resolve(ctx.cwd, optString(values, 'db') ?? DEMO_FILE)
    if (existsSync(path)) {
      if (!values.force) throw new UsageError(`${path} already exists; pass --force to replace it, or choose another --db`)
      for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })
    }
    const store = openStore(path, { projectRoot: projectRoot() })
    const out: string[] = []
    const releases: ReleaseRecord[] = []
    const failures: string[] = []
    try {
      out.push(`Quiet Alarm demo workspace: ${path}`, 'Sample: a SYNTHETIC building-occupancy log (resources/sample; no real person is in it).', '')
      ctx.progress('importing the sample ...')
      // Units: a person has many rows in the occupancy log (person-level, by person_id); person-hours has one row per
      // person (person-level too); room capacities are about rooms, not persons (row-level).
      const occ = await importSample(store, 'occupancy.csv', 'occupancy', 'person_id')
      const cap = await importSample(store, 'capacities.csv', 'capacities')
      const ph = await importSample(store, 'person-hours.csv', 'person-hours', 'person_id')
      out.push(
        `1. Imported: occupancy (${occ.rows} rows: person x room x hour; unit: person, by person_id), capacities (${cap.rows} rooms; unit: row), ` +
          `person-hours (${ph.rows} persons; unit: person, by person_id).`
      )
      // The demo's privacy officer: a real key under a passphrase printed here (a demo only: never print a real one).
      const officer = 'Privacy Officer (demo)'
      const passphrase = DEMO_PASSPHRASE
      const reg = registerOfficer(store.db, { name: officer, passphrase })
      out.push(
        `   Privacy officer "${officer}" registered (key ${reg.fingerprint}); its demo passphrase is "${DEMO_PASSPHRASE}".`,
        '   Budgets, public declarations, unlocks and checkpoints are signed with this key and need the passphrase.'
      )
      setBudget(store.db, {
        datasetId: occ.id,
        epsilon: '10',
        reason: 'Demo: budget per person for the fire-safety review of March 2024',
        officer,
        passphrase
      })
      setBudget(store.db, {
        datasetId: ph.id,
        epsilon: '40',
        reason: 'Demo: budget per person; the anomaly search may ask up to 15 questions at epsilon 2 each',
        officer,
        passphrase
      })
      declarePublic(store.db, {
        datasetId: cap.id,
        reason: 'Demo: room capacities are posted at every door (fire-safety signage)',
        officer,
        passphrase
      })
      out.push(
        '2. Budgets per person set by the privacy officer (what one person may lose, summed over every notion): 10 on occupancy, 40 on person-hours (reasons recorded).',
        '   The officer declared "capacities" public (room capacities are posted at every door): only public data may supply thresholds and group lists.'
      )
      const q1 = saveQuery(store.db, occ.id, 'Rooms over capacity, Tue 12 March 14:00', {
        kind: 'threshold',
        period: { column: 'timestamp', from: '2024-03-12T14:00:00Z', to: '2024-03-12T15:00:00Z' },
        groupBy: ['building', 'room'],
        // In one hour a person is in one room (the log has one row per person and hour): maxGroups 1 charges one
        // room's epsilon per person, and truncates anyone the log shows in two rooms to one of them at random.
        count: { kind: 'persons', personColumn: 'person_id', cap: 1, maxGroups: 1 },
        threshold: { kind: 'column', datasetId: cap.id, column: 'capacity' }
      })
      const q2 = saveQuery(store.db, occ.id, 'Unusual presence (building, hour)', {
        kind: 'anomaly-identification',
        columns: ['building', 'hour_of_day'],
        binWidths: [null, 1],
        metric: 'l1',
        radius: 1,
        beta: 5,
        k: 2,
        records: [
          ['C', 3],
          ['D', 21],
          ['A', 14]
        ]
      })
      const q3 = saveQuery(store.db, ph.id, 'Who is on site far too long?', {
        kind: 'anomaly-search',
        scoreColumn: 'hours_on_site',
        idColumn: 'person_id',
        // The individuals searched are public: the badge numbers issued (P0001 to P0900), not read from the data.
        individuals: Array.from({ length: 900 }, (_, i) => `P${String(i + 1).padStart(4, '0')}`),
        tLow: 50,
        tHigh: 120,
        // 15 questions: narrowing 900 persons down to 4 takes 8 exact answers, and about 13 at the 0.62 bits an answer of
        // the direct oracle carries at epsilon 2 (Prop. 3's rate; fewer than 13 are refused, nothing spent).
        epsilonPerQuery: 2,
        budget: 30,
        oracle: 'direct',
        top: 4
      })
      out.push(
        `3. Saved queries: #${q1.id} "${q1.name}" (threshold), #${q2.id} "${q2.name}" (anomaly identification), #${q3.id} "${q3.name}" (anomaly search).`,
        '4. One release of each kind (charged before it runs; decisions only):',
        ''
      )
      const runs: Array<[number, ReleaseParams]> = [
        [q1.id, { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1 }],
        [q2.id, { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 1 }],
        [q3.id, { kind: 'anomaly-search' }]
      ]
      for (const [queryId, params] of runs) {
        ctx.progress(`release of query ${queryId} ...`)
        try {
          const r = runRelease(store.db, { queryId, params, actor: 'analyst (demo)' })
          releases.push(r)
          out.push(releaseText(r), '')
        } catch (e) {
          if (!isUserError(e)) throw e
          failures.push(`query ${queryId}: ${e.message}`)
          out.push(`Release of query ${queryId} not made: ${e.message}`, '')
        }
      }
      // A watched stream: three days of the occupancy log hour by hour with three planted over-capacity hours, an alarm
      // on rooms over their public capacity in when-fires mode, evaluated as `alarm run-due` evaluates each hour as it closes.
      if (!values['without-stream']) {
        ctx.progress('watching the occupancy stream ...')
        const streamDir = mkdtempSync(join(tmpdir(), 'quiet-alarm-demo-'))
        let stream: { id: number; rows: number }
        let large: { id: number }
        try {
          const capacities = readFileSync(resolve(projectRoot(), 'resources', 'sample', 'capacities.csv'), 'utf8')
            .trim()
            .split('\n')
            .slice(1)
            .map((l) => l.split(','))
            .map(([building, room, capacity]) => ({ building, room, capacity: Number(capacity) }))
          const streamPath = join(streamDir, 'occupancy-stream.csv')
          writeOccupancyStream(streamPath, capacities)
          const r = await runImport(
            store.db,
            planImport(store.db, { path: streamPath, name: 'occupancy stream', onBadRow: 'abort', personColumn: 'person_id' })
          )
          stream = { id: r.dataset.id, rows: r.dataset.rowCount }
          // The rooms with room for a crowd (capacity >= 20), a public table of their own: a room whose capacity is below
          // alpha could fire with any occupancy, so the alarm watches these.
          const largePath = join(streamDir, 'large-rooms.csv')
          writeFileSync(
            largePath,
            ['building,room,capacity', ...capacities.filter((c) => c.capacity >= 20).map((c) => `${c.building},${c.room},${c.capacity}`)].join('\n') +
              '\n'
          )
          const lr = await runImport(store.db, planImport(store.db, { path: largePath, name: 'large-room capacities', onBadRow: 'abort' }))
          large = { id: lr.dataset.id }
        } finally {
          rmSync(streamDir, { recursive: true, force: true })
        }
        declarePublic(store.db, {
          datasetId: large.id,
          reason: 'Demo: the capacities of the large rooms, posted at their doors',
          officer,
          passphrase
        })
        setBudget(store.db, {
          datasetId: stream.id,
          epsilon: '12',
          reason: 'Demo: budget per person for watching the rooms every hour (when-fires, a lifetime cap of 10)',
          officer,
          passphrase
        })
        const watched = saveQuery(store.db, stream.id, 'Large rooms over capacity', {
          kind: 'threshold',
          groupBy: ['building', 'room'],
          count: { kind: 'persons', personColumn: 'person_id', cap: 1 },
          threshold: { kind: 'column', datasetId: large.id, column: 'capacity' }
        })
        const alarm = createAlarm(store.db, {
          queryId: watched.id,
          timeColumn: 'timestamp',
          period: 'hour',
          start: STREAM_START,
          mode: 'when-fires',
          beta: 0.05,
          alpha: 10,
          fires: 3,
          lifetime: 10,
          reason: 'Demo: tell the fire-safety officer of any room over capacity, hour by hour',
          officer,
          passphrase
        })
        const streamEnd = new Date(Date.parse(STREAM_START) + STREAM_HOURS * 3_600_000)
        const watchedRun = runDueAlarms(store.db, streamEnd, { alarmId: alarm.alarmId })
        const history = alarmHistory(store.db, alarm.alarmId, { limit: 1000 })
        const firedPeriods = history.periods.filter((pv) => pv.fired.length > 0).reverse()
        out.push(
          `5. A watched stream: "occupancy stream" (${stream.rows} rows, ${STREAM_HOURS} hours from ${STREAM_START}; planted over capacity: ` +
            `${PLANTED.map(([h, room, n]) => `${room} ${n} persons at hour ${h}`).join(', ')}).`,
          `   Alarm #${alarm.alarmId} watches it every hour, when-fires: ${alarm.modeText}`,
          `   ${watchedRun.evaluated.length} hours evaluated as each closed ("alarm run-due"); fired in ${firedPeriods.length}:`,
          ...firedPeriods.map((pv) => `     ${pv.from.slice(0, 16).replace('T', ' ')}  ${pv.fired.join('; ')}`),
          `   Charged for the whole stream: epsilon ${history.alarm.spentExact} per person, one charge per instance of 3 fires (${history.alarm.instance?.ordinal ?? 1} started; the next starts after a third fire), not ${STREAM_HOURS} hours' worth.` +
            (watchedRun.paused.length ? ` ${watchedRun.paused.map((x) => x.reason).join(' ')}` : ''),
          ''
        )
      }
      checkpoint(store.db, { officer, passphrase })
      const summary = ledgerSummary(store.db, {})
      const entries = listEntries(store.db, { limit: 50 })
      const v = verifyLedger(store.db)
      out.push(
        '6. The ledger (the officer signed a checkpoint after the releases and the watched stream):',
        '',
        summaryText(summary),
        '',
        entriesText(entries.entries, entries.total),
        '',
        v.message
      )
      const db = shellQuote(path)
      const open = openInAppCommand(path, ctx.cwd)
      out.push(
        '',
        'Explore (from this folder):',
        `  npx quiet-alarm ledger --db ${db}`,
        `  npx quiet-alarm ledger verify --db ${db}`,
        `  npx quiet-alarm alarm history --db ${db} --alarm 1`,
        `  npx quiet-alarm release --db ${db} --query ${q1.id} --preview --beta 0.01 --alpha 1 --mechanism ppwlm`,
        `  QUIET_ALARM_PASSPHRASE='${DEMO_PASSPHRASE}' npx quiet-alarm ledger unlock --db ${db} --release 1 --reason "officer review"   (privacy officer; signed and recorded)`,
        '',
        'Open it in the app (it prints an address to open in a browser on this machine; with Electron: npm start -- --db ...):',
        `  ${open}`
      )
      return { json: { db: path, releases, failures, summary, verify: v, openInApp: open }, text: out.join('\n') }
    } finally {
      store.close()
    }
  }
}

export const ledgerCommands: CliCommand[] = [releaseCommand, ledgerCommand, budgetCommand, demoCommand]

/** A receipt file (`ledger checkpoint --receipt`), read and checked for shape; one sentence if it is not one. */
/** `--report-signature S [--report R]`: the signature file, read and checked for shape, and the report's bytes. */
function readReportSignature(
  values: CliValues,
  cwd: string
): { signature: NonNullable<ReturnType<typeof asReportSignature>>; bytes?: Uint8Array } | undefined {
  const sigPath = optString(values, 'report-signature')
  const reportPath = optString(values, 'report')
  if (sigPath === undefined) {
    if (reportPath !== undefined) throw new UsageError('--report goes with --report-signature (ledger verify)')
    return undefined
  }
  const file = resolve(cwd, sigPath)
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    throw new UsageError(`Cannot read ${file} as a report signature (JSON)`)
  }
  const signature = asReportSignature(parsed)
  if (signature === null) throw new UsageError(`${file} is not a report signature (written beside an officer edition's JSON by "quiet-alarm report")`)
  if (reportPath === undefined) return { signature }
  try {
    return { signature, bytes: readFileSync(resolve(cwd, reportPath)) }
  } catch {
    throw new UsageError(`Cannot read the report ${resolve(cwd, reportPath)}`)
  }
}

function readReceipt(file: string): LedgerReceipt {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    throw new UsageError(`Cannot read the receipt ${file}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new UsageError(`${file} is not a ledger receipt (not JSON)`)
  }
  const r = ledgerReceiptSchema.safeParse(parsed)
  if (!r.success) throw new UsageError(`${file} is not a ledger receipt (written by "quiet-alarm ledger checkpoint --receipt")`)
  return r.data
}
