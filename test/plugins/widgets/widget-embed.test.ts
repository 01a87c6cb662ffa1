import { describe, expect, it } from 'vitest'
import { embedCode, embedCodes, escapeHtml, formatSize, parseSize } from '../../../plugins/widgets/index.js'
import { LinkBuilder } from '../../../src/kernel/http/links.js'

describe('widget sizes', () => {
  it('reads WIDTHxHEIGHT within 1 to 7680, with x or X', () => {
    expect(parseSize('640x360')).toEqual({ ok: true, size: { width: 640, height: 360 } })
    expect(parseSize('1X7680')).toEqual({ ok: true, size: { width: 1, height: 7680 } })
    expect(formatSize({ width: 1920, height: 1080 })).toBe('1920x1080')
  })

  it('refuses other forms and sizes out of bounds, with distinct messages', () => {
    for (const text of ['640', 'x360', '640x', '-1x2', '640×360', '640x360 ', '', '1e3x2', '0x10x10']) {
      expect(parseSize(text), text).toEqual({ ok: false, error: 'must be WIDTHxHEIGHT in pixels, such as 640x360' })
    }
    for (const text of ['0x0', '0x1', '1x0', '7681x1', '1x7681', '123456789012345678901234567890x1']) {
      expect(parseSize(text), text).toMatchObject({ ok: false, error: expect.stringContaining('from 1 to 7680') })
    }
  })
})

describe('embed codes', () => {
  const links = new LinkBuilder('https://media.example.org/base/')
  const widget = { slug: 'home-page', name: `A "quoted" <b>name</b> & 'more'`, width: 640, height: 360 }

  it('point at the player page and its script under the public base URL, sized as the widget', () => {
    const codes = embedCodes(links, widget)
    expect(codes.iframe).toBe(
      '<iframe src="https://media.example.org/base/embed/home-page" width="640" height="360" frameborder="0" ' +
        'allow="autoplay; fullscreen; picture-in-picture" allowfullscreen ' +
        'title="A &quot;quoted&quot; &lt;b&gt;name&lt;/b&gt; &amp; &#39;more&#39;"></iframe>',
    )
    expect(codes.javascript).toBe('<script src="https://media.example.org/base/embed/home-page.js" async></script>')
  })

  it('the code of a resource answer is the iframe, URL-encoded', () => {
    const code = embedCode(links, widget)
    expect(code).not.toMatch(/[<>"' ]/)
    expect(decodeURIComponent(code)).toBe(embedCodes(links, widget).iframe)
  })

  it('escapes the five HTML specials', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;')
  })
})
