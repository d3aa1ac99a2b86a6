/** What the privacy unit field says about a unit the app chose, or suggests (import and link a file alike). Pure. */

/** Why the person column shown was preselected from its name. */
export function preselectedUnitReason(person: string): string {
  return `Preselected: the name “${person}” says it identifies a person, so each person (all of their rows together) is protected, not each row. Change it if “${person}” does not name a person, or if every row is a different person.`
}

/** Said beside a row-level choice when a column looks like it names a person. */
export function personUnitSuggestion(likely: string): string {
  return `“${likely}” looks like it names a person: if one person can have many rows, choose it as the privacy unit so that each person (not each row) is protected.`
}
