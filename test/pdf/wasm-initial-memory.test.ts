// QuickJS's module asks for the memory its static data and stack need, not the 16 MiB it declares: the
// rewrite on pdf.js's own module and on hand-made ones, what it refuses to touch, and the sandbox's
// thread running on the smaller memory.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptSandbox, type SessionOutcome } from '../../src/pdf/scripts/sandbox.js';
import { planSessions, sessionContext } from '../../src/pdf/scripts/session-plan.js';
import { SMALLER_INITIAL_MEMORY_SOURCE } from '../../src/pdf/scripts/wasm-initial-memory.js';
import { context, steps } from '../helpers/sandbox-session.js';

const PAGE = 65536;
/** The source as the thread runs it. */
const smallerInitialMemory = new Function(`return ${SMALLER_INITIAL_MEMORY_SOURCE}`)() as (
  bytes: Uint8Array,
) => Uint8Array | undefined;

/** pdf.js's QuickJS module, as its sandbox build carries it (base64 in the script). */
function quickJsModule(): Uint8Array {
  const file = createRequire(import.meta.url).resolve('pdfjs-dist/build/pdf.sandbox.mjs');
  const m = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(readFileSync(file, 'latin1'));
  if (!m) throw new Error('no wasm in pdf.sandbox.mjs');
  return new Uint8Array(Buffer.from(m[1], 'base64'));
}

// What this test uses of WebAssembly (the project's TypeScript libraries do not declare it).
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface Descriptor {
  module: string;
  name: string;
  kind: string;
}
interface Wasm {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<{ exports: Record<string, unknown> }>;
  validate(bytes: Uint8Array): boolean;
  Module: { imports(module: object): Descriptor[]; exports(module: object): Omit<Descriptor, 'module'>[] };
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

/** The module instantiated with inert imports (nothing runs: no start section), and its memory. */
async function memoryOf(bytes: Uint8Array): Promise<WasmMemory> {
  const module = await wasm.compile(bytes);
  const imports: Record<string, Record<string, () => number>> = {};
  for (const i of wasm.Module.imports(module)) {
    if (i.kind !== 'function') throw new Error(`unexpected import kind ${i.kind}`);
    (imports[i.module] ??= {})[i.name] = () => 0;
  }
  const instance = await wasm.instantiate(module, imports);
  const memory = wasm.Module.exports(module).find((e) => e.kind === 'memory');
  return instance.exports[memory!.name] as WasmMemory;
}

const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const section = (id: number, body: number[]) => [id, ...leb(body.length), ...body];
/** `i32.const n; end`, n as signed LEB128 */
const i32 = (n: number) => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [0x41, ...out, b, 0x0b];
    out.push(b | 0x80);
  }
};
/**
 * A module with one memory (initial pages, optional maximum), an exported memory, globals and data; with
 * `start`, a function that does nothing run as its start function.
 */
function module(opts: {
  initial: number;
  maximum?: number;
  globals?: [type: number, mutable: number, init: number[]][];
  data?: [offset: number, bytes: number[]][];
  importMemory?: boolean;
  start?: boolean;
}): Uint8Array {
  const limits =
    opts.maximum === undefined ? [0, ...leb(opts.initial)] : [1, ...leb(opts.initial), ...leb(opts.maximum)];
  const name = [...leb(1), 0x6d];
  const parts = [0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0];
  if (opts.start) parts.push(...section(1, [1, 0x60, 0, 0]), ...section(3, [1, 0])); // () -> ()
  if (opts.importMemory) parts.push(...section(2, [1, ...leb(1), 0x65, ...name, 0x02, ...limits]));
  else parts.push(...section(5, [1, ...limits]));
  if (opts.globals)
    parts.push(
      ...section(6, [...leb(opts.globals.length), ...opts.globals.flatMap(([t, m, init]) => [t, m, ...init])]),
    );
  parts.push(...section(7, [1, ...name, 0x02, 0])); // export "m": memory 0
  if (opts.start) parts.push(...section(8, [0]), ...section(10, [1, 2, 0, 0x0b]));
  if (opts.data)
    parts.push(
      ...section(11, [
        ...leb(opts.data.length),
        ...opts.data.flatMap(([offset, bytes]) => [0, ...i32(offset), ...leb(bytes.length), ...bytes]),
      ]),
    );
  return new Uint8Array(parts);
}

