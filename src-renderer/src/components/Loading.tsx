/**
 * What a screen shows while it waits for an answer: a line that says what is being loaded (announced politely), never
 * the empty state of the data that has not arrived yet.
 */
export function Loading(props: { what: string; testId?: string }) {
  return (
    <p className="hint loading" role="status" aria-live="polite" data-testid={props.testId ?? 'loading'}>
      <span className="spinner" aria-hidden="true" /> Loading {props.what}…
    </p>
  )
}
