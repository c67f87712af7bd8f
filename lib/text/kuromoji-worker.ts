/**
 * kuromoji in a worker thread: building its tokenizer is about 0.5 s of synchronous work and
 * 300 MB, and the event loop must never wait on it. One worker per process, started on the
 * first Japanese request, unreferenced so it never keeps the process alive.
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { abortable } from '../errors.js'
import { MAX_TEXT_PIECE_CHARS } from './bounds.js'

/** The part of a kuromoji token we use (kuromoji ships no types). */
export interface KuromojiToken {
  surface_form: string
  /** 1-based UTF-16 position in the tokenized text. */
  word_position: number
  pronunciation?: string
}

// Plain CommonJS, evaluated in the worker: it needs no TypeScript loader in any environment.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const kuromoji = require(workerData.modulePath)
kuromoji.builder({ dicPath: workerData.dicPath }).build((error, tokenizer) => {
  if (error) { parentPort.postMessage({ fatal: String(error && error.message || error) }); return }
  parentPort.on('message', ({ id, texts }) => {
    try {
      const tokens = texts.map((text) => tokenizer.tokenize(text).map((t) => ({
        surface_form: t.surface_form, word_position: t.word_position, pronunciation: t.pronunciation,
      })))
      parentPort.postMessage({ id, tokens })
    } catch (e) {
      parentPort.postMessage({ id, error: String(e && e.message || e) })
    }
  })
  parentPort.postMessage({ ready: true })
})
`

type Reply = { ready: true } | { fatal: string } | { id: number; tokens: KuromojiToken[][] } | { id: number; error: string }

interface Pending {
  resolve: (tokens: KuromojiToken[][]) => void
  reject: (error: Error) => void
}

class KuromojiWorker {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private nextId = 0
  private callers = 0
  readonly ready: Promise<void>

  constructor() {
    const require = createRequire(import.meta.url)
    const packageJson = require.resolve('kuromoji/package.json')
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // The source is CommonJS and needs none of the parent's flags (--input-type=module would break it).
      execArgv: [],
      workerData: { modulePath: require.resolve('kuromoji'), dicPath: path.join(path.dirname(packageJson), 'dict') },
    })
    this.worker.unref()
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (reply: Reply) => {
        if ('ready' in reply) return resolve()
        if ('fatal' in reply) return reject(new Error(`kuromoji failed to build: ${reply.fatal}`))
        const waiting = this.pending.get(reply.id)
        this.pending.delete(reply.id)
        if ('error' in reply) waiting?.reject(new Error(reply.error))
        else waiting?.resolve(reply.tokens)
      })
      this.worker.on('error', (error) => {
        reject(error)
        this.failAll(error)
      })
      this.worker.on('exit', () => this.failAll(new Error('the kuromoji worker exited')))
    })
  }

  /**
   * One message per batch of at most MAX_TEXT_PIECE_CHARS characters, the next sent only when the
   * last is answered: another request's texts get their turn in between, and an abort rejects
   * at once (the worker's late answer is dropped).
   */
  async tokenize(texts: string[], signal?: AbortSignal): Promise<KuromojiToken[][]> {
    // While a caller awaits (the build included), the worker keeps the process alive.
    if (this.callers++ === 0) this.worker.ref()
    try {
      await abortable(this.ready, signal)
      const tokens: KuromojiToken[][] = []
      for (const batch of batches(texts)) tokens.push(...(await this.request(batch, signal)))
      return tokens
    } finally {
      if (--this.callers === 0) this.worker.unref()
    }
  }

  private request(texts: string[], signal: AbortSignal | undefined): Promise<KuromojiToken[][]> {
    const id = this.nextId++
    const reply = new Promise<KuromojiToken[][]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.worker.postMessage({ id, texts })
    })
    return abortable(reply, signal).finally(() => this.pending.delete(id))
  }

  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error)
    this.pending.clear()
    worker = undefined  // the next request starts a fresh worker
  }
}

/** Groups texts (each already bounded by bounds.ts) into batches of at most MAX_TEXT_PIECE_CHARS characters. */
function batches(texts: string[]): string[][] {
  const result: string[][] = []
  let chars = Infinity
  for (const text of texts) {
    if (chars + text.length > MAX_TEXT_PIECE_CHARS) {
      result.push([])
      chars = 0
    }
    result[result.length - 1]!.push(text)
    chars += text.length
  }
  return result
}

let worker: KuromojiWorker | undefined

/** Tokenizes each text with kuromoji, off the main thread; `signal` stops it between batches, and rejects at once. */
export async function tokenizeJapanese(texts: string[], signal?: AbortSignal): Promise<KuromojiToken[][]> {
  worker ??= new KuromojiWorker()
  return worker.tokenize(texts, signal)
}
