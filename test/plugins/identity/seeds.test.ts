import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ProfileEntity, RoleEntity } from '../../../plugins/identity/index.js'
import { PlatformEntity } from '../../../plugins/platforms/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'

describe('default profiles and roles', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  const names = async (entity: typeof RoleEntity | typeof ProfileEntity): Promise<string[]> => {
    const em = app.kernel.em()
    const platform = await em.findOneOrFail(PlatformEntity, { slug: 'default' })
    return (await em.find(entity as typeof RoleEntity, { platform }, { orderBy: { id: 'asc' } })).map((r) => r.name)
  }

  it('every new platform gets Administrator, Publisher, Viewer profiles and Manager, Editor, Viewer roles', async () => {
    expect(await names(ProfileEntity)).toEqual(['Administrator', 'Publisher', 'Viewer', 'Installation administrator'])
    expect(await names(RoleEntity)).toEqual(['Manager', 'Editor', 'Viewer'])
  })

  it('seeding again leaves renamed or deleted defaults as the operator left them', async () => {
    const em = app.kernel.em()
    const platform = await em.findOneOrFail(PlatformEntity, { slug: 'default' })
    const viewer = await em.findOneOrFail(RoleEntity, { platform, name: 'Viewer' })
    viewer.name = 'Readers'
    await em.flush()
    await em.nativeDelete(RoleEntity, { platform, name: 'Editor' })
    await app.kernel.seed()
    expect(await names(RoleEntity)).toEqual(['Manager', 'Readers'])
  })

  it('seeding gives the defaults back to a platform that has none', async () => {
    const em = app.kernel.em()
    const platform = await em.findOneOrFail(PlatformEntity, { slug: 'default' })
    await em.nativeDelete(RoleEntity, { platform })
    await app.kernel.seed()
    expect(await names(RoleEntity)).toEqual(['Manager', 'Editor', 'Viewer'])
  })
})
