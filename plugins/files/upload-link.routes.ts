import { type HttpContext, type Router, reply, xml } from '../../src/kernel/index.js'
import { ownDirectory, requireFileFlag } from './files.lookup.js'
import type { FilesDeps } from './files.deps.js'
import type { UploadLinks } from './upload-token.js'

async function links(c: HttpContext, uploadLinks: UploadLinks, directory: string | null) {
  requireFileFlag(c, 'file.create')
  const token = encodeURIComponent(uploadLinks.token(c.principal.username, directory))
  const base = uploadLinks.base
  const href =
    directory === null ? c.links.url('files', 'upload_links') : c.links.url('files', directory, 'upload_links')
  return reply.xml(
    200,
    xml.el('links', { href }, [
      { name: 'link', attrs: { rel: 'html', href: `${base}/upload/html?token=${token}` } },
      { name: 'link', attrs: { rel: 'json', href: `${base}/upload/json?token=${token}` } },
    ]),
  )
}

/**
 * `POST /files/upload_links` and `/files/<slug>/upload_links`: the html and json upload
 * links, carrying a signed token bound to the caller and the directory. Declared before the
 * directory routes: `upload_links` is not a slug (slugs have no `_`).
 */
export function uploadLinkRoutes(r: Router, deps: FilesDeps): void {
  const { uploadLinks } = deps
  const permission = 'the owner of the directory; profile file.create'
  r.post('/files/upload_links', (c) => links(c, uploadLinks, null), { permission })
  r.post('/files/:directory/upload_links', async (c) => links(c, uploadLinks, (await ownDirectory(c)).slug), {
    permission,
  })
}
