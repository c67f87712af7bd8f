/** svc-tts's version, from the package.json three folders up from this module (lib/server/wyoming/ or dist/server/wyoming/). */
import { readFileSync } from 'node:fs'

export const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version
