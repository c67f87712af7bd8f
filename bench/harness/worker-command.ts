/** How the studies start a worker of bench/workers: Node as this process runs, pinned where asked. */
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The first `cpus` CPUs, as taskset names them. */
export const cpuList = (cpus: number) => `0-${cpus - 1}`

/**
 * The command line for bench/workers/`name`, in whatever form this code runs (TypeScript under
 * tsx, or bundled beside its workers), with Node's options `nodeOptions`; on the first `cpus` CPUs
 * when given (taskset runs Node in its place, so an IPC channel is inherited); from the checkout at
 * `root` when given (another commit's, to compare with).
 */
export function workerCommand(name: string, options: { cpus?: number | undefined; nodeOptions?: readonly string[]; root?: string | undefined } = {}): [string, ...string[]] {
  const fileName = `${name}${path.extname(fileURLToPath(import.meta.url))}`
  const file = options.root ? path.join(options.root, 'bench/workers', fileName) : fileURLToPath(new URL(`../workers/${fileName}`, import.meta.url))
  const node: [string, ...string[]] = [process.execPath, ...process.execArgv, ...(options.nodeOptions ?? []), file]
  return options.cpus ? ['taskset', '-c', cpuList(options.cpus), ...node] : node
}
