/** Peak resident memory of this process, in MiB (the kernel's high-water mark, VmHWM). */
export function peakRssMib(): number {
  return process.resourceUsage().maxRSS / 1024  // maxRSS is in KiB
}
