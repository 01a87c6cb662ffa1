/**
 * Vitest's global setup: bundles the pages' browser scripts (plugins/<plugin>/browser/*.browser.ts) into
 * dist/browser/ as `npm run build` does, before any test file runs, so a checkout that was never built, or whose
 * browser code changed since its last build, is tested against bundles of its own sources.
 */
interface Bundler {
  bundleBrowserScripts(): Promise<{ name: string; path: string; bytes: number }[]>
}

export default async function setup(): Promise<void> {
  const bundler = (await import(new URL('../../scripts/bundle-browser.js', import.meta.url).href)) as Bundler
  await bundler.bundleBrowserScripts()
}
