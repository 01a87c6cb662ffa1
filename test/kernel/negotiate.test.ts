import { describe, expect, it } from 'vitest'
import { VENDOR_XML, XML_CONTENT_TYPE, acceptsXml } from '../../src/kernel/http/negotiate.js'

describe('acceptsXml', () => {
  it('accepts a missing or blank Accept header', () => {
    expect(acceptsXml(undefined)).toBe(true)
    expect(acceptsXml('')).toBe(true)
    expect(acceptsXml('   ')).toBe(true)
  })

  it.each(['*/*', 'application/*', 'application/xml', 'text/xml', VENDOR_XML])('accepts %s', (type) => {
    expect(acceptsXml(type)).toBe(true)
  })

  it('is case-insensitive and ignores spaces and parameters', () => {
    expect(acceptsXml('Application/XML')).toBe(true)
    expect(acceptsXml(' text/xml ; charset=utf-8')).toBe(true)
    expect(acceptsXml('application/xml;q=0.5')).toBe(true)
  })

  it('accepts a list where one entry admits XML', () => {
    expect(acceptsXml('image/png, application/json;q=0.9, text/xml;q=0.1')).toBe(true)
    expect(acceptsXml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(true)
  })

  it.each(['image/png', 'application/json', 'text/html', 'text/*', 'application/xhtml+xml', 'xml', 'garbage'])(
    'refuses %s',
    (type) => {
      expect(acceptsXml(type)).toBe(false)
    },
  )

  it('refuses XML types explicitly given q=0', () => {
    expect(acceptsXml('application/xml;q=0')).toBe(false)
    expect(acceptsXml('application/xml; q=0, text/xml;q=0.0, */*;q=0')).toBe(false)
    expect(acceptsXml('application/xml;q=0, image/png')).toBe(false)
  })

  it('accepts when a later entry admits XML after a q=0 one', () => {
    expect(acceptsXml('application/xml;q=0, text/xml')).toBe(true)
  })

  it('names the XML content type with charset', () => {
    expect(XML_CONTENT_TYPE).toBe('application/xml; charset=utf-8')
    expect(VENDOR_XML).toBe('application/vnd.mediactl+xml')
  })
})

describe('accepts (non-XML routes)', () => {
  it('admits the type itself, its major wildcard, */* and an absent header', async () => {
    const { accepts } = await import('../../src/kernel/http/negotiate.js')
    expect(accepts(undefined, 'application/x-pem-file')).toBe(true)
    expect(accepts('application/x-pem-file', 'application/x-pem-file')).toBe(true)
    expect(accepts('application/*', 'application/x-pem-file')).toBe(true)
    expect(accepts('text/plain, */*;q=0.1', 'application/x-pem-file')).toBe(true)
    expect(accepts('image/png', 'application/x-pem-file')).toBe(false)
    expect(accepts('application/x-pem-file;q=0', 'application/x-pem-file')).toBe(false)
  })
})
