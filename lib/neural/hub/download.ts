/**
 * One file from the hub onto disk: streamed (never held whole), resumed from what an interrupted
 * download left (HTTP Range), redirects followed by hand so the hub's own headers for large files
 * (`x-linked-etag`, the SHA-256; `x-linked-size`; `x-repo-commit`) are read before the CDN answers,
 * and checked against its published digests. A file that fails its check is deleted; one cut by the
 * network or an abort stays for the next try to resume.
 */
import { createHash, type Hash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { open as openFile, stat, truncate, unlink, type FileHandle } from 'node:fs/promises'
import { TtsError } from '../../errors.js'
import { hubHeaders, networkError, responseError, type Hub } from './hub.js'

export interface ExpectedFile {
  size?: number
  md5?: string
  sha256?: string
}

export interface DownloadRequest {
  hub: Hub
  url: string
  /** Where the bytes go; what is there already is taken as the start of the file. */
  file: string
  expected: ExpectedFile
  signal?: AbortSignal
  /** Bytes of this file on disk so far, and its size where known. */
  onBytes?: (bytes: number, total: number | undefined) => void
}

export interface DownloadedFile {
  size: number
  md5: string
  sha256: string
  /** Bytes this call fetched (less than `size` after a resume). */
  fetched: number
  /** The repository commit the hub served it from, where it said. */
  commit?: string
}

const MAX_REDIRECTS = 10
const REDIRECTS = new Set([301, 302, 303, 307, 308])

interface Linked {
  sha256?: string
  size?: number
  commit?: string
}

/** The hub quotes ETags ("…" or W/"…"); an LFS file's x-linked-etag is its SHA-256. */
function unquote(etag: string): string {
  return etag.replace(/^W\//, '').replace(/^"|"$/g, '')
}

function readLinked(headers: Headers, linked: Linked): void {
  const etag = headers.get('x-linked-etag')
  if (etag && linked.sha256 === undefined && /^[0-9a-f]{64}$/.test(unquote(etag))) linked.sha256 = unquote(etag)
  const size = Number(headers.get('x-linked-size') ?? NaN)
  if (Number.isInteger(size) && linked.size === undefined) linked.size = size
  const commit = headers.get('x-repo-commit')
  if (commit && linked.commit === undefined) linked.commit = commit
}

export function fileSystemError(file: string, cause: unknown): TtsError {
  const code = (cause as NodeJS.ErrnoException | null)?.code
  if (code === 'ENOSPC' || code === 'EDQUOT') return new TtsError('STORAGE_FULL', `the disk is full writing ${file}`, { cause })
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return new TtsError('IO_FAILED', `cannot write ${file}: the directory is read-only`, { cause })
  return new TtsError('IO_FAILED', `cannot write ${file}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
}

async function sizeOnDisk(file: string): Promise<number> {
  try {
    return (await stat(file)).size
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return 0
    throw fileSystemError(file, cause)
  }
}

/** Hashes what is already on disk, so a resumed file is checked whole. */
async function hashesOf(file: string, bytes: number): Promise<{ md5: Hash; sha256: Hash }> {
  const md5 = createHash('md5')
  const sha256 = createHash('sha256')
  if (bytes > 0) {
    for await (const chunk of createReadStream(file, { start: 0, end: bytes - 1 })) {
      md5.update(chunk as Buffer)
      sha256.update(chunk as Buffer)
    }
  }
  return { md5, sha256 }
}

async function open(hub: Hub, url: string, from: number, signal: AbortSignal | undefined): Promise<{ response: Response; linked: Linked; at: string }> {
  const linked: Linked = {}
  let at = url
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const headers = { ...hubHeaders(hub, at), ...(from > 0 && { range: `bytes=${from}-` }) }
    const response = await fetch(at, { headers, redirect: 'manual', ...(signal && { signal }) })
    readLinked(response.headers, linked)
    if (!REDIRECTS.has(response.status)) return { response, linked, at }
    await response.body?.cancel()
    const location = response.headers.get('location')
    if (!location) throw new TtsError('DOWNLOAD_FAILED', `${at} redirected (HTTP ${response.status}) without a location`)
    at = new URL(location, at).href
  }
  throw new TtsError('DOWNLOAD_FAILED', `${url} redirected more than ${MAX_REDIRECTS} times`)
}

async function discard(file: string): Promise<void> {
  await unlink(file).catch(() => {})
}

/** What differs between a file and what was published of it, or undefined. */
function mismatchOf(got: Required<ExpectedFile>, published: ExpectedFile): string | undefined {
  if (published.size !== undefined && got.size !== published.size) return `size ${got.size}, expected ${published.size}`
  if (published.md5 !== undefined && got.md5 !== published.md5.toLowerCase()) return `MD5 ${got.md5}, expected ${published.md5}`
  if (published.sha256 !== undefined && got.sha256 !== published.sha256.toLowerCase()) return `SHA-256 ${got.sha256}, expected ${published.sha256}`
  return undefined
}

export async function downloadFile(request: DownloadRequest): Promise<DownloadedFile> {
  const { hub, url, file, expected, signal } = request
  let onDisk = await sizeOnDisk(file)
  if (expected.size !== undefined && onDisk > expected.size) {
    await discard(file)
    onDisk = 0
  }
  let linked: Linked = {}
  let fetched = 0
  let hashes = await hashesOf(file, onDisk)
  const complete = expected.size !== undefined && onDisk === expected.size && (expected.md5 ?? expected.sha256) !== undefined
  if (!complete) {
    let opened: Awaited<ReturnType<typeof open>>
    try {
      opened = await open(hub, url, onDisk, signal)
    } catch (cause) {
      if (signal?.aborted) throw new TtsError('ABORTED', `downloading ${url} was aborted`, { cause })
      throw networkError(url, cause)
    }
    const { response, at } = opened
    linked = opened.linked
    const total = expected.size ?? linked.size
    if (response.status === 416 && onDisk > 0 && (total === undefined || onDisk === total)) {
      await response.body?.cancel()  // nothing left to fetch: the file is whole
    } else {
      if (!response.ok || !response.body) {
        await response.body?.cancel()
        throw responseError(at, response.status)
      }
      if (response.status === 206) {
        const start = /^bytes (\d+)-/.exec(response.headers.get('content-range') ?? '')?.[1]
        if (Number(start) !== onDisk) {
          await response.body.cancel()
          throw new TtsError('DOWNLOAD_FAILED', `${at} answered a range from ${start ?? 'nowhere'}, not from byte ${onDisk}`)
        }
      } else if (onDisk > 0) {
        // The server ignored the range: the whole file comes again, so start the file again.
        await truncate(file, 0).catch((cause: unknown) => { throw fileSystemError(file, cause) })
        onDisk = 0
        hashes = await hashesOf(file, 0)
      }
      // Each chunk is written before the next is read: what arrived before a cut is on disk to resume from.
      let handle: FileHandle
      try {
        handle = await openFile(file, onDisk > 0 ? 'a' : 'w')
      } catch (cause) {
        await response.body.cancel()
        throw fileSystemError(file, cause)
      }
      let bytes = onDisk
      try {
        for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
          try {
            await handle.write(chunk)
          } catch (cause) {
            throw fileSystemError(file, cause)
          }
          hashes.md5.update(chunk)
          hashes.sha256.update(chunk)
          bytes += chunk.length
          fetched += chunk.length
          request.onBytes?.(bytes, total)
        }
      } catch (cause) {
        if (cause instanceof TtsError) throw cause
        if (signal?.aborted) throw new TtsError('ABORTED', `downloading ${url} was aborted`, { cause })
        throw networkError(url, cause)
      } finally {
        await handle.close()
      }
      onDisk = bytes
    }
  }
  const size = onDisk
  const md5 = hashes.md5.digest('hex')
  const sha256 = hashes.sha256.digest('hex')
  const wanted = expected.size ?? linked.size
  if (wanted !== undefined && size < wanted) throw new TtsError('DOWNLOAD_FAILED', `${url} ended after ${size} of ${wanted} bytes`)
  const mismatch = mismatchOf({ size, md5, sha256 }, { ...expected, ...(wanted !== undefined && { size: wanted }), ...((expected.sha256 ?? linked.sha256) !== undefined && { sha256: expected.sha256 ?? linked.sha256 }) })
  if (mismatch) {
    await discard(file)
    throw new TtsError('CHECKSUM_MISMATCH', `${url}: ${mismatch}; the file was deleted`)
  }
  return { size, md5, sha256, fetched, ...(linked.commit !== undefined && { commit: linked.commit }) }
}
