// pdf.js's QuickJS module declares 16 MiB of initial memory, of which a form's context uses ~1 MB. The
// sandbox's thread finds the end of QuickJS's state by reading the memory from its top down (a snapshot
// keeps only what is in use): 6.7 ms for 16 MiB of untouched memory against 0.2 ms for what is used, and
// on a kernel without a shared zero page each 4 KiB page read becomes resident, 16 MB per render worker
// (docs/performance.md, Sessions 12 and 26). So the thread gives the module the memory its static data
// and stack need; QuickJS then grows it through emscripten's sbrk as it allocates (as it already did for
// a large form), under the thread's memory budget.
//
// JavaScript source, not a TypeScript function: the thread receives it as text (sandbox-thread.ts), and a
// compiled function's text may call helpers its compiler put outside it (esbuild's `__name` under tsx).
// test/pdf/wasm-initial-memory.test.ts runs this same text.

/**
 * `smallerInitialMemory(bytes)`: `bytes` (a WebAssembly module) with its one memory's initial size cut to
 * the largest address its mutable i32 globals start at (emscripten's stack pointer, the top of a stack
 * laid out after all static data, zeroed data included), plus a page; undefined (the caller then
 * instantiates it unchanged) when it is not laid out so: no active data segment, a data segment above
 * that address (a stack laid out first: zeroed data after the segments would be cut off), a memory
 * whose maximum forbids growth, a start function (a failed try must not have run code), an initializer
 * or segment kind it does not read, or nothing to gain.
 */
export const SMALLER_INITIAL_MEMORY_SOURCE = `function smallerInitialMemory(bytes) {
  const PAGE = 65536;
  // unsigned LEB128 at \`at\`: [value, next]
  const u32 = (at) => {
    let value = 0;
    for (let i = at, shift = 0; i < bytes.length && shift < 35; i++, shift += 7) {
      value += (bytes[i] & 0x7f) * 2 ** shift;
      if ((bytes[i] & 0x80) === 0) return [value, i + 1];
    }
    throw new Error('bad LEB128');
  };
  const leb = (n) => {
    const out = [];
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      out.push(b);
    } while (n > 0);
    return out;
  };
  // an \`i32.const N; end\` initializer (globals, active data segments): [N (signed LEB128), next]
  const i32Const = (at) => {
    if (bytes[at] !== 0x41) return undefined;
    let value = 0;
    let shift = 0;
    let i = at + 1;
    for (; ; i++, shift += 7) {
      if (i >= bytes.length || shift > 28) return undefined;
      value += (bytes[i] & 0x7f) * 2 ** shift;
      if ((bytes[i] & 0x80) === 0) break;
    }
    if (bytes[i] & 0x40) value -= 2 ** (shift + 7);
    return bytes[i + 1] === 0x0b ? [value, i + 2] : undefined;
  };
  try {
    if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return undefined;
    let memory;
    let stackTop = 0;
    let dataEnd = 0;
    for (let at = 8; at < bytes.length; ) {
      const id = bytes[at];
      const [size, body] = u32(at + 1);
      const end = body + size;
      if (end > bytes.length) return undefined; // cut short
      if (id === 5) memory = { start: at, body, end };
      if (id === 8) return undefined; // a start function
      if (id === 6) {
        // globals: a mutable i32 may be the stack pointer, whose start the memory must hold
        let [count, p] = u32(body);
        for (; count > 0; count--) {
          const type = bytes[p];
          const mutable = bytes[p + 1];
          const init = i32Const(p + 2);
          if (!init) return undefined;
          if (type === 0x7f && mutable === 1) stackTop = Math.max(stackTop, init[0]);
          p = init[1];
        }
      }
      if (id === 11) {
        // data: every active segment (of memory 0) must fit; passive ones are copied in later by code
        let [count, p] = u32(body);
        for (; count > 0; count--) {
          const kind = bytes[p];
          if (kind === 1) {
            const [length, data] = u32(p + 1);
            p = data + length;
            continue;
          }
          if (kind !== 0) return undefined;
          const offset = i32Const(p + 1);
          if (!offset || offset[0] < 0) return undefined;
          const [length, data] = u32(offset[1]);
          dataEnd = Math.max(dataEnd, offset[0] + length);
          p = data + length;
        }
      }
      at = end;
    }
    if (!memory || dataEnd === 0 || stackTop < dataEnd) return undefined;
    const [count, entry] = u32(memory.body);
    const flags = bytes[entry];
    if (count !== 1 || (flags !== 0 && flags !== 1)) return undefined;
    const [initial, rest] = u32(entry + 1);
    if (flags === 1 && u32(rest)[0] <= initial) return undefined; // may not grow
    const wanted = Math.ceil(stackTop / PAGE) + 1;
    if (wanted >= initial) return undefined;
    // the memory section again with the new initial size (its maximum, if any, follows unchanged)
    const section = [...leb(1), flags, ...leb(wanted), ...bytes.subarray(rest, memory.end)];
    const head = [5, ...leb(section.length)];
    const out = new Uint8Array(bytes.length - (memory.end - memory.start) + head.length + section.length);
    out.set(bytes.subarray(0, memory.start), 0);
    out.set(head, memory.start);
    out.set(section, memory.start + head.length);
    out.set(bytes.subarray(memory.end), memory.start + head.length + section.length);
    return out;
  } catch {
    return undefined;
  }
}`;
