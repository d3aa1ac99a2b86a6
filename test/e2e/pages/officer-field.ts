import type { Locator } from 'playwright-core'

/**
 * The officer of an officer act: chosen from the registered officers (a select), or typed while none is registered
 * (a text field beside the way to set one up).
 */
export async function chooseOfficer(field: Locator, name: string): Promise<void> {
  const tag = await field.evaluate((e) => e.tagName)
  if (tag === 'SELECT') await field.selectOption({ label: name })
  else await field.fill(name)
}

/** What the officer field offers: the registered officers' names (a select), or null for a typed name. */
export async function officerOptions(field: Locator): Promise<string[] | null> {
  const tag = await field.evaluate((e) => e.tagName)
  if (tag !== 'SELECT') return null
  return (await field.locator('option').allInnerTexts()).filter((t) => t !== 'Choose…')
}
