/**
 * HTML for the report template, escaped by default: the `markup` tag writes its literal parts as they are and escapes every
 * interpolated value, unless that value is itself `Html` (built by this tag). Data can therefore reach the document only
 * as text; markup comes only from template literals in this code (and the CSS constant passed through `trustedHtml`).
 */

/** Only this module makes Html: the tag, joins, and the constant-markup hatch. */
const MADE_HERE = Symbol('markup')

/** A piece of HTML built from templates: safe to insert as is. */
export class Html {
  readonly text: string

  constructor(text: string, token: symbol) {
    if (token !== MADE_HERE) throw new Error('Html is made by the markup tag only')
    this.text = text
  }

  toString(): string {
    return this.text
  }
}

const made = (text: string) => new Html(text, MADE_HERE)

/** What a template may interpolate: text and numbers (escaped), HTML (kept), nothing (empty), or a list of these. */
export type HtmlValue = Html | string | number | null | undefined | readonly HtmlValue[]

/** Text as HTML text or attribute value: & < > " ' escaped. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
}

function render(v: HtmlValue): string {
  if (v instanceof Html) return v.text
  if (v === null || v === undefined) return ''
  if (Array.isArray(v)) return (v as readonly HtmlValue[]).map(render).join('')
  return escapeHtml(String(v))
}

/** The tag: `markup\`<td>${name}</td>\`` escapes `name`; a nested `markup\`...\`` or a list of them is inserted as it is. */
export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]
  return made(out)
}

/** Pieces joined by a separator (itself escaped unless Html). */
export function joinHtml(items: readonly HtmlValue[], separator: HtmlValue = ''): Html {
  const sep = render(separator)
  return made(items.map(render).join(sep))
}

/**
 * Markup written by this code that a template cannot hold (the style sheet: `<style>` text is not unescaped by the
 * browser, so its quotes must stay quotes). Never for data.
 */
export function trustedHtml(constantMarkup: string): Html {
  return made(constantMarkup)
}
