/**
 * The desktop PDF printer: Electron's own Chromium (`webContents.printToPDF`) in a hidden, sandboxed window without
 * JavaScript. Passed to the services as `createServices({ mode: 'desktop', ..., pdfPrinter: createElectronPdfPrinter() })`.
 * The HTML is the reports service's self-contained template (inline CSS and SVG, CSP forbidding every fetch).
 */
import { BrowserWindow } from 'electron'
import { rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { PDF_MARGINS_MM, type PdfOptions, type PdfPrinter } from '../services'

/** Chromium refuses URLs longer than 2 MiB: larger reports are loaded from a temporary file instead of a data: URL. */
const MAX_DATA_URL = 2 * 1024 * 1024 - 64

const mmToInch = (mm: number) => mm / 25.4

export function createElectronPdfPrinter(): PdfPrinter {
  return {
    name: 'electron-printToPDF',
    async print(html: string, options: PdfOptions): Promise<Uint8Array> {
      const win = new BrowserWindow({
        show: false,
        width: 900,
        height: 1200,
        webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false, offscreen: false }
      })
      let tempFile: string | null = null
      try {
        const dataUrl = `data:text/html;base64,${Buffer.from(html, 'utf8').toString('base64')}`
        if (dataUrl.length <= MAX_DATA_URL) await win.loadURL(dataUrl)
        else {
          tempFile = join(tmpdir(), `quiet-alarm-report-${randomUUID()}.html`)
          writeFileSync(tempFile, html, { encoding: 'utf8', mode: 0o600 })
          await win.loadFile(tempFile)
        }
        const m = PDF_MARGINS_MM
        const pdf = await win.webContents.printToPDF({
          pageSize: options.pageSize,
          displayHeaderFooter: true,
          headerTemplate: '<span></span>',
          footerTemplate: options.footerHtml ?? '<span></span>',
          printBackground: true,
          // printToPDF takes margins in inches.
          margins: { marginType: 'custom', top: mmToInch(m.top), bottom: mmToInch(m.bottom), left: mmToInch(m.left), right: mmToInch(m.right) }
        })
        return new Uint8Array(pdf)
      } finally {
        if (!win.isDestroyed()) win.destroy()
        if (tempFile) rmSync(tempFile, { force: true })
      }
    }
  }
}
