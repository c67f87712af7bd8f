/** Opens the voice library's file at a given moment (to line several processes up), and prints `ok` or the error's code. */
import { SqliteVoiceStore } from '../../lib/voices/sqlite-store.js'

const [file, at] = [process.argv[2]!, Number(process.argv[3])]
while (Date.now() < at) { /* a busy wait: a timer would start the processes milliseconds apart */ }
try {
  await new SqliteVoiceStore(file).close()
  process.stdout.write('ok\n')
} catch (error) {
  process.stdout.write(`${(error as { code?: string }).code ?? String(error)}\n`)
}
