/** Debian's Chromium driven by playwright-core, headless, offline-quiet, with fake media devices. */
import { chromium, type Browser, type Page } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'

/** `extraArgs`: e.g. `--use-file-for-fake-audio-capture=<wav>`, what the fake microphone hears. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      // Without these Chromium keeps calling Google's services, on a network that has none.
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      '--autoplay-policy=no-user-gesture-required',
      ...extraArgs,
    ],
  })
}

/** What a page logged as an error, and what it threw; `allowed` says which logged errors are expected. */
export function collectErrors(page: Page, allowed: (text: string, url: string) => boolean = () => false): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' && !allowed(message.text(), message.location().url)) errors.push(`console: ${message.text()} (${message.location().url})`)
  })
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`))
  return errors
}
