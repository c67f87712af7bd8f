// One Speak over the service's WebSocket (SPEC section 4): initializeConnection, the text in one
// context, closeContext; audioOutput events arrive as the text is spoken, with their words'
// timestamps (the add_timestamps extension). Stop cancels the context (the cancel extension):
// its acknowledgement is the last thing the service sends for it.

const WEBSOCKET_PATH = 'text_to_speech/websocket/ws'

function base64Bytes(text) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text)
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
}

/**
 * Speaks `text`. Calls back onAudio(bytes, alignment?) per chunk, then one of onDone() (all of it
 * sent), onStopped() (cancelled), onError({ error_code, message }).
 * Returns { stop() }.
 */
export function speak(credentials, { request, text }, { onAudio, onDone, onStopped, onError }) {
  const contextId = crypto.randomUUID()
  const socket = new WebSocket(credentials.socketUrl(WEBSOCKET_PATH))
  let ended = false
  // From Stop on, nothing more is played, whatever was already on its way.
  let stopping = false
  const end = (callback, ...args) => {
    if (ended) return
    ended = true
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ terminate: true }))
    // The service closes after terminate; a socket still connecting is simply dropped.
    if (socket.readyState === WebSocket.CONNECTING) socket.close()
    callback(...args)
  }
  socket.addEventListener('open', () => {
    socket.send(JSON.stringify({ ...request, add_timestamps: true }))
    // The SPEC's text messages end with a single space.
    socket.send(JSON.stringify({ context_id: contextId, transcript: `${text.trimEnd()} ` }))
    socket.send(JSON.stringify({ context_id: contextId, close_context: true, transcript: '' }))
  })
  socket.addEventListener('message', (event) => {
    if (ended) return
    const message = JSON.parse(event.data)
    if (message.error_code) return end(onError, message)
    if (message.context_id !== contextId) return
    if (message.cancelled) return end(onStopped)
    if (stopping) return
    if (message.audio) onAudio(base64Bytes(message.audio), message.alignment)
    else if (message.alignment?.words.length) onAudio(new Uint8Array(0), message.alignment)
    // The context's audio is complete at its first final message with no audio (the last
    // audioOutput may carry some, finalOutput never does).
    if (message.final && !message.audio) end(onDone)
  })
  socket.addEventListener('close', (event) => {
    if (!ended) end(onError, { error_code: 'CONNECTION_CLOSED', message: event.reason || 'the connection to the server closed before the speech ended (is the key valid?)' })
  })
  return {
    stop() {
      if (ended || stopping) return
      stopping = true
      if (socket.readyState !== WebSocket.OPEN) return end(onStopped)
      socket.send(JSON.stringify({ context_id: contextId, cancel: true }))
    },
  }
}
