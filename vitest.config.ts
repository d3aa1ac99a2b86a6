import { defineConfig } from 'vitest/config'

// Three suites and the soaks (npm run soak), one runner. Unit: the pure engine. Integration: services + SQLite + worker pool (needs `npm run build`
// for the worker bundle only when QA_WORKER_FROM_BUILD=1). E2E: headless server + Debian Chromium via playwright-core.
export default defineConfig({
  test: {
    projects: [
      {
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 60_000 }
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: 'forks'
        }
      },
      {
        test: { name: 'soak', include: ['test/soak/**/*.test.ts'], testTimeout: 3_600_000 }
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false
        }
      }
    ]
  }
})
