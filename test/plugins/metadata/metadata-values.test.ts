import { describe, expect, it } from 'vitest'
import { type MetadataRule, checkMetadataValues } from '../../../plugins/metadata/index.js'
import { parseDefault, parseFileTypes, parseOptions } from '../../../plugins/metadata/metadata.values.js'

/** One definition of each type, applying to video (and some to audio). */
const DEFINITIONS: MetadataRule[] = [
  { name: 'Title', type: 'varchar', fileTypes: ['video', 'audio'], defaultValue: null },
  { name: 'Notes', type: 'longvarchar', fileTypes: ['video'], defaultValue: null },
  { name: 'Episode', type: 'integer', fileTypes: ['video'], defaultValue: '1' },
  { name: 'Frames', type: 'bigint', fileTypes: ['video'], defaultValue: null },
  { name: 'Shot on', type: 'date', fileTypes: ['video'], defaultValue: null },
  { name: 'Public', type: 'boolean', fileTypes: ['video', 'audio'], defaultValue: '0' },
  { name: 'Genre', type: 'choice', fileTypes: ['video'], defaultValue: 'jazz,rock,classical music' },
  { name: 'Cover', type: 'varchar', fileTypes: ['image'], defaultValue: null },
]

const check = (values: Record<string, string>, fileType: 'video' | 'audio' | 'image' = 'video') =>
  checkMetadataValues(DEFINITIONS, values, fileType)

/** The error for one value, or the typed value when it passes. */
function one(name: string, value: string): { error?: string; value?: unknown } {
  const result = check({ [name]: value })
  const error = result.errors[`metadata[${name}]`]
  return error === undefined ? { value: result.values[name] } : { error }
}

const INT = 'must be a whole number between -2147483648 and 2147483647'
const BIG = 'must be a whole number between -9007199254740991 and 9007199254740991'
const DATE = 'must be an ISO 8601 date (YYYY-MM-DD)'

