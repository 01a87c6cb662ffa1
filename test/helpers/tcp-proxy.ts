import { type Socket, connect, createServer } from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 in front of `targetPort`, in the test's own process: what the
 * server sends reaches the client only in a later turn of this event loop, so the test can
 * withhold it (`holdReplies`) at an exact moment, which no separate process allows.
 */
export async function startTcpProxy(targetPort: number): Promise<{
  port: number
  holdReplies(): void
  close(): Promise<void>
}> {
  let held = false
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1')
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    client.on('data', (chunk) => upstream.write(chunk))
    upstream.on('data', (chunk) => held || client.write(chunk))
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    holdReplies: () => void (held = true),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
