/** A `ws` client's handshake, told as opened or refused (an HTTP answer or a socket error), never thrown. */
import WebSocket from 'ws'

export async function openOrRefused(url: string): Promise<{ socket: WebSocket; opened: boolean }> {
  const socket = new WebSocket(url)
  socket.on('error', () => {})
  const opened = await new Promise<boolean>((resolve) => {
    socket.once('open', () => resolve(true))
    socket.once('unexpected-response', () => resolve(false))
    socket.once('error', () => resolve(false))
  })
  return { socket, opened }
}