describe('checkMetadataValues', () => {
  it('answers typed values by definition name, and no error, for valid values of every type', () => {
    expect(
      check({
        Title: '  Opening night  ',
        Notes: 'n'.repeat(65535),
        Episode: '+007',
        Frames: '9007199254740991',
        'Shot on': '2024-02-29',
        Public: 'TRUE',
        Genre: 'classical music',
      }),
    ).toEqual({
      errors: {},
      values: {
        Title: 'Opening night',
        Notes: 'n'.repeat(65535),
        Episode: 7,
        Frames: 9007199254740991,
        'Shot on': '2024-02-29',
        Public: true,
        Genre: 'classical music',
      },
    })
  })

  it('nothing sent: nothing checked, nothing answered', () => {
    expect(check({})).toEqual({ errors: {}, values: {} })
  })

  it('names must match a definition exactly (case included)', () => {
    expect(check({ Nope: 'x', title: 'x', Title: 'ok' })).toEqual({
      errors: {
        'metadata[Nope]': 'no metadata definition of this name on this platform',
        'metadata[title]': 'no metadata definition of this name on this platform',
      },
      values: { Title: 'ok' },
    })
  })

  it('does not mistake object prototype names for definitions', () => {
    const result = check({ constructor: 'x', toString: 'y', hasOwnProperty: 'z' })
    expect(Object.keys(result.errors)).toEqual([
      'metadata[constructor]',
      'metadata[toString]',
      'metadata[hasOwnProperty]',
    ])
    expect(result.values).toEqual({})
  })

  it('refuses values for definitions that do not apply to the file type', () => {
    expect(check({ Title: 'Song', Genre: 'jazz', Episode: '2', Cover: 'x' }, 'audio')).toEqual({
      errors: {
        'metadata[Genre]': 'does not apply to audio files (only to: video)',
        'metadata[Episode]': 'does not apply to audio files (only to: video)',
        'metadata[Cover]': 'does not apply to audio files (only to: image)',
      },
      values: { Title: 'Song' },
    })
    expect(check({ Cover: 'front.jpg' }, 'image')).toEqual({ errors: {}, values: { Cover: 'front.jpg' } })
  })

  it('a value sent empty (or blank) clears it: null, even where the definition does not apply', () => {
    expect(check({ Episode: '', Genre: '   ', Cover: '' })).toEqual({
      errors: {},
      values: { Episode: null, Genre: null, Cover: null },
    })
    // An unknown name is refused, empty or not.
    expect(check({ Nope: '' }).errors).toEqual({
      'metadata[Nope]': 'no metadata definition of this name on this platform',
    })
  })

  it('refuses nested values (metadata[x][y], metadata[x][])', () => {
    expect(checkMetadataValues(DEFINITIONS, { Title: ['a', 'b'], Genre: { y: 'jazz' } }, 'video')).toEqual({
      errors: { 'metadata[Title]': 'must be a single value', 'metadata[Genre]': 'must be a single value' },
      values: {},
    })
  })

  it('lists every failure, in the order the values came, and keeps the values that passed', () => {
    const result = check({ Public: 'maybe', Title: 'fine', Episode: 'x', Genre: 'pop' })
    expect(Object.entries(result.errors)).toEqual([
      ['metadata[Public]', 'must be 0 or 1'],
      ['metadata[Episode]', INT],
      ['metadata[Genre]', 'must be one of: jazz, rock, classical music'],
    ])
    expect(result.values).toEqual({ Title: 'fine' })
  })

  describe('varchar and longvarchar', () => {
    it('varchar: at most 255 characters (not bytes)', () => {
      expect(one('Title', 'é'.repeat(255))).toEqual({ value: 'é'.repeat(255) })
      expect(one('Title', '😀'.repeat(255))).toEqual({ value: '😀'.repeat(255) })
      expect(one('Title', 'x'.repeat(256))).toEqual({ error: 'must be at most 255 characters' })
    })

    it('longvarchar: at most 65535 characters, line breaks kept inside', () => {
      expect(one('Notes', 'a\nb\r\n\tc')).toEqual({ value: 'a\nb\r\n\tc' })
      expect(one('Notes', 'x'.repeat(65536))).toEqual({ error: 'must be at most 65535 characters' })
    })

    it('refuses control characters XML cannot carry', () => {
      expect(one('Title', 'a\u0000b')).toEqual({ error: 'must not contain control characters' })
      expect(one('Notes', 'a\u001Fb')).toEqual({ error: 'must not contain control characters' })
      expect(one('Title', 'a\uFFFEb')).toEqual({ error: 'must not contain control characters' })
    })
  })

  describe('integer (32-bit) and bigint (safe integer)', () => {
    it.each([
      ['0', 0],
      ['-0', 0],
      ['42', 42],
      ['+42', 42],
      ['0042', 42],
      ['2147483647', 2147483647],
      ['-2147483648', -2147483648],
    ])('integer %s → %d', (text, value) => {
      expect(one('Episode', text)).toEqual({ value })
    })

    it.each([
      '2147483648',
      '-2147483649',
      '1.5',
      '1e3',
      '0x10',
      '12abc',
      '--1',
      '+',
      ' 1 2',
      '١٢',
      '99999999999999999999999',
    ])('integer %j is refused', (text) => {
      expect(one('Episode', text)).toEqual({ error: INT })
    })

    it('bigint: up to 2^53 - 1 either way, exactly (no rounding into range)', () => {
      expect(one('Frames', '9007199254740991')).toEqual({ value: 9007199254740991 })
      expect(one('Frames', '-9007199254740991')).toEqual({ value: -9007199254740991 })
      expect(one('Frames', '2147483648')).toEqual({ value: 2147483648 })
      expect(one('Frames', '9007199254740992')).toEqual({ error: BIG })
      expect(one('Frames', '-9007199254740992')).toEqual({ error: BIG })
      expect(one('Frames', '9007199254740993')).toEqual({ error: BIG })
      expect(one('Frames', '3.0')).toEqual({ error: BIG })
    })
  })

  describe('date', () => {
    it.each(['2024-02-29', '2023-12-31', '0001-01-01', '0099-06-15', '9999-12-31'])('%s is a date', (text) => {
      expect(one('Shot on', text)).toEqual({ value: text })
    })

    it.each([
      '2023-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-04-31',
      '2024-1-5',
      '24-01-05',
      '2024/01/05',
      '20240105',
      '2024-01-05T10:00:00Z',
      'yesterday',
      '1700000000',
    ])('%s is refused', (text) => {
      expect(one('Shot on', text)).toEqual({ error: DATE })
    })
  })

  describe('boolean', () => {
    it.each([
      ['1', true],
      ['true', true],
      ['True', true],
      ['0', false],
      ['false', false],
      ['FALSE', false],
    ])('%s → %s', (text, value) => {
      expect(one('Public', text)).toEqual({ value })
    })

    it.each(['yes', 'no', '2', 'on', 't'])('%s is refused', (text) => {
      expect(one('Public', text)).toEqual({ error: 'must be 0 or 1' })
    })
  })

  describe('choice', () => {
    it('takes one of the options exactly (trimmed), case included', () => {
      expect(one('Genre', 'rock')).toEqual({ value: 'rock' })
      expect(one('Genre', ' jazz ')).toEqual({ value: 'jazz' })
      expect(one('Genre', 'Rock')).toEqual({ error: 'must be one of: jazz, rock, classical music' })
      expect(one('Genre', 'jazz,rock')).toEqual({ error: 'must be one of: jazz, rock, classical music' })
    })
  })
})

