import { TtsError } from '../errors.js'

export const SUPPORTED_VERSIONS = ['v1'] as const
export const CURRENT_VERSION = 'v1'

/**
 * The API version a request asks for. Where the SPEC requires it (status check, WebSocket
 * handshake) a missing one is a bad request; elsewhere it defaults to the current version.
 */
export function resolveVersion(value: string | undefined, required: boolean): string {
  if (value === undefined || value === '') {
    if (required) throw new TtsError('INVALID_REQUEST', `the 'version' header is required (supported: ${SUPPORTED_VERSIONS.join(', ')})`)
    return CURRENT_VERSION
  }
  if (!(SUPPORTED_VERSIONS as readonly string[]).includes(value)) {
    throw new TtsError('VERSION_NOT_FOUND', `version '${value}' is not supported (supported: ${SUPPORTED_VERSIONS.join(', ')})`)
  }
  return value
}