describe('smallerInitialMemory', () => {
  it("cuts pdf.js's QuickJS module to a few pages, a valid module keeping its maximum and its data", async () => {
    const original = quickJsModule();
    const smaller = smallerInitialMemory(original)!;
    expect(smaller).toBeDefined();
    expect(wasm.validate(smaller)).toBe(true);
    const [before, after] = [await memoryOf(original), await memoryOf(smaller)];
    expect(before.buffer.byteLength).toBe(16 * 1024 * 1024);
    expect(after.buffer.byteLength).toBeLessThanOrEqual(1024 * 1024);
    // the static data is where it was, byte for byte
    const n = after.buffer.byteLength;
    expect(Buffer.compare(new Uint8Array(before.buffer, 0, n), new Uint8Array(after.buffer, 0, n))).toBe(0);
    // and the memory still grows (QuickJS allocates through emscripten's sbrk, which grows it)
    after.grow(256);
    expect(after.buffer.byteLength).toBe(n + 256 * PAGE);
  });

  it('keeps room for the data segments and the stack the globals point at, plus a page', async () => {
    const bytes = module({
      initial: 100,
      maximum: 200,
      globals: [
        [0x7f, 1, i32(5 * PAGE + 16)], // a stack pointer in page 6
        [0x7f, 0, i32(90 * PAGE)], // a constant, not a pointer the memory must hold
        [0x7f, 1, i32(-1)], // a mutable one that is no address
      ],
      data: [[2 * PAGE, [1, 2, 3]]],
    });
    const smaller = smallerInitialMemory(bytes)!;
    expect((await memoryOf(smaller)).buffer.byteLength).toBe(7 * PAGE);
    const withData = module({
      initial: 100,
      globals: [[0x7f, 1, i32(20 * PAGE + 8)]],
      data: [[20 * PAGE - 2, [9, 8, 7, 6]]],
    });
    const memory = await memoryOf(smallerInitialMemory(withData)!);
    expect(memory.buffer.byteLength).toBe(22 * PAGE);
    expect([...new Uint8Array(memory.buffer, 20 * PAGE - 2, 4)]).toEqual([9, 8, 7, 6]);
  });

  it('leaves alone what it cannot read or would not make smaller', async () => {
    expect(smallerInitialMemory(new Uint8Array([1, 2, 3]))).toBeUndefined();
    expect(smallerInitialMemory(new Uint8Array(Buffer.from('not a wasm module at all')))).toBeUndefined();
    const stack = (at: number): [number, number, number[]] => [0x7f, 1, i32(at)];
    const data: [number, number[]][] = [[1024, [1]]];
    expect(smallerInitialMemory(module({ initial: 100, globals: [stack(PAGE + 8)], data }))).toBeDefined();
    // already as small as it may be
    expect(smallerInitialMemory(module({ initial: 2, globals: [stack(PAGE + 8)], data }))).toBeUndefined();
    // a memory that may not grow: QuickJS could not allocate past what is cut
    expect(smallerInitialMemory(module({ initial: 10, maximum: 10, globals: [stack(PAGE)], data }))).toBeUndefined();
    // a stack laid out first, the data above it: zeroed data past the last segment would be cut off
    const stackFirst = module({ initial: 100, globals: [stack(PAGE)], data: [[PAGE, [1, 2]]] });
    expect(smallerInitialMemory(stackFirst)).toBeUndefined();
    // no data segment, no stack pointer: nothing says what it needs
    expect(smallerInitialMemory(module({ initial: 100, globals: [stack(PAGE)] }))).toBeUndefined();
    expect(smallerInitialMemory(module({ initial: 100, data }))).toBeUndefined();
    // a start function: a module whose try failed must not have run code before it is instantiated again
    expect(smallerInitialMemory(module({ initial: 100, globals: [stack(PAGE)], data, start: true }))).toBeUndefined();
    expect(await memoryOf(module({ initial: 100, globals: [stack(PAGE)], data, start: true }))).toBeDefined();
    // no memory section (an imported memory): nothing to rewrite
    const imported = module({ initial: 100, importMemory: true, globals: [stack(PAGE)], data });
    expect(smallerInitialMemory(imported)).toBeUndefined();
    const cut = quickJsModule();
    expect(smallerInitialMemory(cut.subarray(0, cut.length >> 1))).toBeUndefined(); // truncated
  });
});

describe('the sandbox thread on the smaller memory', () => {
  const sandboxes: ScriptSandbox[] = [];
  afterEach(async () => {
    await Promise.all(sandboxes.splice(0).map((s) => s.close()));
  });

  it('runs a session in well under the 16 MiB the module declares', async () => {
    const sandbox = new ScriptSandbox();
    sandboxes.push(sandbox);
    const outcome = await sandbox.run(context, steps);
    expect(outcome.ended).toBe('done');
    const done = outcome.messages.at(-1) as { type: string; memoryBytes?: number };
    expect(done.type).toBe('done');
    expect(done.memoryBytes).toBeLessThan(4 * 1024 * 1024);
    // and the scripts ran: the calculation sent the field's value
    expect(outcome.messages.filter((m) => m.type === 'send')).not.toEqual([]);
  });

  it("puts each form's pristine context back after a session that grew the memory", async () => {
    // a form whose calculation allocates ~100,000 strings (the memory grows past its snapshot) and leaves
    // a global behind, which the next session of it must not see
    const plan = planSessions({
      fields: [
        {
          name: 'n',
          kind: 'text',
          value: '',
          readOnly: false,
          actions: {
            Calculate:
              'var a = []; for (var i = 0; i < 100000; i++) a.push("x" + i); event.value = (typeof leftover) + ":" + a.length; leftover = a;',
          },
        },
      ],
      calculationOrder: ['n'],
      documentScripts: [],
    });
    const growing = sessionContext(plan, new Map());
    const sent = (o: SessionOutcome) => JSON.stringify(o.messages.filter((m) => m.type === 'send'));
    const memory = (o: SessionOutcome) => (o.messages.at(-1) as { memoryBytes: number }).memoryBytes;
    const sandbox = new ScriptSandbox();
    sandboxes.push(sandbox);
    const small = await sandbox.run(context, steps);
    const big = await sandbox.run(growing, steps);
    expect(memory(big)).toBeGreaterThan(memory(small));
    expect(sent(big)).toContain('undefined:100000');
    // each form again, after the other: the same answers, nothing left over
    expect(sent(await sandbox.run(context, steps))).toBe(sent(small));
    expect(sent(await sandbox.run(growing, steps))).toBe(sent(big));
    expect(sent(await sandbox.run(context, steps))).toBe(sent(small));
  });
});
