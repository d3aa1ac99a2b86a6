/**
 * From a failed zod parse to ONE plain sentence naming the field ("params.epsilon must be a number greater than 0"),
 * never zod's JSON. The schemas' own messages are predicates ("must be ...", "is required"), prefixed here with the field.
 * The value given is never echoed (it may be long, or a passphrase).
 */
import type { z } from 'zod'
import type { NumberRange } from '../release-params'

/** The range in words, as the predicate of "x must be ...": "a number greater than 0 and less than 0.5". */
export function rangeWords(range: NumberRange): string {
  if (range.integer && range.ge !== undefined && range.le !== undefined) return `a whole number from ${num(range.ge)} to ${num(range.le)}`
  const parts: string[] = []
  if (range.gt !== undefined) parts.push(`greater than ${num(range.gt)}`)
  if (range.ge !== undefined) parts.push(`at least ${num(range.ge)}`)
  if (range.lt !== undefined) parts.push(`less than ${num(range.lt)}`)
  if (range.le !== undefined) parts.push(`at most ${num(range.le)}`)
  const noun = range.integer ? 'a whole number' : 'a number'
  if (parts.length === 0) return noun
  return `${noun}${parts[0].startsWith('at ') ? ' of ' : ' '}${parts.join(' and ')}`
}

/** 1000000 as "1,000,000"; small and fractional numbers as JavaScript writes them (0.5, 1e-5). */
export function num(x: number | bigint): string {
  return typeof x === 'number' && Number.isInteger(x) && Math.abs(x) >= 1000 ? x.toLocaleString('en-US') : String(x)
}

/** "definition.filter[0].value" (keys from the request are cut short: they are the caller's, but may be long). */
export function fieldName(path: readonly PropertyKey[]): string {
  let out = ''
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`
    else {
      const key = String(p).slice(0, 40)
      out += out === '' ? key : `.${key}`
    }
  }
  return out
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  record: 'an object',
  null: 'null',
  bigint: 'a number'
}

function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, 12).map((v) => (typeof v === 'string' ? `"${v}"` : String(v)))
  if (values.length > 12) shown.push('...')
  return shown.length <= 1 ? shown.join('') : `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}`
}

function boundWords(kind: 'min' | 'max', bound: number | bigint, inclusive: boolean | undefined): string {
  if (kind === 'min') return inclusive ? `at least ${num(bound)}` : `greater than ${num(bound)}`
  return inclusive ? `at most ${num(bound)}` : `less than ${num(bound)}`
}

/** What is wrong, without the field: "must be a number", "is required", "has an unknown field "x"". */
function predicate(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return 'is required'
      return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`
    case 'invalid_value':
      if (input === undefined) return `is required (${issue.values.length === 1 ? '' : 'one of '}${listValues(issue.values)})`
      return issue.values.length === 1 ? `must be ${listValues(issue.values)}` : `must be one of ${listValues(issue.values)}`
    case 'unrecognized_keys': {
      const keys = issue.keys.slice(0, 3).map((k) => `"${k.slice(0, 40)}"`)
      return `has ${issue.keys.length === 1 ? 'an unknown field' : 'unknown fields'} ${keys.join(', ')}${issue.keys.length > 3 ? ', ...' : ''}; remove ${issue.keys.length === 1 ? 'it' : 'them'} or check the spelling`
    }
    case 'too_small':
    case 'too_big': {
      const kind = issue.code === 'too_small' ? 'min' : 'max'
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum
      if (issue.origin === 'string') {
        if (kind === 'min' && Number(bound) === 1) return 'must not be empty'
        return `must have ${boundWords(kind, bound, issue.inclusive)} characters`
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return Number(bound) === 1 && issue.inclusive
          ? `must list ${kind === 'min' ? 'at least' : 'at most'} one item`
          : `must list ${boundWords(kind, bound, issue.inclusive)} items`
      }
      const words = boundWords(kind, bound, issue.inclusive)
      return `must be a number ${words.startsWith('at ') ? 'of ' : ''}${words}`
    }
    case 'invalid_union':
      if ('note' in issue && issue.note === 'No matching discriminator') {
        const options = (issue as { options?: unknown[] }).options ?? []
        return input === undefined ? `is required (one of ${listValues(options)})` : `must be one of ${listValues(options)}`
      }
      return 'is not any of the accepted forms'
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`
    case 'invalid_format':
      return `must be ${issue.format === 'regex' ? 'in the expected format' : `a valid ${issue.format}`}`
    case 'invalid_key':
      return 'has a key that is not accepted'
    case 'invalid_element':
      return 'has a value that is not accepted'
    case 'custom':
    default:
      return issue.message.startsWith('must') || issue.message.startsWith('is ') ? issue.message : 'is not valid'
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<PropertyKey, unknown>)[p as string]
  }
  return v
}

/**
 * The first issue of a failed parse as one sentence. `subject` names the whole value when the path is empty ("The
 * request"); `prefix` is put before every field name (e.g. "spec." for an experiment spec).
 */
export function issueSentence(error: z.core.$ZodError, root: unknown, subject = 'The request', prefix = ''): string {
  const issue = error.issues[0]
  if (!issue) return `${subject} is not valid`
  const field = issue.path.length === 0 ? (prefix === '' ? subject : prefix.replace(/\.$/, '')) : prefix + fieldName(issue.path)
  const input = issue.path.length === 0 && issue.code === 'invalid_type' ? root : valueAt(root, issue.path)
  // A schema's own message is a predicate ("must be ...", "is required (...)"); zod's defaults are not, and are reworded.
  const own = issue.message
  const text = own.startsWith('must ') || own.startsWith('is ') ? own : predicate(issue, input)
  return `${field} ${text}`
}
