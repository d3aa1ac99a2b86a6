/** The report template's tag escapes what it interpolates unless it is markup built by the tag itself. */
import { describe, expect, it } from 'vitest'
import { Html, joinHtml, markup, trustedHtml } from '../../src-main/services/reports/html'

describe('markup', () => {
  it('escapes interpolated text and numbers, keeps its own literal parts', () => {
    const name = `<img src=x onerror="alert('1')">&`
    expect(markup`<td class="x">${name}</td>`.text).toBe('<td class="x">&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;</td>')
    expect(markup`<td>${-1.5}</td>`.text).toBe('<td>-1.5</td>')
  })

  it('inserts nested markup and lists as they are, and nothing for null and undefined', () => {
    const cells = ['a<b', 'c'].map((c) => markup`<td>${c}</td>`)
    expect(markup`<tr>${cells}${null}${undefined}</tr>`.text).toBe('<tr><td>a&lt;b</td><td>c</td></tr>')
    expect(joinHtml([markup`<i>1</i>`, '2<'], markup`<br>`).text).toBe('<i>1</i><br>2&lt;')
  })

  it('a string is never taken for markup, even one that looks like it was built by the tag', () => {
    const forged = { text: '<script>alert(1)</script>' } as unknown as Html
    expect(markup`${forged as unknown as string}`.text).not.toContain('<script>')
    expect(() => new Html('<b>', Symbol('markup'))).toThrow()
    expect(trustedHtml('a{b:"c"}').text).toBe('a{b:"c"}')
  })
})
