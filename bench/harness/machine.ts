/** The machine and software a run was measured on, for the report's header. */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'

export interface MachineInfo {
  cpuModel: string
  cores: number
  memoryGib: number
  node: string
  kernel: string
  espeakNg: string
  flite: string
  /** 1-minute load average: other work on the machine shows up here and in every figure. */
  loadAverage: number
}

function cpuModel(): string {
  const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))
  return match?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown'
}

/** The part of a program's version output that `pattern` captures. */
function versionOf(command: string, args: string[], pattern: RegExp): string {
  const run = spawnSync(command, args, { encoding: 'utf8' })
  return pattern.exec(`${run.stdout ?? ''}\n${run.stderr ?? ''}`)?.[1] ?? 'not found'
}

export function machineInfo(): MachineInfo {
  return {
    cpuModel: cpuModel(),
    cores: os.availableParallelism(),
    memoryGib: os.totalmem() / 2 ** 30,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    espeakNg: versionOf('espeak-ng', ['--version'], /text-to-speech:\s*(\S+)/),
    flite: versionOf('flite', ['--version'], /version:\s*(\S+)/),
    loadAverage: os.loadavg()[0]!,
  }
}
