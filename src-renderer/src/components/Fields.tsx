/** Labelled form controls: every control has a visible label, and an optional hint under it. */
import { useId, type ReactNode } from 'react'

export { parseNumber } from './numberText'

export function TextField(props: {
  label: string
  value: string
  onChange: (v: string) => void
  hint?: ReactNode
  placeholder?: string
  testId?: string
  required?: boolean
  invalid?: boolean
  width?: 'narrow' | 'wide'
}) {
  const id = useId()
  return (
    <div className={`field ${props.width ?? ''}`}>
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        type="text"
        value={props.value}
        placeholder={props.placeholder}
        required={props.required}
        onChange={(e) => props.onChange(e.target.value)}
        data-testid={props.testId}
        aria-invalid={props.invalid || undefined}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
      />
      {props.hint && (
        <span className="field-hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      )}
    </div>
  )
}

/** A number typed as text (so partial input like "0." survives); `parseNumber` reads it. */
export function NumberField(props: {
  label: string
  value: string
  onChange: (v: string) => void
  hint?: ReactNode
  testId?: string
  invalid?: boolean
  width?: 'narrow' | 'normal'
}) {
  const id = useId()
  return (
    <div className={`field ${props.width === 'normal' ? '' : 'narrow'}`}>
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        type="text"
        inputMode="decimal"
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        data-testid={props.testId}
        aria-invalid={props.invalid || undefined}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
      />
      {props.hint && (
        <span className="field-hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      )}
    </div>
  )
}

export function SelectField<T extends string>(props: {
  label: string
  value: T
  options: Array<{ value: T; label: string }>
  onChange: (v: T) => void
  hint?: ReactNode
  testId?: string
  disabled?: boolean
  width?: 'wide' | 'full'
}) {
  const id = useId()
  return (
    <div className={`field select ${props.width ?? ''}`}>
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.value as T)}
        data-testid={props.testId}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.hint && (
        <span className="field-hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      )}
    </div>
  )
}

/** "1, 10, 20" -> numbers (or the raw words for switches such as "none"). */
export function parseList(text: string): Array<number | string> {
  return text
    .split(/[,;\s]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (Number.isFinite(Number(s)) ? Number(s) : s))
}

export function ErrorText(props: { error: string | null | undefined; testId?: string }) {
  if (!props.error) return null
  return (
    <p className="error" role="alert" data-testid={props.testId}>
      {props.error}
    </p>
  )
}
