/**
 * Choose a local file and hand it to the services as an opaque handle (never a path). Headless: a file field that
 * uploads the file, with a progress bar. Desktop: the shell's native dialog. One picker for every panel that takes a
 * file (import, link).
 */
import { useId, useState } from 'react'
import type { FileHandle, JobProgress } from '../../../src-main/contract'
import { useAction, useClient } from '../api/hooks'
import { baseName } from './fileName'
import { ProgressBar } from './ProgressBar'

export interface FilePickerProps {
  /** The field's label ("File to import"). */
  label: string
  /** The file field's `accept` (headless). */
  accept: string
  /** The native dialog's title and filters (desktop). */
  dialog: { title: string; filters: Array<{ name: string; extensions: string[] }> }
  /** The file chosen last (its name is shown: the field itself is cleared after each pick). */
  chosen: FileHandle | null
  /** What the hint says before any file is chosen. */
  emptyHint: string
  disabled?: boolean
  /** Test ids: `<prefix>-input`, `<prefix>-choose`, `<prefix>-chosen`, `<prefix>-pick-error`. */
  testIdPrefix: string
  /** A pick starts (the panel forgets the previous file). */
  onPick: () => void
  /** The file is with the services; an error thrown here is shown as the pick's error. */
  onPicked: (file: FileHandle) => void | Promise<void>
  /** Marks the error with the pick it belongs to (`data-pick`), so that a test can tell it from an earlier one. */
  pickKey?: number
}

export function FilePicker(props: FilePickerProps) {
  const client = useClient()
  const id = useId()
  const headless = client.transport.kind === 'http'
  const [upload, setUpload] = useState<{ sent: number; total: number; startedMs: number } | null>(null)
  const pick = useAction()
  const p = props.testIdPrefix

  const onFile = (file: File | undefined) => {
    if (!file) return
    props.onPick()
    void pick
      .run(async () => {
        if (!client.transport.upload) throw new Error('This window cannot upload files; use Choose file instead.')
        const startedMs = Date.now()
        setUpload({ sent: 0, total: file.size, startedMs })
        const handle = await client.transport.upload(file, (sent, total) => setUpload({ sent, total, startedMs }))
        setUpload(null)
        await props.onPicked(handle)
      })
      .finally(() => setUpload(null))
  }

  const chooseNative = () => {
    props.onPick()
    void pick.run(async () => {
      const { file } = await client.call('app/choose-file', props.dialog)
      if (file) await props.onPicked(file)
    })
  }

  const busy = pick.busy || props.disabled === true
  return (
    <>
      <div className="row">
        {headless ? (
          <div className="field">
            <label htmlFor={id}>{props.label}</label>
            <input
              id={id}
              type="file"
              accept={props.accept}
              onChange={(e) => {
                onFile(e.target.files?.[0])
                // Cleared so that picking the same file again (e.g. after fixing it) is a new pick.
                e.target.value = ''
              }}
              disabled={busy}
              data-testid={`${p}-input`}
              aria-describedby={`${id}-chosen`}
            />
            <span className="field-hint" id={`${id}-chosen`} data-testid={`${p}-chosen`}>
              {upload
                ? 'Uploading…'
                : pick.busy
                  ? 'Reading the file…'
                  : props.chosen
                    ? `Chosen: ${baseName(props.chosen.fileName)}`
                    : props.emptyHint}
            </span>
          </div>
        ) : (
          <div className="field">
            <span className="field-label">{props.label}</span>
            <button type="button" onClick={chooseNative} disabled={busy} data-testid={`${p}-choose`}>
              {pick.busy ? 'Reading the file…' : 'Choose file…'}
            </button>
            <span className="field-hint" data-testid={`${p}-chosen`}>
              {props.chosen ? `Chosen: ${baseName(props.chosen.fileName)}` : props.emptyHint}
            </span>
          </div>
        )}
      </div>
      {upload && <ProgressBar label="Uploading to the service" progress={uploadProgress(upload)} />}
      {pick.error && (
        <p className="error" role="alert" data-testid={`${p}-pick-error`} data-pick={props.pickKey}>
          {pick.error}
        </p>
      )}
    </>
  )
}

/** The upload as a progress in bytes, with its rate and time left. */
function uploadProgress(u: { sent: number; total: number; startedMs: number }): JobProgress {
  const seconds = Math.max(1e-3, (Date.now() - u.startedMs) / 1000)
  const rate = u.sent / seconds
  return {
    jobId: '',
    kind: 'upload',
    done: u.sent,
    total: u.total,
    unit: 'bytes',
    rate,
    etaSeconds: rate > 0 ? Math.max(0, u.total - u.sent) / rate : null
  }
}
