// The microphone's samples, as they come, passed to the page (an AudioWorklet processor).
class Capture extends AudioWorkletProcessor {
  process([input]) {
    if (input.length > 0) this.port.postMessage(input[0].slice())
    return true
  }
}

registerProcessor('svc-tts-capture', Capture)
