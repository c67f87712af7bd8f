import { tmpdir } from 'node:os'
import path from 'node:path'
import { defineConfig } from 'vitest/config'

// Two projects: `unit` never loads the native addon (a test that tries fails to find it), so it
// runs in seconds without a build; `native` is everything else. A unit test is named *.unit.test.ts.
export default defineConfig({
  test: {
    // Native addons and timing-sensitive tests are safest in forked processes.
    pool: 'forks',
    testTimeout: 30_000,
    // A server's graceful close may take its default 10 s deadline plus the 1 s grace that cuts what is left.
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.unit.test.ts'],
          env: { SVC_TTS_NATIVE_BINDING: '/nonexistent/the-unit-project-runs-without-the-addon.node' },
        },
      },
      {
        extends: true,
        test: {
          name: 'native',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts'],
          // The packs' load cache of a run is its own, not the user's ~/.cache (docs/neural-packs.md).
          env: { SVC_TTS_CACHE_DIR: path.join(tmpdir(), `svc-tts-test-cache-${process.pid}`) },
        },
      },
    ],
  },
})
