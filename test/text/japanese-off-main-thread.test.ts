import { describe, expect, it } from 'vitest'
import { firstVoiceOf, testEngine } from '../helpers/engine.js'
import { worstEventLoopLag } from '../helpers/event-loop.js'

describe('Japanese', () => {
  it('builds kuromoji (about 0.5 s of work) without blocking the event loop', async () => {
    const engine = await testEngine()
    const { result, worstLagMs } = await worstEventLoopLag(() =>
      engine.synthesizeWithTimestamps({
        model_id: 'svc_flash_v1.0',
        transcript: '今日は天気がいいので公園に行きます。',
        voice: { mode: 'id', id: firstVoiceOf('ja') },
      }),
    )
    expect(result.alignment.words).toEqual(['今日', 'は', '天気', 'が', 'いい', 'ので', '公園', 'に', '行き', 'ます'])
    expect(worstLagMs).toBeLessThan(150)  // building on the main thread stalled it for ~500 ms
  })
})
