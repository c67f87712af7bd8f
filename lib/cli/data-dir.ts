/** Where the commands find their data: the data directory and the shared database's URL. */
import { homedir } from 'node:os'
import path from 'node:path'

/** The environment variable `serve` and `keys` read the shared database's URL from when --database-url is not given. */
export const DATABASE_URL_ENV = 'SVC_TTS_DATABASE_URL'

/** Where `serve` and `keys` keep their data: --data-dir, else SVC_TTS_DATA_DIR, else ~/.svc-tts. */
export function defaultDataDir(): string {
  return process.env.SVC_TTS_DATA_DIR ?? path.join(homedir(), '.svc-tts')
}
