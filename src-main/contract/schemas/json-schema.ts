/**
 * The JSON Schemas of the files users write by hand, generated from the contract's schemas (zod 4's `z.toJSONSchema`)
 * and committed as resources/schemas/query.schema.json and spec.schema.json. test/unit/json-schemas.test.ts fails when
 * a committed file differs from what is generated here (so they cannot drift); `QA_WRITE_SCHEMAS=1 npx vitest run
 * test/unit/json-schemas.test.ts` rewrites them.
 */
import { z } from 'zod'
import { experimentSpecSchema } from './experiment-spec'
import { queryFileSchema } from './query-definition'

const FILES = {
  'query.schema.json': {
    schema: queryFileSchema,
    title: 'Quiet Alarm saved query (query.json)',
    description:
      'A saved query for `quiet-alarm query save --spec FILE.json`: {"dataset", "name", "definition"}, or just a definition. ' +
      'Columns, their types and which datasets are public are checked against the workspace when the query is saved.'
  },
  'spec.schema.json': {
    schema: experimentSpecSchema,
    title: 'Quiet Alarm experiment spec (spec.json)',
    description:
      'An experiment for `quiet-alarm sweep --spec FILE` (a simulation: seeded, ground truth, never charged). ' +
      'Mechanism names, parameter names, ranges and defaults depend on the engine and are checked when the spec is validated.'
  }
} as const

export type JsonSchemaFile = keyof typeof FILES
export const JSON_SCHEMA_FILES = Object.keys(FILES) as JsonSchemaFile[]

/** The file's text: 2-space JSON with a final newline. */
export function jsonSchemaText(file: JsonSchemaFile): string {
  const { schema, title, description } = FILES[file]
  // io 'input': what a user writes (ids given as numbers are accepted, stored as text); reused parts under definitions.
  // Draft 7: what editors (VS Code's json.schemas) and most validators read.
  const generated = z.toJSONSchema(schema, { io: 'input', reused: 'ref', target: 'draft-7' }) as Record<string, unknown>
  const { $schema, ...rest } = generated
  return `${JSON.stringify({ $schema, title, description, ...rest }, null, 2)}\n`
}
