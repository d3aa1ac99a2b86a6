import type { BadRow } from '../../../../src-main/contract'
import { formatCount } from '../../format'

/** Bad rows as readable sentences: "Line 1,204: 5 fields, the header has 6." */
export function BadRowReport(props: { rows: BadRow[]; total: number }) {
  return (
    <div className="bad-rows" data-testid="bad-row-report">
      <ul>
        {props.rows.map((r, i) => (
          <li key={i}>
            <strong>Line {formatCount(r.line)}</strong>: {r.reason}
          </li>
        ))}
      </ul>
      {props.total > props.rows.length && (
        <p className="hint">
          …and {formatCount(props.total - props.rows.length)} more (the first {props.rows.length} are listed).
        </p>
      )}
    </div>
  )
}
