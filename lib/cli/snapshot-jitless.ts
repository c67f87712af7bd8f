/**
 * The startup snapshot's zod compiles no parsers: imported by lib/cli/snapshot.ts before any
 * schema is made (zod reads the setting as each object schema is built). A compiled parser is made
 * with `new Function` at a schema's first parse, in each process, and `say` parses a handful of
 * objects once: compiling the parsers of the engine's options, the request and a voice's rendering
 * took 2.4-2.9 ms of its CPU profiles, more than the parsing. The module bundle (`serve` and the
 * rest) keeps them compiled.
 */
import * as z from 'zod'

z.config({ jitless: true })
