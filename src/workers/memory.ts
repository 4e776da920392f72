import { readFileSync } from 'node:fs';

/**
 * Resident set size of another process in MiB, read from /proc (Linux: containers, servers), or
 * undefined where there is no /proc. Reading it from outside works while the process is stuck in
 * synchronous code, which no sampler inside the process can do. About 20 µs per read.
 */
export function rssMb(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}
