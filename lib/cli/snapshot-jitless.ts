/**
 * The startup snapshot's zod compiles no parsers: imported by lib/cli/snapshot.ts before any
 * schema is made (zod reads the setting as each object schema is built). A compiled parser is made
 * with `new Function` at a schema's first parse, in each process, and `say` parses a handful of
 * objects once: compiling the engine's options, the request's and a voice's rendering cost it
 * about 3 ms, more than their parsing. The module bundle (`serve` and the rest) keeps them compiled.
 */
import * as z from 'zod'

z.config({ jitless: true })
