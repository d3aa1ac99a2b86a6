/**
 * What the officer field of an officer act offers: a choice among the registered officers whenever one is registered
 * (the only one preselected, several behind "Choose…"), and a typed name only while none is. Pure: unit-tested under Node.
 */
export type OfficerChoice = { kind: 'select'; value: string; options: Array<{ value: string; label: string }> } | { kind: 'text' }

export function officerChoices(names: readonly string[], chosen: string): OfficerChoice {
  if (names.length === 0) return { kind: 'text' }
  if (names.length === 1) return { kind: 'select', value: names[0], options: [{ value: names[0], label: names[0] }] }
  // A name no longer registered (or typed before the list arrived) is not kept as the choice.
  const value = names.includes(chosen.trim()) ? chosen.trim() : ''
  return { kind: 'select', value, options: [{ value: '', label: 'Choose…' }, ...names.map((n) => ({ value: n, label: n }))] }
}

/**
 * The officer an act is sent for: the chosen name when it is registered, the only officer when nothing (or a name no
 * longer registered) is chosen, else '' (the form asks to choose). While none is registered, the typed name as it is.
 */
export function resolveOfficerName(names: readonly string[], typed: string): string {
  const t = typed.trim()
  if (names.length === 0) return t
  if (names.includes(t)) return t
  return names.length === 1 ? names[0] : ''
}
