// The bar `svc-tts models pull` draws on a terminal.
import { describe, expect, it } from 'vitest'
import { renderPull } from '../../../lib/cli/pull-progress.js'

const progress = (bytes: number, size: number) => ({ name: 'en_US-lessac-medium', file: 'en_US-lessac-medium.onnx', fileBytes: bytes, fileSize: size, bytes, size })

describe('the pull bar', () => {
  it('shows the share pulled and the megabytes, in the columns given', () => {
    expect(renderPull(progress(31_600_647, 63_201_294), 100)).toBe('en_US-lessac-medium [==============>               ]  50%  31.6 MB of 63.2 MB')
    expect(renderPull(progress(63_201_294, 63_201_294), 100)).toBe(`en_US-lessac-medium [${'='.repeat(30)}] 100%  63.2 MB of 63.2 MB`)
    expect(renderPull(progress(0, 63_201_294), 100)).toBe(`en_US-lessac-medium [${' '.repeat(30)}]   0%  0.0 MB of 63.2 MB`)
  })

  it('drops the bar, then cuts the line, on a narrow terminal', () => {
    expect(renderPull(progress(31_600_647, 63_201_294), 50)).toBe('en_US-lessac-medium  50%  31.6 MB of 63.2 MB')
    expect(renderPull(progress(31_600_647, 63_201_294), 30)).toHaveLength(29)
  })
})
