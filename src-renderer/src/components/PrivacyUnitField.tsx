/**
 * Who is protected: each row, or each person (all of their rows), identified by a column. One field for every panel that
 * makes a dataset (import, link a file, link PostgreSQL): a choice among the columns when they are known, else the
 * column's name typed (a linked source's columns are read when it is linked).
 */
import { SelectField, TextField } from './Fields'

export const ROW_LEVEL_LABEL = 'Each row is a different person (row-level)'

export function PrivacyUnitField(props: {
  /** The columns, when known; null: not yet (the column is typed). */
  columns: ReadonlyArray<{ name: string }> | null
  /** '' = row-level; else the person column. */
  value: string
  onChange: (personColumn: string) => void
  /** Why the choice shown was made for the user (shown under the field while it stands). */
  reason?: string | null
  testId: string
  disabled?: boolean
}) {
  if (props.columns === null) {
    return (
      <TextField
        label="Person column (optional)"
        value={props.value}
        onChange={props.onChange}
        hint="The privacy unit: the column identifying a person who may have many rows; leave empty if each row is a different person."
        testId={props.testId}
      />
    )
  }
  return (
    <SelectField
      label="Privacy unit (who is protected)"
      value={props.value}
      onChange={props.onChange}
      options={[
        { value: '', label: ROW_LEVEL_LABEL },
        ...props.columns.map((c) => ({ value: c.name, label: `A person is identified by “${c.name}” (person-level)` }))
      ]}
      hint={props.reason ? <span data-testid={`${props.testId}-reason`}>{props.reason}</span> : undefined}
      testId={props.testId}
      disabled={props.disabled}
      width="wide"
    />
  )
}
