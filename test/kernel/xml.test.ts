import { XMLValidator } from 'fast-xml-parser'
import { describe, expect, it } from 'vitest'
import { type XmlNode, renderXml, xml } from '../../src/kernel/http/xml.js'
import { parseXml, text } from '../helpers/xml.js'

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'

/** The rendered document without its declaration. */
function body(node: XmlNode): string {
  const out = renderXml(node)
  expect(out.startsWith(DECLARATION)).toBe(true)
  return out.slice(DECLARATION.length)
}

function wellFormed(out: string): void {
  expect(XMLValidator.validate(out)).toBe(true)
}

describe('renderXml', () => {
  it('starts with the UTF-8 declaration and renders nested elements in order', () => {
    const node = xml.el('platform', { href: 'http://h/platform/a' }, [
      xml.str('slug', 'a'),
      xml.num('max_users', 3),
      xml.link('metadata', 'http://h/platform/a/metadata'),
    ])
    expect(renderXml(node)).toBe(
      DECLARATION +
        '<platform href="http://h/platform/a"><slug><![CDATA[a]]></slug><max_users>3</max_users>' +
        '<metadata href="http://h/platform/a/metadata"/></platform>',
    )
  })

  it('puts strings in CDATA, unescaped inside it', () => {
    expect(body(xml.str('name', 'a < b & c > "d" \'e\''))).toBe(`<name><![CDATA[a < b & c > "d" 'e']]></name>`)
  })

  it('splits a CDATA terminator so it cannot close the section', () => {
    const out = renderXml(xml.str('name', 'x]]>y'))
    expect(out.slice(DECLARATION.length)).toBe('<name><![CDATA[x]]]]><![CDATA[>y]]></name>')
    wellFormed(out)
    expect(text(parseXml(out).name)).toBe('x]]>y')
  })

  it.each([']]>', ']]>]]>', 'a]]]>b', ']]]]>>', '<![CDATA[evil]]>', ']]><script>alert(1)</script>'])(
    'round-trips %s through CDATA',
    (value) => {
      const out = renderXml(xml.el('r', undefined, [xml.str('v', value)]))
      wellFormed(out)
      expect(text(parseXml(out).r.v)).toBe(value)
    },
  )

  it('escapes attribute values', () => {
    const out = renderXml(xml.el('a', { href: `x"y<z>&w'v` }))
    expect(out.slice(DECLARATION.length)).toBe('<a href="x&quot;y&lt;z&gt;&amp;w&apos;v"/>')
    wellFormed(out)
    expect(parseXml(out).a['@href']).toBe(`x"y<z>&w'v`)
  })

  it('escapes query strings in link hrefs', () => {
    const out = renderXml(xml.link('next', 'http://h/list?a=1&b=2', 'next'))
    expect(out.slice(DECLARATION.length)).toBe('<next href="http://h/list?a=1&amp;b=2" rel="next"/>')
    expect(parseXml(out).next['@href']).toBe('http://h/list?a=1&b=2')
  })

  it('escapes plain text values', () => {
    const out = renderXml({ name: 'v', text: `1 < 2 & "3" > '0'` })
    wellFormed(out)
    expect(text(parseXml(out).v)).toBe(`1 < 2 & "3" > '0'`)
    expect(out).not.toContain('1 < 2')
  })

  it('keeps accents and emoji as UTF-8 characters', () => {
    const value = 'Crème brûlée – 日本 🎬👩‍👩‍👧'
    const out = renderXml(xml.str('name', value))
    expect(out).toContain(value)
    expect(text(parseXml(out).name)).toBe(value)
  })

  it('renders empty values as empty elements', () => {
    expect(body(xml.str('a', null))).toBe('<a><![CDATA[]]></a>')
    expect(body(xml.str('a', undefined))).toBe('<a><![CDATA[]]></a>')
    expect(body(xml.str('a', ''))).toBe('<a><![CDATA[]]></a>')
    expect(body(xml.num('n', null))).toBe('<n/>')
    expect(body(xml.num('n', undefined))).toBe('<n/>')
    expect(body(xml.link('l', null))).toBe('<l/>')
    expect(body(xml.link('l', undefined, 'self'))).toBe('<l/>')
    expect(body(xml.date('d', null))).toBe('<d><![CDATA[]]></d>')
    expect(body(xml.el('list', { href: 'u' }, []))).toBe('<list href="u"/>')
  })

  it('renders numbers, zero and flags as plain text', () => {
    expect(body(xml.num('n', 0))).toBe('<n>0</n>')
    expect(body(xml.num('n', -12.5))).toBe('<n>-12.5</n>')
    expect(body(xml.flag('f', true))).toBe('<f>1</f>')
    expect(body(xml.flag('f', false))).toBe('<f>0</f>')
    expect(body(xml.bool('b', true))).toBe('<b>true</b>')
    expect(body(xml.bool('b', false))).toBe('<b>false</b>')
  })

  it('renders a link with and without rel', () => {
    expect(body(xml.link('media', 'http://h/media/x'))).toBe('<media href="http://h/media/x"/>')
    expect(body(xml.link('directory', 'http://h/files/d', 'parent'))).toBe(
      '<directory href="http://h/files/d" rel="parent"/>',
    )
  })

  it('renders date-times as ISO 8601 with an explicit offset', () => {
    const date = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6))
    expect(body(xml.date('created', date))).toBe('<created><![CDATA[2024-01-02T03:04:05.006+00:00]]></created>')
  })

  it('renders date-times as Unix seconds in CDATA in the unix dialect, every date of the answer', () => {
    const date = new Date(Date.UTC(2015, 10, 9, 13, 33, 0, 999))
    const doc = xml.el('r', undefined, [
      xml.date('a', date),
      xml.el('n', undefined, [xml.date('b', date)]),
      xml.date('c', null),
    ])
    expect(renderXml(doc, 'unix').slice(DECLARATION.length)).toBe(
      '<r><a><![CDATA[1447075980]]></a><n><b><![CDATA[1447075980]]></b></n><c><![CDATA[]]></c></r>',
    )
    expect(renderXml(doc, 'iso8601')).toContain('<a><![CDATA[2015-11-09T13:33:00.999+00:00]]></a>')
    expect(renderXml(doc)).toBe(renderXml(doc, 'iso8601'))
  })

  it('renders attributes on string elements (error fields)', () => {
    const out = renderXml(xml.str('field', 'already used', { name: 'e"mail' }))
    expect(out.slice(DECLARATION.length)).toBe('<field name="e&quot;mail"><![CDATA[already used]]></field>')
  })

  it('renders a list of repeated children', () => {
    const node = xml.el(
      'platforms',
      { href: 'http://h/platforms' },
      ['a', 'b'].map((slug) => xml.el('platform', { href: `http://h/platform/${slug}` }, [xml.str('slug', slug)])),
    )
    const out = renderXml(node)
    wellFormed(out)
    const doc = parseXml(out)
    expect(doc.platforms.platform.map((p: { slug: unknown }) => text(p.slug))).toEqual(['a', 'b'])
  })

  it('produces a well-formed document for hostile values everywhere', () => {
    const hostile = `]]><x a="1">&amp;</x><!-- --><?pi?>'"&<>`
    const node = xml.el('root', { href: hostile, rel: hostile }, [
      xml.str('s', hostile, { name: hostile }),
      xml.link('l', hostile, hostile),
      { name: 't', text: hostile },
    ])
    const out = renderXml(node)
    wellFormed(out)
    const doc = parseXml(out)
    expect(doc.root['@href']).toBe(hostile)
    expect(doc.root['@rel']).toBe(hostile)
    expect(text(doc.root.s)).toBe(hostile)
    expect(doc.root.s['@name']).toBe(hostile)
    expect(doc.root.l['@href']).toBe(hostile)
    expect(doc.root.l['@rel']).toBe(hostile)
    expect(text(doc.root.t)).toBe(hostile)
  })
})

describe('characters XML cannot carry', () => {
  it('are replaced with U+FFFD in text, CDATA and attributes, so the document stays well-formed', () => {
    const out = renderXml(
      xml.el('a', { name: 'q\u0001' }, [
        xml.str('b', 'x\u0002y\uD800z'),
        xml.el('c', undefined, [{ name: 'd', text: 'e\u001Ff' }]),
      ]),
    )
    expect(XMLValidator.validate(out)).toBe(true)
    expect(out).toContain('<a name="q\uFFFD">')
    expect(out).toContain('<![CDATA[x\uFFFDy\uFFFDz]]>')
    expect(out).toContain('<d>e\uFFFDf</d>')
  })
})

describe('repeated rendering', () => {
  it('escapes every value of many documents alike (no state kept between calls)', () => {
    for (let i = 0; i < 5; i++) {
      const out = renderXml(xml.el('a', { v: `x&y${i}` }, [xml.str('s', 'p\u0001q'), { name: 't', text: `<${i}>` }]))
      expect(out).toContain(`<a v="x&amp;y${i}">`)
      expect(out).toContain('<![CDATA[p\uFFFDq]]>')
      expect(out).toContain(`<t>&lt;${i}&gt;</t>`)
    }
  })
})
