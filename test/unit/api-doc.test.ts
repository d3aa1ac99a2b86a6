/**
 * docs/api.md is generated from the contract's request schemas, roles, error codes and events (test/support/api-doc.ts):
 * it fails while the page is not what `npm run docs:api` writes, so a changed schema takes its documentation along.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { methodNames } from '../../src-main/contract'
import { API_DOC, apiDocText } from '../support/api-doc'

describe('docs/api.md', () => {
  const page = readFileSync(API_DOC, 'utf8')

  it('is current (npm run docs:api rewrites it)', () => {
    expect(page).toBe(apiDocText())
  })

  it('documents every method with its request schema, and the envelope, the credential and the version', () => {
    for (const m of methodNames) expect(page).toContain(`#### ${m}\n\nRequest (JSON Schema):`)
    expect(page).toContain('{"req": REQUEST}')
    expect(page).toContain('Authorization: Bearer')
    expect(page).toContain('X-Quiet-Alarm-Api: 1')
  })
})
