/**
 * Accesses: a role granted to a user or a group on an object (the platform, a media site, a stream, a resource). A
 * subject's accesses on their page, every access of the platform in the accesses tab; grant and revoke where the
 * caller's profile may (`user.manage_access`, `group.manage_access`), with only the roles whose flags they hold.
 */
import { useSignal } from '@preact/signals'
import { type Session, deleteAt, getXml, mediaSlugs, pathOf, postXml, slugOfHref } from './api.js'
import { LoadProblem, Loading, useAction, useLoad } from './load.js'
import { type Language, type MessageKey, message } from './messages/index.js'
import { formFields, holdsAll, loadFlagSets, routeOf } from './people-data.js'
import { Problem, type TabProps } from './people-parts.js'
import { peopleHref } from './people-query.js'

type SubjectKind = 'user' | 'group'
interface Subject {
  kind: SubjectKind
  name: string
}

interface AccessRow {
  /** The access's own path, under its subject: what DELETE takes. */
  path: string
  subject: Subject
  objectKind: string
  object: string
  role: string
}

const OBJECT_KINDS = ['platform', 'media', 'stream', 'resource'] as const

async function loadAccesses(session: Session, path: string): Promise<AccessRow[]> {
  const doc = await getXml(session, path)
  return Array.from(doc.documentElement.getElementsByTagName('access')).map((access) => {
    const [subject, object, role] = Array.from(access.children)
    return {
      path: pathOf(session, access.getAttribute('href') || ''),
      subject: {
        kind: (subject?.tagName === 'group' ? 'group' : 'user') as SubjectKind,
        name: slugOfHref(session, subject?.getAttribute('href') ?? null),
      },
      objectKind: object?.tagName ?? '',
      object: slugOfHref(session, object?.getAttribute('href') ?? null),
      role: slugOfHref(session, role?.getAttribute('href') ?? null),
    }
  })
}

const kindLabel = (language: Language, kind: string): string =>
  (OBJECT_KINDS as readonly string[]).includes(kind)
    ? message(language, `people.object.${kind as (typeof OBJECT_KINDS)[number]}`)
    : kind

/** The accesses of one user or group, on their page. */
export function SubjectAccesses(props: TabProps & { subject: Subject; mayManage: boolean }) {
  const { session, subject, mayManage } = props
  const path = `${routeOf(subject.kind, subject.name)}/accesses`
  const manage = mayManage && session.flags.has(`${subject.kind}.manage_access`)
  return <AccessList {...props} path={path} subject={subject} manage={manage} />
}

/** Every access on the platform (the accesses tab). */
export function PeopleAccesses(props: TabProps) {
  const path = `${routeOf('platform', props.platform)}/accesses`
  return <AccessList {...props} path={path} manage />
}

