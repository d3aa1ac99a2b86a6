/**
 * The PDF printer of headless mode and the CLI: Debian's Chromium driven by playwright-core (the desktop app uses
 * Electron's printToPDF instead, src-main/electron/pdf-printer.ts). One browser per print: a report is rare and long,
 * and nothing stays running afterwards.
 */
import { existsSync } from 'node:fs'
import { CancelledError, UserError } from '../platform/errors'
import type { PdfOptions, PdfPrinter } from '../platform/handler-types'

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]

/** Page margins shared by both printers (the footer with the page numbers sits in the bottom margin). */
export const PDF_MARGINS_MM = { top: 12, bottom: 16, left: 14, right: 14 }

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.CHROMIUM_PATH && env.CHROMIUM_PATH.trim() !== '' ? env.CHROMIUM_PATH : '/usr/bin/chromium'
}

const MISSING =
  'PDF reports need Chromium, which was not found at %PATH%: install it (Debian/Ubuntu: "apt-get install chromium") ' +
  'or set CHROMIUM_PATH to a Chromium or Chrome executable; CSV and JSON exports work without it'

export function createChromiumPrinter(options: { executablePath?: string; signal?: AbortSignal } = {}): PdfPrinter {
  const executablePath = options.executablePath ?? chromiumPath()
  return {
    name: 'headless-chromium',
    async print(html: string, pdf: PdfOptions): Promise<Uint8Array> {
      if (!existsSync(executablePath)) throw new UserError(MISSING.replace('%PATH%', executablePath), 'chromium-missing')
      let chromium: typeof import('playwright-core').chromium
      try {
        ;({ chromium } = await import('playwright-core'))
      } catch (e) {
        if ((e as NodeJS.ErrnoException)?.code !== 'ERR_MODULE_NOT_FOUND' && (e as NodeJS.ErrnoException)?.code !== 'MODULE_NOT_FOUND') throw e
        throw new UserError(
          'PDF reports in headless mode need the "playwright-core" package, which is not installed; reinstall Quiet Alarm',
          'chromium-missing'
        )
      }
      let browser: Awaited<ReturnType<typeof chromium.launch>>
      try {
        browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 60_000 })
      } catch (e) {
        const first = ((e as Error)?.message ?? '').split('\n')[0].slice(0, 160)
        throw new UserError(
          `Chromium at ${executablePath} could not be started (${first}); install Debian's chromium package or set CHROMIUM_PATH`,
          'chromium-missing'
        )
      }
      const onAbort = () => void browser.close().catch(() => undefined)
      options.signal?.addEventListener('abort', onAbort, { once: true })
      try {
        const context = await browser.newContext({ offline: true, javaScriptEnabled: false })
        const page = await context.newPage()
        // Nothing may leave the page: the report is self-contained.
        await page.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort()))
        await page.setContent(html, { waitUntil: 'load' })
        const m = PDF_MARGINS_MM
        const bytes = await page.pdf({
          format: pdf.pageSize,
          displayHeaderFooter: true,
          headerTemplate: '<span></span>',
          footerTemplate: pdf.footerHtml ?? '<span></span>',
          printBackground: true,
          margin: { top: `${m.top}mm`, bottom: `${m.bottom}mm`, left: `${m.left}mm`, right: `${m.right}mm` }
        })
        return new Uint8Array(bytes)
      } catch (e) {
        if (options.signal?.aborted) throw new CancelledError()
        throw e
      } finally {
        options.signal?.removeEventListener('abort', onAbort)
        await browser.close().catch(() => undefined)
      }
    }
  }
}
