// The playground page: wires the controls to the service (credentials.js, api.js), speaks over
// the WebSocket (speaker.js) into gapless playback (player.js), lights words (reader.js), and
// clones voices from a file or the microphone (recorder.js). What it measured is kept on
// window.svcTtsPlayground, for a person's console and for the page's tests.

import { Api } from './api.js'
import { Credentials } from './credentials.js'
import { audioContext, Player } from './player.js'
import { Reader } from './reader.js'
import { MIN_SECONDS, MicRecorder } from './recorder.js'
import { speak } from './speaker.js'
import { wavFromPcm } from './wav.js'

const $ = (id) => document.getElementById(id)

const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language' })
const languageName = (code) => LANGUAGE_NAMES.of(code) ?? code

/** What the page measured: the last Speak's counters and state. */
const stats = {
  state: 'starting',
  chunks: 0,
  bytes: 0,
  frames: 0,
  sampleRate: 44100,
  firstAudioMs: undefined,
  highlighted: [],
  error: undefined,
}
window.svcTtsPlayground = stats

const base = new URL('.', location.href.replace(/\/playground\/?(?:[?#].*)?$/, '/'))
const credentials = new Credentials(base, askKey)
const api = new Api(credentials)
const reader = new Reader($('reader'))
const recorder = new MicRecorder()

let models = []
let voices = []
let session
let sample

function setState(state, status) {
  stats.state = state
  document.body.dataset.state = state
  $('status').textContent = status
  const speaking = state === 'speaking'
  $('speak').disabled = speaking || state === 'starting'
  $('stop').disabled = !speaking
}

/** Shows a failure in the card where it happened (`box`: speak-error, clone-error, voices-error). */
function showError(box, error) {
  stats.error = { code: error.code ?? error.error_code ?? 'ERROR', message: error.message }
  $(box).querySelector('.error-code').textContent = stats.error.code
  $(box).querySelector('.error-message').textContent = stats.error.message
  $(box).hidden = false
}

function clearError(box) {
  stats.error = undefined
  $(box).hidden = true
}

function askKey(reason) {
  if (reason) $('key-reason').textContent = `${reason}. Enter a valid API key.`
  $('key-dialog').hidden = false
  $('key-input').focus()
  return new Promise((resolve) => {
    $('key-form').addEventListener('submit', (event) => {
      event.preventDefault()
      $('key-dialog').hidden = true
      resolve($('key-input').value)
    }, { once: true })
  })
}

function option(value, label) {
  const element = document.createElement('option')
  element.value = value
  element.textContent = label
  return element
}

function fillLanguages() {
  const model = models.find((m) => m.id === $('model').value)
  $('model-description').textContent = model ? `${model.id}: ${model.description}` : ''
  const voice = voices.find((v) => v.voice_id === $('voice').value)
  const current = $('language').value
  $('language').replaceChildren(...(model?.languages ?? []).map((code) => option(code, languageName(code))))
  // The voice's own language where the model has it, else the one chosen before.
  const preferred = [voice?.language, current].find((code) => model?.languages.includes(code))
  if (preferred) $('language').value = preferred
}

function fillVoices(selected = $('voice').value) {
  const groups = [
    ['Your voices', voices.filter((v) => v.voice_type === 'CUSTOM')],
    ['Predefined', voices.filter((v) => v.voice_type !== 'CUSTOM')],
  ]
  $('voice').replaceChildren(
    ...groups.filter(([, list]) => list.length > 0).map(([label, list]) => {
      const group = document.createElement('optgroup')
      group.label = label
      group.append(...list.map((v) => option(v.voice_id, `${v.name} · ${languageName(v.language)}${v.gender ? ` · ${v.gender}` : ''}`)))
      return group
    }),
  )
  if (voices.some((v) => v.voice_id === selected)) $('voice').value = selected
  fillLanguages()
  const custom = voices.filter((v) => v.voice_type === 'CUSTOM')
  $('no-voices').hidden = custom.length > 0
  $('custom-voices').replaceChildren(...custom.map(voiceItem))
}

function voiceItem(voice) {
  const item = document.createElement('li')
  item.dataset.voiceId = voice.voice_id
  const name = document.createElement('span')
  name.className = 'voice-name'
  name.textContent = voice.name
  const meta = document.createElement('span')
  meta.className = 'voice-meta'
  meta.textContent = `${languageName(voice.language)}${voice.gender ? ` · ${voice.gender}` : ''}`
  const use = document.createElement('button')
  use.type = 'button'
  use.textContent = 'Use'
  use.addEventListener('click', () => {
    $('voice').value = voice.voice_id
    fillLanguages()
  })
  const remove = document.createElement('button')
  remove.type = 'button'
  remove.className = 'danger'
  remove.textContent = 'Delete'
  remove.addEventListener('click', () => deleteVoice(voice, remove))
  item.append(name, meta, use, remove)
  return item
}

async function refreshVoices(selected) {
  voices = await api.voices()
  fillVoices(selected)
}

async function deleteVoice(voice, button) {
  clearError('voices-error')
  button.disabled = true
  try {
    await api.deleteVoice(voice.voice_id)
    await refreshVoices()
  } catch (error) {
    button.disabled = false
    showError('voices-error', error)
  }
}

function outputFormat() {
  return { container: 'raw', encoding: $('encoding').value, sample_rate: Number($('sample-rate').value) }
}

async function onSpeak() {
  const clicked = performance.now()
  clearError('speak-error')
  const text = $('text').value
  if (!text.trim()) return showError('speak-error', { code: 'EMPTY_TEXT', message: 'Type some text to speak.' })
  const format = outputFormat()
  const context = audioContext()
  await credentials.fresh()
  const player = new Player(context, format.encoding, format.sample_rate)
  const received = []
  Object.assign(stats, { chunks: 0, bytes: 0, frames: 0, sampleRate: format.sample_rate, firstAudioMs: undefined, highlighted: [] })
  reader.show(text)
  stats.highlighted = reader.highlighted
  $('ttfa-value').textContent = '…'
  $('ttfa').classList.remove('measured')
  if ($('download').href) URL.revokeObjectURL($('download').href)
  $('download').removeAttribute('href')
  $('download').setAttribute('aria-disabled', 'true')
  updateCounters()
  setState('speaking', 'Speaking…')

  let finished = false
  const request = { model_id: $('model').value, voice: { mode: 'id', id: $('voice').value }, language: $('language').value, speed: Number($('speed').value), output_format: format }
  const follow = () => {
    const position = player.position()
    if (position !== undefined) reader.update(position * 1000)
    updateCounters()
    if (finished && player.finished) {
      reader.finish()
      setState('done', 'Done')
      return
    }
    if (stats.state === 'speaking') requestAnimationFrame(follow)
  }
  const unmeasured = () => {
    if (stats.firstAudioMs === undefined) $('ttfa-value').textContent = '—'
  }
  const offerDownload = () => {
    if (received.length === 0) return
    $('download').href = URL.createObjectURL(wavFromPcm(received, format.encoding, format.sample_rate))
    $('download').removeAttribute('aria-disabled')
  }
  session = speak(credentials, { request, text }, {
    onAudio(bytes, alignment) {
      if (bytes.byteLength > 0) {
        if (stats.firstAudioMs === undefined) {
          stats.firstAudioMs = Math.round(performance.now() - clicked)
          $('ttfa-value').textContent = String(stats.firstAudioMs)
          $('ttfa').classList.add('measured')
        }
        stats.chunks++
        stats.bytes += bytes.byteLength
        received.push(bytes)
        stats.frames += player.schedule(bytes)
      }
      if (alignment) reader.align(alignment)
    },
    onDone() {
      finished = true
      offerDownload()
    },
    onStopped() {
      player.stop()
      unmeasured()
      offerDownload()
      setState('stopped', 'Stopped')
    },
    onError(event) {
      player.stop()
      unmeasured()
      offerDownload()
      showError('speak-error', event)
      setState('error', 'Failed')
    },
  })
  requestAnimationFrame(follow)
}

function updateCounters() {
  $('stat-chunks').textContent = String(stats.chunks)
  $('stat-audio').textContent = `${(stats.frames / stats.sampleRate).toFixed(1)} s`
  $('stat-words').textContent = String(stats.highlighted.length)
}

function onStop() {
  session?.stop()
  $('stop').disabled = true
  $('status').textContent = 'Stopping…'
}

/** The sample the next clone is made from (undefined: none chosen). */
function setSample(file) {
  sample = file
  $('sample').hidden = !file
  $('sample-name').textContent = file?.name ?? ''
  const audio = $('sample-audio')
  if (audio.src) URL.revokeObjectURL(audio.src)
  if (file) audio.src = URL.createObjectURL(file)
  else audio.removeAttribute('src')
  updateCloneButton()
}

function updateCloneButton() {
  $('clone').disabled = !sample || !$('clone-name').value.trim() || recorder.recording
}

async function onRecord() {
  clearError('clone-error')
  if (recorder.recording) {
    $('record').disabled = true
    try {
      setSample(await recorder.stop())
    } catch (error) {
      showError('clone-error', { code: 'RECORDING_FAILED', message: error.message })
    }
    $('record').disabled = false
    $('record').textContent = '● Record'
    $('recording').hidden = true
    document.body.dataset.recording = 'off'
    updateCloneButton()
    return
  }
  try {
    await recorder.start(audioContext(), (seconds) => {
      $('record-time').textContent = `${seconds.toFixed(1)} s`
      $('record-fill').style.width = `${Math.min(100, (seconds / (MIN_SECONDS * 2)) * 100)}%`
      const enough = seconds >= MIN_SECONDS
      $('recording').classList.toggle('enough', enough)
      $('record-min').textContent = enough ? '3 s minimum reached' : `${(MIN_SECONDS - seconds).toFixed(1)} s to the 3 s minimum`
    })
  } catch (error) {
    showError('clone-error', { code: 'MICROPHONE_UNAVAILABLE', message: error.message })
    return
  }
  $('record').textContent = '■ Stop'
  $('recording').hidden = false
  document.body.dataset.recording = 'on'
  updateCloneButton()
}

async function onClone() {
  clearError('clone-error')
  const button = $('clone')
  button.disabled = true
  button.textContent = 'Cloning…'
  try {
    const voice = await api.clone(sample, { name: $('clone-name').value.trim(), language: $('clone-language').value })
    await refreshVoices(voice.voice_id)
    $('clone-name').value = ''
    $('clone-file').value = ''
    setSample(undefined)
  } catch (error) {
    showError('clone-error', error)
  }
  button.textContent = 'Clone voice'
  updateCloneButton()
}

async function start() {
  $('char-count').textContent = String($('text').value.length)
  $('text').addEventListener('input', () => ($('char-count').textContent = String($('text').value.length)))
  $('speed').addEventListener('input', () => ($('speed-value').textContent = `${Number($('speed').value).toFixed(2)}×`))
  $('model').addEventListener('change', fillLanguages)
  $('voice').addEventListener('change', fillLanguages)
  $('speak').addEventListener('click', () => onSpeak().catch((error) => {
    showError('speak-error', error)
    setState('error', 'Failed')
  }))
  $('stop').addEventListener('click', onStop)
  $('text').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !$('speak').disabled) $('speak').click()
  })
  $('clone-file').addEventListener('change', () => {
    clearError('clone-error')
    if ($('clone-file').files[0]) setSample($('clone-file').files[0])
  })
  $('clone-name').addEventListener('input', updateCloneButton)
  $('record').addEventListener('click', onRecord)
  $('clone').addEventListener('click', onClone)
  $('download').addEventListener('click', (event) => {
    if (!$('download').href) event.preventDefault()
  })
  setState('starting', 'Connecting…')
  try {
    await credentials.ready()
    ;[models, voices] = await Promise.all([api.models(), api.voices()])
  } catch (error) {
    showError('speak-error', error)
    setState('starting', 'Not connected')
    return
  }
  $('model').replaceChildren(...models.map((m) => option(m.id, m.id)))
  const allLanguages = [...new Set(models.flatMap((m) => m.languages))]
  $('clone-language').replaceChildren(...allLanguages.map((code) => option(code, languageName(code))))
  fillVoices()
  setState('idle', credentials.mode === 'token' ? 'Ready (signed in for this session)' : 'Ready')
}

start()
