import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

// One build for the three doors: out/main holds the Electron main (index.js), the headless server (server.js), the
// CLI (cli.js), the worker pool's thread entry (worker.js), the release runner's (release-runner.js) and the alarm runner's (alarm-runner.js); out/preload the
// sandboxed preload; out/renderer the React UI.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      externalizeDeps: true,
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/electron/main.ts'),
          server: resolve(__dirname, 'src-main/server.ts'),
          cli: resolve(__dirname, 'src-main/cli.ts'),
          worker: resolve(__dirname, 'src-worker/worker.ts'),
          'release-runner': resolve(__dirname, 'src-main/services/releases/release-runner.ts'),
          'alarm-runner': resolve(__dirname, 'src-main/services/watch/alarm-runner.ts')
        }
      }
    }
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // Sandboxed preloads cannot require packages: bundle everything except electron.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-main/electron/preload.ts') }
      }
    }
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      minify: true,
      rollupOptions: { input: resolve(__dirname, 'src-renderer/index.html') }
    }
  }
})
