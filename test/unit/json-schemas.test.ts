/**
 * The JSON Schemas users write query.json / spec.json against (resources/schemas/) are generated from the contract's
 * schemas and cannot drift: the committed files must equal what is generated now (`QA_WRITE_SCHEMAS=1` rewrites them).
 * The documented examples (docs/guide) must pass both the zod schema and the committed JSON Schema file (read by an independent
 * validator, ajv, draft 7); a misspelt field must fail both.
 */
import { describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv from 'ajv'
import { JSON_SCHEMA_FILES, jsonSchemaText } from '../../src-main/contract/schemas/json-schema'
import { experimentSpecSchema } from '../../src-main/contract/schemas/experiment-spec'
import { queryDefinitionSchema, queryFileSchema } from '../../src-main/contract/schemas/query-definition'
import { PRESETS } from '../../src-main/services/experiments/presets'
import { checkSpec } from '../../src-main/services/experiments/spec'

const ROOT = join(__dirname, '..', '..')
const DIR = join(ROOT, 'resources', 'schemas')

/** The ```json blocks of the section of docs/`page` that starts with `heading`, parsed. */
function documentedJson(page: string, heading: string): unknown[] {
  const doc = '\n' + readFileSync(join(ROOT, 'docs', page), 'utf8')
  const start = doc.indexOf(`\n${heading}\n`)
  expect(start, `docs/${page} section "${heading}"`).toBeGreaterThanOrEqual(0)
  const level = heading.split(' ')[0]
  const rest = doc.slice(start + heading.length + 2)
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `))
  const section = end < 0 ? rest : rest.slice(0, end)
  return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]) as unknown)
}

function ajvFor(file: string) {
  const ajv = new Ajv({ allErrors: true })
  return ajv.compile(JSON.parse(readFileSync(join(DIR, file), 'utf8')) as object)
}

describe('JSON Schema files', () => {
  for (const file of JSON_SCHEMA_FILES) {
    it(`${file} is what the contract's schema generates`, () => {
      const generated = jsonSchemaText(file)
      if (process.env.QA_WRITE_SCHEMAS === '1') writeFileSync(join(DIR, file), generated)
      expect(readFileSync(join(DIR, file), 'utf8')).toBe(generated)
    })
  }
})

describe('documented examples', () => {
  it('the query.json examples of "Saved query definitions" validate, and a misspelt field does not', () => {
    const examples = documentedJson('guide/queries.md', '# Saved query definitions')
    expect(examples.length).toBeGreaterThanOrEqual(3)
    const validate = ajvFor('query.schema.json')
    for (const ex of examples) {
      expect(queryFileSchema.safeParse(ex).success, JSON.stringify(ex).slice(0, 80)).toBe(true)
      expect(validate(ex), JSON.stringify(validate.errors)).toBe(true)
      // The same with one misspelt field: refused by both.
      const def = (ex as { definition?: Record<string, unknown> }).definition ?? (ex as Record<string, unknown>)
      const bad = { ...def, tresholds: 1 }
      expect(queryDefinitionSchema.safeParse(bad).success).toBe(false)
      expect(validate(bad)).toBe(false)
    }
  })

  it('the spec.json example of "The spec" and every preset validate, and a misspelt field does not', () => {
    const examples = documentedJson('guide/experiments.md', '## The spec')
    expect(examples.length).toBe(1)
    const validate = ajvFor('spec.schema.json')
    for (const spec of [...examples, ...PRESETS.map((p) => p.spec)]) {
      const parsed = experimentSpecSchema.safeParse(spec)
      expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues[0])).toBe(true)
      expect(validate(spec), JSON.stringify(validate.errors)).toBe(true)
      const bad = { ...(spec as object), trails: 100 }
      expect(experimentSpecSchema.safeParse(bad).success).toBe(false)
      expect(validate(bad)).toBe(false)
    }
  })
})

describe('the services hold saved files to the same schemas', () => {
  it('an experiment spec with a field the engine checks do not know is refused with one sentence naming it', () => {
    const spec = PRESETS[0].spec as unknown as { workloads: Array<Record<string, unknown>> }
    const withExtra = { ...spec, workloads: [{ ...spec.workloads[0], sheet: 'Sheet1' }] }
    expect(checkSpec(spec).errors).toEqual([])
    expect(checkSpec(withExtra).errors).toEqual(['spec.workloads[0] has an unknown field "sheet"; remove it or check the spelling.'])
  })
})
