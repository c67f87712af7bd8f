// The service's HTTP operations the page uses: the models, the voice library, clone and delete.

const PAGE_SIZE = 100

export class Api {
  #credentials

  constructor(credentials) {
    this.#credentials = credentials
  }

  /** [{ id, description, languages }] */
  async models() {
    const response = await this.#credentials.fetch('playground/models')
    return (await response.json()).models
  }

  /** Every voice of the library, page after page. */
  async voices() {
    const voices = []
    let cursor
    do {
      const response = await this.#credentials.fetch('voices', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ limit: PAGE_SIZE, ...(cursor && { cursor }) }),
      })
      const page = await response.json()
      voices.push(...page.voices)
      cursor = page.next_cursor
    } while (cursor)
    return voices
  }

  /** Clones a voice from a sample (a File or Blob); resolves to the new voice record. */
  async clone(sample, { name, language, description }) {
    const form = new FormData()
    form.append('name', name)
    form.append('language', language)
    if (description) form.append('description', description)
    form.append('clip', sample, sample.name ?? 'recording.wav')
    const response = await this.#credentials.fetch('voices/clone', { method: 'POST', body: form })
    return response.json()
  }

  async deleteVoice(voiceId) {
    await this.#credentials.fetch(`voices/${encodeURIComponent(voiceId)}`, { method: 'DELETE' })
  }
}
