/**
 * The command line's startup snapshot (`node --build-snapshot`, bundled as
 * dist/bin/svc-tts-snapshot.cjs): what `say` runs is evaluated while the snapshot is built, so a
 * start from it skips loading the modules, building the schemas and the text layer's tables;
 * the command line then runs as the bin's does.
 */
import './snapshot-jitless.js'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import '../engine/create.js'
import { parseRequest } from '../engine/resolve.js'
import '../native.js'
import { planSpeech } from '../text/plan.js'
import './say.js'
import { runCli } from './main.js'

/** Where this bundle was when the snapshot was built: the paths its modules resolved then are this folder's. */
const BUILT_AT = fileURLToPath(import.meta.url)

// A request parsed and a text planned while the snapshot is built: the code they run is then
// compiled in the snapshot, not on a say's first call.
void Promise.all(['flite', 'espeak'].map((backend) => planSpeech('Hello there, it is 10:30 on the 2nd of May.', { language: 'en', backend: backend as 'flite' | 'espeak' })))
parseRequest({ transcript: 'Hello there.', voice: { mode: 'id', id: 'warm-up' }, model_id: 'svc_pro_v1.0' }, 'synthesis')

/** The status the launcher takes as "this snapshot cannot serve the run", as it takes Node's own refusal. */
const SNAPSHOT_REFUSED = 14

v8.startupSnapshot.setDeserializeMainFunction(() => {
  const [, bundle, ...argv] = process.argv
  if (bundle !== undefined && path.resolve(bundle) === BUILT_AT) return runCli(argv)
  // The package has moved since: the launcher removes this snapshot and runs the module bundle.
  process.exit(SNAPSHOT_REFUSED)
})
