/// <reference lib="dom" />
import type { Page } from 'playwright-core'

/** The two window sizes every screen must fit. */
export const VIEWPORTS = [
  { width: 1024, height: 700 },
  { width: 1440, height: 900 }
] as const

export interface Overflow {
  viewport: number
  scrollWidth: number
  /** The outermost elements reaching past the right edge, as "tag.class[data-testid] right=px", for the failure message. */
  culprits: string[]
}

/** How wide the document is against the window, and which elements stick out (not counting those inside a scroll box). */
export async function measureOverflow(page: Page): Promise<Overflow> {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth
    // (Rectangles are relative to the window, which may be scrolled sideways.)
    const clipped = (el: Element): boolean => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const ox = getComputedStyle(p).overflowX
        if (ox === 'auto' || ox === 'scroll' || ox === 'hidden' || ox === 'clip') return true
      }
      return false
    }
    // The innermost elements that stick out (none of their children do): where the width comes from.
    const out = Array.from(document.querySelectorAll('body *')).filter((el) => {
      const r = el.getBoundingClientRect()
      return r.width > 0 && r.right + window.scrollX > vw + 0.5 && !clipped(el)
    })

    const culprits = out
      .filter((el) => !out.some((o) => o !== el && el.contains(o)))
      .slice(0, 8)
      .map((el) => {
        const id = el.getAttribute('data-testid')
        const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : ''
        const pos = getComputedStyle(el).position
        return `${el.tagName.toLowerCase()}${cls}${id ? `[${id}]` : ''}${pos === 'static' ? '' : ' ' + pos} right=${Math.round(el.getBoundingClientRect().right + window.scrollX)}`
      })
    return { viewport: vw, scrollWidth: document.documentElement.scrollWidth, culprits }
  })
}

/**
 * Look at what is on screen at both sizes: returns one line per size where the document is wider than the window
 * (empty when everything fits). The viewport is left at its earlier size.
 */
export async function overflowsAtBothSizes(page: Page, what: string): Promise<string[]> {
  const before = page.viewportSize()
  const bad: string[] = []
  for (const v of VIEWPORTS) {
    await page.setViewportSize(v)
    // Let layout (and charts that size themselves to their box) settle.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
    const o = await measureOverflow(page)
    if (o.scrollWidth > o.viewport)
      bad.push(`${what} at ${v.width}x${v.height}: ${o.scrollWidth} px wide in ${o.viewport} px (${o.culprits.join('; ')})`)
  }
  if (before) await page.setViewportSize(before)
  return bad
}

/**
 * Selects whose chosen option is cut (its text is wider than the box it shows in), as "label: text" for the failure
 * message. Measured with the select's own font; the box is its inner width less the padding and the arrow.
 */
export async function cutSelects(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const ctx = document.createElement('canvas').getContext('2d')!
    const out: string[] = []
    for (const el of Array.from(document.querySelectorAll('select'))) {
      const r = el.getBoundingClientRect()
      if (r.width === 0 || el.selectedIndex < 0) continue
      const cs = getComputedStyle(el)
      ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`
      const text = el.options[el.selectedIndex].text
      const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 16
      if (ctx.measureText(text).width > room + 0.5) out.push(`${el.labels?.[0]?.textContent ?? el.getAttribute('aria-label') ?? '?'}: "${text}"`)
    }
    return out
  })
}
