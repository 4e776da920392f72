// Named calls answered by a bench child process over IPC (client-child.ts, fairness-child.ts): the child
// serves a table of async functions; the parent forks it and gets one promise per call.
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What a child serves: for each call's name, its arguments and its result. */
type CallTable<C> = { [K in keyof C]: { args: unknown; result: unknown } };
interface RpcRequest {
  id: number;
  kind: string;
  args: unknown;
}
type RpcAnswer = { id: number; value: unknown } | { id: number; error: string };

export interface RpcChild<Calls extends CallTable<Calls>> {
  /** the child's pid: not the server's, so left out of the RSS samples */
  pid: number;
  call<K extends keyof Calls & string>(kind: K, args: Calls[K]['args']): Promise<Calls[K]['result']>;
  close(): void;
}

// Compiled (npm run bench) the children are plain JavaScript; run from sources they need tsx.
export function childScript(name: string): { file: string; execArgv: string[] } {
  const js = fileURLToPath(new URL(`./${name}.js`, import.meta.url));
  return existsSync(js)
    ? { file: js, execArgv: [] }
    : { file: fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), execArgv: ['--import', 'tsx'] };
}

/** The child's side: answers each request with its function's result or error message. */
export function serveCalls<Calls extends CallTable<Calls>>(
  calls: {
    [K in keyof Calls]: (args: Calls[K]['args']) => Promise<Calls[K]['result']>;
  },
): void {
  process.on('message', (req: RpcRequest) => {
    const run = calls[req.kind as keyof Calls] as (args: unknown) => Promise<unknown>;
    run(req.args).then(
      (value) => process.send!({ id: req.id, value } satisfies RpcAnswer),
      (err: unknown) =>
        process.send!({ id: req.id, error: err instanceof Error ? err.message : String(err) } satisfies RpcAnswer),
    );
  });
}

/**
 * The parent's side: forks bench/`name` (with `nodeFlags` besides the loader's) and sends it calls; a
 * child that exits fails what it owed. Messages use structured clone, so byte arrays arrive as such.
 */
export async function forkRpc<Calls extends CallTable<Calls>>(
  name: string,
  nodeFlags: string[] = [],
): Promise<RpcChild<Calls>> {
  const { file, execArgv } = childScript(name);
  const child = fork(file, [], {
    execArgv: [...execArgv, ...nodeFlags],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let nextId = 1;
  child.on('message', (answer: RpcAnswer) => {
    const p = pending.get(answer.id);
    pending.delete(answer.id);
    if ('error' in answer) p?.reject(new Error(answer.error));
    else p?.resolve(answer.value);
  });
  child.once('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`${name} exited with ${code}`));
    pending.clear();
  });
  return {
    pid: child.pid!,
    call(kind, args) {
      const request: RpcRequest = { id: nextId++, kind, args };
      return new Promise((resolve, reject) => {
        pending.set(request.id, { resolve: resolve as (v: unknown) => void, reject });
        child.send(request);
      });
    },
    close: () => child.kill(),
  };
}