function AccessList(props: TabProps & { path: string; subject?: Subject; manage: boolean }) {
  const { session, language, path, subject, manage } = props
  const t = (key: MessageKey, values?: Record<string, string | number>) => message(language, key, values)
  const load = useLoad(() => loadAccesses(session, path))
  const action = useAction()
  const mayRevoke = (row: AccessRow) => manage && session.flags.has(`${row.subject.kind}.manage_access`)

  async function revoke(row: AccessRow) {
    if (await action.run(() => deleteAt(session, row.path))) load.reload()
  }

  const current = load.current
  return (
    <div>
      <section class="card" aria-labelledby="accesses-heading">
        <h2 id="accesses-heading">
          {subject ? t('people.accesses.of', { name: subject.name }) : t('people.accesses.title')}
        </h2>
        <Problem language={language} reason={action.problem} />
        {current.state === 'loading' ? <Loading language={language} /> : null}
        {current.state === 'error' ? (
          <LoadProblem language={language} reason={current.reason} onRetry={load.reload} />
        ) : null}
        {current.state === 'ready' && current.value.length === 0 ? <p>{t('people.accesses.empty')}</p> : null}
        {current.state === 'ready' && current.value.length > 0 ? (
          <div class="scroll">
            <table class="people">
              <thead>
                <tr>
                  {subject ? null : <th scope="col">{t('people.accesses.who')}</th>}
                  <th scope="col">{t('people.accesses.object')}</th>
                  <th scope="col">{t('people.accesses.role')}</th>
                  <th scope="col">{t('people.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {current.value.map((row) => {
                  const what = t('people.accesses.row', {
                    role: row.role,
                    kind: kindLabel(language, row.objectKind),
                    object: row.object,
                  })
                  return (
                    <tr key={row.path}>
                      {subject ? null : (
                        <td>
                          <a
                            href={peopleHref(session.base, {
                              tab: row.subject.kind === 'user' ? 'users' : 'groups',
                              open: row.subject.name,
                            })}
                          >
                            {row.subject.name}
                          </a>
                        </td>
                      )}
                      <td>{`${kindLabel(language, row.objectKind)} ${row.object}`}</td>
                      <td>{row.role}</td>
                      <td>
                        {mayRevoke(row) ? (
                          <button
                            type="button"
                            class="quiet"
                            aria-label={t('people.accesses.revoke_label', { what, name: row.subject.name })}
                            onClick={() => revoke(row)}
                          >
                            {t('people.accesses.revoke')}
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
      {manage && (!subject || session.flags.has(`${subject.kind}.manage_access`)) ? (
        <GrantForm {...props} subject={subject} onGranted={load.reload} />
      ) : null}
    </div>
  )
}

/** What a grant may name: the roles the caller holds every flag of, and the platform's media sites. */
function useGrantChoices(props: TabProps) {
  const { session, platform } = props
  return useLoad(async () => {
    const [roles, media] = await Promise.all([
      loadFlagSets(session, platform, 'role').then((all) => all.filter((role) => holdsAll(session, 'role', role))),
      mediaSlugs(session),
    ])
    return { roles, media }
  })
}

/** Grants a role on an object to the subject given, or to a user or group named in the form. */
function GrantForm(props: TabProps & { subject?: Subject; onGranted: () => void }) {
  const { session, language, platform, subject, onGranted } = props
  const t = (key: MessageKey) => message(language, key)
  const choices = useGrantChoices(props)
  const kind = useSignal<(typeof OBJECT_KINDS)[number]>('platform')
  const action = useAction()

  async function grant(event: Event) {
    event.preventDefault()
    const data = formFields(event.currentTarget as HTMLFormElement)
    const who: Subject = subject ?? { kind: data.subject_kind === 'group' ? 'group' : 'user', name: data.subject || '' }
    const form = { role: data.role || '', [kind.value]: kind.value === 'platform' ? platform : data.object || '' }
    if (await action.run(() => postXml(session, `${routeOf(who.kind, who.name)}/accesses`, form))) onGranted()
  }

  const current = choices.current
  return (
    <section class="card" aria-labelledby="grant-heading">
      <h2 id="grant-heading">{t('people.grant.title')}</h2>
      {current.state === 'loading' ? <Loading language={language} /> : null}
      {current.state === 'error' ? (
        <LoadProblem language={language} reason={current.reason} onRetry={choices.reload} />
      ) : null}
      {current.state === 'ready' && current.value.roles.length === 0 ? <p>{t('people.grant.no_role')}</p> : null}
      {current.state === 'ready' && current.value.roles.length > 0 ? (
        <form onSubmit={grant}>
          <Problem language={language} reason={action.problem} />
          <div class="filters">
            {subject ? null : (
              <>
                <div>
                  <label for="grant-subject-kind">{t('people.grant.subject_kind')}</label>
                  <select id="grant-subject-kind" name="subject_kind">
                    {session.flags.has('user.manage_access') ? (
                      <option value="user">{t('people.grant.a_user')}</option>
                    ) : null}
                    {session.flags.has('group.manage_access') ? (
                      <option value="group">{t('people.grant.a_group')}</option>
                    ) : null}
                  </select>
                </div>
                <div>
                  <label for="grant-subject">{t('people.grant.subject')}</label>
                  <input type="text" id="grant-subject" name="subject" required maxLength={128} autocomplete="off" />
                </div>
              </>
            )}
            <div>
              <label for="grant-role">{t('people.accesses.role')}</label>
              <select id="grant-role" name="role" required>
                {current.value.roles.map((role) => (
                  <option key={role.slug} value={role.slug}>
                    {role.name}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label for="grant-kind">{t('people.grant.kind')}</label>
              <select
                id="grant-kind"
                value={kind.value}
                onChange={(event) =>
                  (kind.value = (event.currentTarget as HTMLSelectElement).value as typeof kind.value)
                }
              >
                {OBJECT_KINDS.map((name) => (
                  <option key={name} value={name}>
                    {kindLabel(language, name)}
                  </option>
                ))}
              </select>
            </div>
            <ObjectField language={language} kind={kind.value} platform={platform} media={current.value.media} />
          </div>
          <div class="actions">
            <button type="submit">{t('people.grant.submit')}</button>
          </div>
          <p role="status" class="notice">
            {action.done ? t('people.grant.done') : ''}
          </p>
        </form>
      ) : null}
    </section>
  )
}

/** The object of a grant: the platform itself, one of the media sites, or a stream or resource by its slug. */
function ObjectField(props: { language: Language; kind: string; platform: string; media: string[] }) {
  const { language, kind, platform, media } = props
  const label = message(language, 'people.grant.object')
  if (kind === 'platform') {
    return (
      <div>
        <label for="grant-object">{label}</label>
        <input type="text" id="grant-object" readOnly value={platform} />
      </div>
    )
  }
  if (kind === 'media') {
    return (
      <div>
        <label for="grant-object">{label}</label>
        <select id="grant-object" name="object" required>
          {media.map((slug) => (
            <option key={slug} value={slug}>
              {slug}
            </option>
          ))}
        </select>
      </div>
    )
  }
  return (
    <div>
      <label for="grant-object">{message(language, 'people.grant.object_slug')}</label>
      <input type="text" id="grant-object" name="object" required maxLength={128} autocomplete="off" />
    </div>
  )
}
