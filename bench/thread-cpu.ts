// CPU time of this process's threads by name (/proc/self/task/*/stat), for telling the main thread's
// work from V8's GC and compiler threads, libuv's pool and worker threads in a process-wide figure.
import { readFileSync, readdirSync } from 'node:fs';

/** ms of CPU per thread name (threads of one name summed); empty off Linux. */
export function threadCpuMs(): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, USER_HZ 100
    const key = tid === String(process.pid) ? 'main' : `${name}:${tid}`;
    out.set(key, (out.get(key) ?? 0) + ms);
  }
  return out;
}

/** What each thread name spent between two readings (ms), largest first, as "name 12.3". */
export function threadCpuDelta(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(', ');
}
