import { type Socket, connect, createServer } from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 in front of `targetPort`, in the test's own process: what the
 * server sends reaches the client only in a later turn of this event loop, so the test can
 * withhold it (`holdReplies`) at an exact moment, which no separate process allows, or
 * stall the connections open now (`stallOpen`: nothing passes, as on a link dropped without
 * a word, while new connections get through) and let what they held through later
 * (`resumeOpen`: a link that was only slow).
 */
export async function startTcpProxy(targetPort: number): Promise<{
  port: number
  holdReplies(): void
  stallOpen(): void
  resumeOpen(): void
  close(): Promise<void>
}> {
  let held = false
  const sockets = new Set<Socket>()
  const clients = new Set<Socket>()
  /** What the stalled connections' server sent meanwhile, per client socket. */
  const stalled = new Map<Socket, Buffer[]>()
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1')
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    clients.add(client)
    client.on('data', (chunk) => upstream.write(chunk))
    upstream.on('data', (chunk) => held || (stalled.get(client)?.push(chunk) ?? client.write(chunk)))
    client.on('close', () => (clients.delete(client), stalled.delete(client), upstream.destroy()))
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    holdReplies: () => void (held = true),
    stallOpen: () => clients.forEach((client) => stalled.set(client, [])),
    resumeOpen: () => {
      for (const [client, chunks] of stalled) for (const chunk of chunks) client.write(chunk)
      stalled.clear()
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