describe('default values (parseDefault)', () => {
  it('canonical text per type', () => {
    expect(parseDefault('integer', '+010')).toEqual({ ok: true, value: '10', text: '10' })
    expect(parseDefault('bigint', '-0')).toEqual({ ok: true, value: '0', text: '0' })
    expect(parseDefault('boolean', 'true')).toEqual({ ok: true, value: '1', text: '1' })
    expect(parseDefault('boolean', 'False')).toEqual({ ok: true, value: '0', text: '0' })
    expect(parseDefault('date', '2020-01-31')).toMatchObject({ ok: true, text: '2020-01-31' })
    expect(parseDefault('varchar', 'hello')).toMatchObject({ ok: true, text: 'hello' })
    expect(parseDefault('choice', 'a , b,c')).toMatchObject({ ok: true, text: 'a,b,c' })
  })

  it('failures per type', () => {
    expect(parseDefault('integer', '2147483648')).toEqual({ ok: false, error: INT })
    expect(parseDefault('bigint', 'abc')).toEqual({ ok: false, error: BIG })
    expect(parseDefault('date', '2020-02-30')).toEqual({ ok: false, error: DATE })
    expect(parseDefault('boolean', 'yes')).toEqual({ ok: false, error: 'must be 0 or 1' })
    expect(parseDefault('varchar', 'x'.repeat(256))).toEqual({ ok: false, error: 'must be at most 255 characters' })
    expect(parseDefault('longvarchar', 'x'.repeat(65536))).toEqual({
      ok: false,
      error: 'must be at most 65535 characters',
    })
  })
})

describe('choice options (parseOptions)', () => {
  it('splits on commas and trims each option', () => {
    expect(parseOptions('jazz, rock ,classical music')).toEqual({
      ok: true,
      value: ['jazz', 'rock', 'classical music'],
      text: 'jazz,rock,classical music',
    })
    expect(parseOptions('only')).toEqual({ ok: true, value: ['only'], text: 'only' })
  })

  it.each([
    [',', 'must list the options, separated by commas'],
    [' , , ', 'must list the options, separated by commas'],
    ['a,,b', 'has an empty option: list the options, separated by commas'],
    ['a,b,', 'has an empty option: list the options, separated by commas'],
    ['a,b,a', 'lists the option "a" twice'],
    [`a,${'x'.repeat(256)}`, 'has an option longer than 255 characters'],
    ['a,b\u0001', 'has an option with control characters'],
  ])('%j: %s', (list, error) => {
    expect(parseOptions(list)).toEqual({ ok: false, error })
  })
})

describe('file types (parseFileTypes)', () => {
  it('keeps the order sent, drops repeats, trims', () => {
    expect(parseFileTypes('image, video ,image')).toEqual({ ok: true, value: ['image', 'video'], text: 'image,video' })
    expect(parseFileTypes('video,audio,image,document,other')).toMatchObject({ ok: true })
  })

  it.each([
    ['video,', 'must be a comma-separated list of: video, audio, image, document, other'],
    [',', 'must be a comma-separated list of: video, audio, image, document, other'],
    ['movie', 'unknown file type "movie": use video, audio, image, document, other'],
    ['video,Audio', 'unknown file type "Audio": use video, audio, image, document, other'],
    ['video;audio', 'unknown file type "video;audio": use video, audio, image, document, other'],
  ])('%j: %s', (list, error) => {
    expect(parseFileTypes(list)).toEqual({ ok: false, error })
  })
})
