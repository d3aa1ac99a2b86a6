/**
 * The engine's WebAssembly modules are built from the committed text sources (src-worker/engine/wasm/*.wat) by
 * `npm run build:wasm` (wabt, a pinned devDependency): assembling them again here must give exactly the committed bytes,
 * so the binary in the repository is the one its source says.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error the build script is plain JavaScript (resources/scripts), without type declarations
import { WASM_DIR, assemble, committedBytes, watSources } from '../../resources/scripts/build-wasm.mjs'

describe('WebAssembly modules', () => {
  it('the committed bytes are what the committed sources assemble to', async () => {
    const sources = watSources() as Array<{ name: string; text: string }>
    expect(sources.length).toBeGreaterThan(0)
    for (const { name, text } of sources) {
      const committed = readFileSync(join(WASM_DIR, `${name}.wasm.ts`), 'utf8')
      const bytes = (await assemble(name, text)) as Buffer
      expect(bytes.length).toBeGreaterThan(8)
      expect((committedBytes(committed) as Buffer).equals(bytes), `${name}.wasm.ts is stale: npm run build:wasm`).toBe(true)
    }
  })
})
