import { expect } from 'vitest'
import type { DigestClient, Response } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { xmlOf } from '../identity/permissions.fixtures.js'

/** A job as `GET /job/<id>` answers it, the fields the tests read. */
export interface JobSeen {
  id: string
  kind: string
  state: string
  file: string
  attempts: string
  lastError: string
}

export const jobSeen = (job: XmlObject): JobSeen => ({
  id: text(job.id),
  kind: text(job.kind),
  state: text(job.state),
  file: text(job.file),
  attempts: `${text(job.attempts)}/${text(job.max_attempts)}`,
  lastError: text(job.last_error),
})

/** The jobs `GET /jobs<query>` answers the client (200 expected). */
export async function jobsSeen(client: DigestClient, query = '', headers?: Record<string, string>): Promise<JobSeen[]> {
  const res = await client.get(`/jobs${query}`, headers ? { headers } : undefined)
  return list<XmlObject>(xmlOf(res, 200).jobs.job).map(jobSeen)
}

/** One job of an answer (200 expected). */
export const oneJob = (res: Response): JobSeen => jobSeen(xmlOf(res, 200).job)

/** The id of a file's newest job, as an installation administrator lists it. */
export async function jobOf(admin: DigestClient, slug: string): Promise<string> {
  const [job] = await jobsSeen(admin, `?file=${slug}`)
  expect(job, `a job of ${slug}`).toBeDefined()
  return job!.id
}
