import { reply as replies } from '../http/reply.js'
import { type RouteRunner, type RouteWrapper, runRoute } from '../http/route-runner.js'
import type { AnswerCache } from './answer-cache.js'
import { ReadSet, readTracking } from './read-tracking.js'

/**
 * The runner of a cacheable route (RouteOptions.cacheable): a GET answered from `answers`
 * when its answer is kept, else made and offered to keep. Everything the answer is made from
 * is recorded, the caller's authentication included (a changed grant or password drops it),
 * and the key holds the rest of what it may depend on: the caller, their timestamp dialect,
 * the host mapping, the target and `Range`.
 */
export function keptAnswers(answers: AnswerCache): RouteWrapper {
  const run: RouteRunner = (request) => {
    if (request.method !== 'GET' || !answers.enabled) return runRoute(request)
    const reads = new ReadSet()
    const mark = answers.begin()
    return readTracking.run(reads, async () => {
      const user = await request.authenticate()
      const key = [user?.id ?? '', request.dialect, request.mounted, request.url, request.range].join('\n')
      const kept = answers.get(key)
      if (kept) return replies.answer(kept)
      const reply = await request.respond()
      if (!reply.xml || reply.status !== 200 || reply.handled) return reply
      const answer = request.render({ ...reply, xml: reply.xml })
      answers.keep(key, mark, reads, answer)
      return replies.answer(answer)
    })
  }
  return (route) => (route.options.cacheable ? run : undefined)
}
