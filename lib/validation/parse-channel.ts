import diagnostics_channel from 'node:diagnostics_channel'

/** Published with `{ what }` at each parse of outside input: tests and tracing count validations here. */
export const PARSE_CHANNEL = diagnostics_channel.channel('svc-tts:parse')
