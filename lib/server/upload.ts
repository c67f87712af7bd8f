/**
 * A multipart form read as it streams in (busboy), to fixed bounds: one file of at most
 * `maxFileBytes`, a few short text fields. The file's bytes are kept once, as they arrive; nothing
 * else of the body is kept, and a form past a bound stops being read at once.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import busboy from 'busboy'
import { TtsError, type ErrorCode } from '../errors.js'

export interface FormBounds {
  /** The one file field's name. */
  file: string
  maxFileBytes: number
  /** What a file past `maxFileBytes` is. */
  tooLarge: ErrorCode
  maxFields: number
  maxFieldBytes: number
}

export interface ReadForm {
  file: Buffer
  fields: Record<string, string>
}

/** Reads the form of `body` (a request's body stream); rejects with a TtsError at the first bound it passes. */
export function readForm(body: Readable, headers: IncomingHttpHeaders, bounds: FormBounds, signal: AbortSignal): Promise<ReadForm> {
  const type = headers['content-type'] ?? ''
  if (!/^multipart\/form-data\b/i.test(type)) {
    return Promise.reject(new TtsError('INVALID_REQUEST', `send multipart/form-data with the file in a field named ${bounds.file}`))
  }
  return new Promise<ReadForm>((resolve, reject) => {
    let form: busboy.Busboy
    try {
      form = busboy({
        headers,
        limits: { files: 1, fileSize: bounds.maxFileBytes, fields: bounds.maxFields, fieldSize: bounds.maxFieldBytes, parts: bounds.maxFields + 1, headerPairs: 16 },
      })
    } catch (cause) {
      reject(new TtsError('INVALID_REQUEST', 'the multipart form has no usable boundary', { cause }))
      return
    }
    const parts: Buffer[] = []
    let fileBytes = 0
    let sawFile = false
    const fields: Record<string, string> = {}
    let settled = false
    const fail = (error: TtsError) => {
      if (settled) return
      settled = true
      body.unpipe(form)
      form.removeAllListeners()
      form.on('error', () => {})
      signal.removeEventListener('abort', onAbort)
      reject(error)
    }
    const onAbort = () => fail(new TtsError('ABORTED', 'the client went away'))
    signal.addEventListener('abort', onAbort, { once: true })
    form.on('file', (name, stream) => {
      if (name !== bounds.file || sawFile) {
        stream.resume()
        fail(new TtsError('INVALID_REQUEST', `the form takes one file, in a field named ${bounds.file}; it sent '${name}'`))
        return
      }
      sawFile = true
      stream.on('data', (part: Buffer) => {
        fileBytes += part.length
        parts.push(part)
      })
      stream.on('limit', () => fail(new TtsError(bounds.tooLarge, `the ${bounds.file} file is larger than ${bounds.maxFileBytes} bytes`)))
    })
    form.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) fail(new TtsError('INVALID_REQUEST', `the form field '${name.slice(0, 40)}' is longer than ${bounds.maxFieldBytes} bytes`))
      else fields[name] = value
    })
    const tooMany = () => fail(new TtsError('INVALID_REQUEST', `the form has more than ${bounds.maxFields} fields and one file`))
    form.on('fieldsLimit', tooMany)
    form.on('filesLimit', tooMany)
    form.on('partsLimit', tooMany)
    form.on('error', (cause: unknown) => fail(new TtsError('INVALID_REQUEST', 'the multipart form could not be read', { cause })))
    form.on('close', () => {
      if (settled) return
      if (!sawFile) return fail(new TtsError('INVALID_REQUEST', `the form has no file in a field named ${bounds.file}`))
      settled = true
      signal.removeEventListener('abort', onAbort)
      resolve({ file: parts.length === 1 ? parts[0]! : Buffer.concat(parts, fileBytes), fields })
    })
    body.on('error', (cause: unknown) => fail(new TtsError('ABORTED', 'the upload broke off', { cause })))
    body.pipe(form)
  })
}
