import { expect } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient, Response } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { keysOf, xmlOf } from '../identity/permissions.fixtures.js'

/** Settings of a theme as answered (the XML text of each element). */
export interface ThemeFields {
  background_color: string
  text_color: string
  accent_color: string
  logo_url: string
  logo_position: string
}

/** Settings of a behavior as answered; `subtitle_language` is the English name, `code` its attribute. */
export interface BehaviorFields {
  controls: string
  autoplay: string
  muted: string
  loop: string
  start_time: string
  subtitles_on: string
  subtitle_language: string
  code?: string
}

export const LIGHT: ThemeFields = {
  background_color: '#ffffff',
  text_color: '#1a1a1a',
  accent_color: '#0066cc',
  logo_url: '',
  logo_position: 'top-right',
}
export const DARK: ThemeFields = {
  ...LIGHT,
  background_color: '#121212',
  text_color: '#f5f5f5',
  accent_color: '#4da3ff',
}

export const DEFAULT: BehaviorFields = {
  controls: '1',
  autoplay: '0',
  muted: '0',
  loop: '0',
  start_time: '0',
  subtitles_on: '0',
  subtitle_language: '',
}
export const AUTOPLAY_MUTED: BehaviorFields = { ...DEFAULT, autoplay: '1', muted: '1' }
export const LOOP: BehaviorFields = { ...DEFAULT, loop: '1' }

/** One of the two families, as the tests address it. */
export interface Family {
  kind: 'player_theme' | 'player_behavior'
  plural: 'player_themes' | 'player_behaviors'
  label: string
}
export const THEME: Family = { kind: 'player_theme', plural: 'player_themes', label: 'player theme' }
export const BEHAVIOR: Family = { kind: 'player_behavior', plural: 'player_behaviors', label: 'player behavior' }

export const listPath = (f: Family, platform = 'default'): string => `/platform/${platform}/${f.kind}`
export const onePath = (f: Family, slug: string, platform = 'default'): string =>
  `/platform/${platform}/${f.kind}/${slug}`

/** Checks an info answer (info, create, update): exactly slug, name, the settings and the platform link, in order. */
export function expectInfo(
  app: TestApp,
  res: Response,
  status: number,
  f: Family,
  e: { slug: string; name: string; platform?: string; settings: ThemeFields | BehaviorFields },
): XmlObject {
  const doc = xmlOf(res, status)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual([f.kind])
  const node = doc[f.kind] as XmlObject
  const platform = e.platform ?? 'default'
  const { code, ...settings } = e.settings as Partial<BehaviorFields> & Partial<ThemeFields>
  expect(node['@href']).toBe(`${app.url}/platform/${platform}/${f.kind}/${e.slug}`)
  // The parser lists attributes last: the elements, in document order, then href.
  expect(Object.keys(node)).toEqual(['slug', 'name', ...Object.keys(settings), 'platform', '@href'])
  expect(text(node.slug)).toBe(e.slug)
  expect(text(node.name)).toBe(e.name)
  for (const [field, value] of Object.entries(settings)) expect(text(node[field]), field).toBe(value)
  expect(node.platform).toEqual({ '@href': `${app.url}/platform/${platform}` })
  if (f === BEHAVIOR) {
    expect(node.subtitle_language['@code']).toBe(code)
    // Flags and numbers are plain text, strings CDATA.
    expect(res.body).toContain(`<controls>${settings.controls}</controls>`)
    expect(res.body).toContain(`<start_time>${settings.start_time}</start_time>`)
  } else {
    expect(res.body).toContain(`<background_color><![CDATA[${settings.background_color}]]>`)
  }
  return node
}

/** The entries of a list answer (asserting 200 and the list element). */
export function entriesOf(app: TestApp, res: Response, f: Family, platform = 'default'): XmlObject[] {
  const doc = xmlOf(res, 200)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual([f.plural])
  expect(doc[f.plural]['@href']).toBe(`${app.url}/platform/${platform}/${f.kind}`)
  const entries = list<XmlObject>(doc[f.plural][f.kind])
  for (const entry of entries) {
    expect(keysOf(entry)).toEqual(['@href', 'name', 'slug'])
    expect(entry['@href']).toBe(`${app.url}/platform/${platform}/${f.kind}/${text(entry.slug)}`)
  }
  return entries
}

/** The slugs of a platform's list. */
export async function slugsOf(app: TestApp, client: DigestClient, f: Family, platform = 'default'): Promise<string[]> {
  return entriesOf(app, await client.get(listPath(f, platform)), f, platform).map((e) => text(e.slug))
}

/** Creates one through the API and returns its slug (asserting 201). */
export async function create(
  client: DigestClient,
  f: Family,
  form: Record<string, string>,
  platform = 'default',
): Promise<string> {
  const res = await client.post(listPath(f, platform), { form })
  return text(xmlOf(res, 201)[f.kind].slug)
}

/** Creates a platform through the API (no limit of users, of bytes `maxSpace`: 0 for none) and returns its slug. */
export async function createPlatform(client: DigestClient, name: string, maxSpace = 0): Promise<string> {
  const res = await client.post('/platforms', { form: { name, max_users: 0, max_space: maxSpace } })
  return text(xmlOf(res, 201).platform.slug)
}
