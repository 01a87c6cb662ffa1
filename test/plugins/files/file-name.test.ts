import { describe, expect, it } from 'vitest'
import { NAME_MAX, safeFileName } from '../../../plugins/files/file-name.js'

describe('safeFileName', () => {
  it('keeps the last path segment, whichever the separator', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd')
    expect(safeFileName('a/b')).toBe('b')
    expect(safeFileName('a\\b')).toBe('b')
    expect(safeFileName('C:\\Users\\me\\clip.mp4')).toBe('clip.mp4')
    expect(safeFileName('/absolute/path/photo.jpg')).toBe('photo.jpg')
    expect(safeFileName('dir/')).toBe('file')
  })

  it('drops C0 and C1 controls and the line and paragraph separators; collapses and trims spaces', () => {
    expect(safeFileName('a\u0000b\u0007c\u001fd\u007fe\u0085f\u009fg.txt')).toBe('abcdefg.txt')
    expect(safeFileName('line\nbreak\r\n.txt')).toBe('linebreak.txt')
    expect(safeFileName('tab\there.txt')).toBe('tabhere.txt')
    expect(safeFileName('sep\u2028ara\u2029tors.txt')).toBe('separators.txt')
    expect(safeFileName('  many    spaces\u00a0 here .txt  ')).toBe('many spaces here .txt')
  })

  it('falls back to "file" (or the given fallback) when nothing usable is left', () => {
    for (const raw of ['', ' ', '.', '..', '../..', '/', '\u0007\u0001', ' \t ']) expect(safeFileName(raw)).toBe('file')
    expect(safeFileName('', 'upload')).toBe('upload')
  })

  it('keeps at most 255 characters, the extension kept when it is short', () => {
    expect(NAME_MAX).toBe(255)
    expect(safeFileName(`${'x'.repeat(296)}.mp4`)).toBe(`${'x'.repeat(251)}.mp4`)
    expect(safeFileName('y'.repeat(300))).toBe('y'.repeat(255))
    expect(safeFileName('z'.repeat(255))).toBe('z'.repeat(255))
    // An extension longer than 16 characters is not one worth keeping: the name is cut plainly.
    const longExtension = `${'a'.repeat(250)}.${'b'.repeat(20)}`
    expect(safeFileName(longExtension)).toBe(longExtension.slice(0, 255))
    // Characters, not UTF-16 units: astral characters are never cut in half.
    const emoji = safeFileName(`${'😀'.repeat(300)}.png`)
    expect([...emoji]).toHaveLength(255)
    expect(emoji).toBe(`${'😀'.repeat(251)}.png`)
    expect(emoji).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
  })

  it('leaves everything else alone: names are data', () => {
    for (const name of ['Été à Noël.mp4', '<b>&amp;<b>.png', 'a ]]> b.txt', '.hidden', 'x.tar.gz', '"quoted".pdf']) {
      expect(safeFileName(name)).toBe(name)
    }
  })
})
