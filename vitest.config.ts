import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Native addons and timing-sensitive tests are safest in forked processes.
    pool: 'forks',
    testTimeout: 30_000,
  },
})
