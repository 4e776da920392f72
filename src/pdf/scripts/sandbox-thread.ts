// The code of the sandbox's thread, as text: a worker_threads Worker runs it (`eval: true`), so it works
// the same from the TypeScript sources, the bundled render worker and the compiled dist. It is our own
// fixed code; template scripts never reach a JavaScript engine of Node's, only QuickJS inside WebAssembly.
//
// The thread loads pdf.js's QuickJS sandbox once, then runs one session per message. A session starts
// from a pristine context holding the form model (pdf.js's scripting layer: AF functions, event model,
// util; the template's values, never a caller's). Making that context evaluates ~107 KB of pdf.js's layer
// (8-40 ms quiet) and runs our setup (sandbox-setup.ts: actions compiled once, pdf.js's lazy field lists
// built, messages batched), so it is made once per form data and its state kept as a snapshot: the bytes
// of QuickJS's WebAssembly memory, where all of QuickJS's state lives (heap, allocator, context). As soon
// as a session ends, its form's snapshot is copied back over the memory (and a session of another form
// copies its own first), which puts every object, global and prototype exactly as it was before any
// script ran: nothing a session did (globals, prototype tricks, a caller's values) survives into the
// next, whoever's render it is. Memory past the snapshot is free space to QuickJS's allocator, as freed
// memory was when each session made a context of its own. A one-shot render keeps none (maxSnapshots 0): its
// one session needs no pristine copy, and finding QuickJS's end reads all of its memory (which starts at
// what QuickJS's static data and stack need, not the 16 MiB its module declares: wasm-initial-memory.ts).
//
// What a session says (steps, values, alerts, errors) is gathered and sent back in one message at its
// end; inside, the layer sends it in batches (one per event; in a careful session also one before each
// calculated field's script, which names that field). Which step and which calculated field it is on is
// also written to shared memory as it goes, so that the parent, ending a session that ran out of time,
// still knows which script was running (the field only in a careful session: run-scripts.ts).
//
// What the page gives QuickJS (`window`) is inert: no timers, no network, no alerts shown; a dialog that
// needs an answer (confirm, prompt) is reported as unsupported. WebAssembly memory growth is capped, so a
// huge allocation fails inside QuickJS ("out of memory") instead of growing the process.
import { BATCH_COMMAND, CALCULATING_COMMAND, SETUP_ACTION } from './sandbox-setup.js';
import { SMALLER_INITIAL_MEMORY_SOURCE } from './wasm-initial-memory.js';

export const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// QuickJS's own printing (an abort message) goes nowhere: what matters comes back as messages, and the
// parent never reads this thread's stdout (reading it would keep the parent's process alive).
process.stdout.write = process.stderr.write = () => true;
// [0] the step running (-1: none yet), [1] 1 + the index of the calculated field running (0: none yet)
const progress = new Int32Array(workerData.progress);
const BATCH = ${JSON.stringify(BATCH_COMMAND)};
const CALCULATING = ${JSON.stringify(CALCULATING_COMMAND)};
const SETUP = ${JSON.stringify(SETUP_ACTION)};
// What a session may send back in all: a script printing or computing huge strings in a loop must not
// fill the render worker's memory with messages. Past it the session ends as a crash (a budget warning).
let sentBytes = 0;
let out = [];
let overflow = false;
// bytes: the message's JSON length when the caller knows it better (a batch is counted once, whole)
const post = (m, bytes) => {
  if (overflow) return false;
  sentBytes += bytes === undefined ? JSON.stringify(m).length : bytes;
  if (sentBytes > workerData.maxOutputBytes) {
    overflow = true;
    // said at once: the parent ends the thread, which stops the script that floods
    parentPort.postMessage({ type: 'crash', message: 'the scripts sent too much output' });
    return false;
  }
  out.push(m);
  return true;
};
const receive = (d) => {
  if (d && d.command === CALCULATING && typeof d.id === 'string' && d.id[0] === 'f') {
    const i = Number(d.id.slice(1));
    if (Number.isInteger(i)) Atomics.store(progress, 1, i + 1);
  }
  return post({ type: 'send', detail: d }, 0);
};
// QuickJS's module starts with the memory it needs rather than 16 MiB (wasm-initial-memory.ts); one that
// is not laid out as expected, or fails so, is instantiated as it came.
const smaller = ${SMALLER_INITIAL_MEMORY_SOURCE};
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = function (source, imports) {
  const bytes = source instanceof ArrayBuffer ? new Uint8Array(source)
    : ArrayBuffer.isView(source) ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength) : undefined;
  const small = bytes && smaller(bytes);
  if (!small) return instantiate.call(this, source, imports);
  return instantiate.call(this, small, imports).catch(() => instantiate.call(this, source, imports));
};
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (delta) {
  if (this.buffer.byteLength + delta * 65536 > workerData.maxMemoryBytes) throw new RangeError('script memory budget');
  return grow.call(this, delta);
};
const inert = () => 0;
globalThis.window = {
  setTimeout: inert, clearTimeout: inert, setInterval: inert, clearInterval: inert,
  alert: (message) => post({ type: 'alert', message: String(message).slice(0, 500) }),
  confirm: (message) => { post({ type: 'unsupported', what: 'app.alert with a reply (' + String(message).slice(0, 80) + ')' }); return false; },
  prompt: () => { post({ type: 'unsupported', what: 'app.response' }); return null; },
  URL: function () { throw new Error('URLs are not available to form scripts'); },
  CustomEvent: function (type, init) { this.detail = init.detail; },
  dispatchEvent: (e) => {
    const d = e.detail;
    if (overflow) return;
    sentBytes += JSON.stringify(d).length;
    if (d && d.command === BATCH && Array.isArray(d.items)) {
      for (const item of d.items) if (!receive(item)) return;
    } else receive(d);
  },
  console: { log() {}, warn() {}, error() {} },
};
(async () => {
  const { QuickJSSandbox } = await import(workerData.sandboxUrl);
  // after this thread's start (see SandboxOptions.baselineOnly), before QuickJS's WebAssembly compiles
  if (workerData.v8Flags) require('node:v8').setFlagsFromString(workerData.v8Flags);
  const sandbox = await QuickJSSandbox();
  const wasm = sandbox._module;
  // After QuickJS crashed (an abort: stack overflow, a broken module) nothing more is run in it: the parent
  // ends the thread on the crash message.
  let crashed = false;
  const crash = (e) => {
    crashed = true;
    parentPort.postMessage({ type: 'crash', message: String((e && e.message) || e).slice(0, 200) });
  };
  globalThis.window.console.error = crash;
  // Pristine contexts by form data key, least recently used first; bounded in number and bytes.
  const snapshots = new Map();
  let snapshotBytes = 0;
  const remember = (key, bytes) => {
    snapshots.set(key, bytes);
    snapshotBytes += bytes.length;
    for (const [k, b] of snapshots) {
      if (snapshots.size <= workerData.maxSnapshots && snapshotBytes <= workerData.maxSnapshotBytes) break;
      if (k === key) continue;
      snapshots.delete(k);
      snapshotBytes -= b.length;
    }
  };
  // QuickJS's state is the memory up to its last byte in use; the rest is zeroes (or what a session freed).
  const takeSnapshot = () => {
    const heap = wasm.HEAPU8;
    const words = new Int32Array(heap.buffer, 0, heap.length >> 2);
    let end = words.length;
    while (end > 0 && words[end - 1] === 0) end--;
    return heap.slice(0, Math.min(heap.length, (Math.ceil((end * 4) / 65536) + 1) * 65536));
  };
  let live = false;
  // The key whose snapshot the memory holds untouched: each session's end puts its form's snapshot back
  // at once (between renders, off the next one's path), which also wipes what the session left.
  let pristine;
  const fresh = (key, data) => {
    const snapshot = snapshots.get(key);
    const ready = pristine === key;
    pristine = undefined;
    if (snapshot) {
      snapshots.delete(key);
      snapshots.set(key, snapshot);
      if (!ready) wasm.HEAPU8.set(snapshot);
      return true;
    }
    if (data === undefined) return false;
    if (live) wasm.ccall('nukeSandbox', null, []);
    live = false;
    data.docInfo.actions[SETUP] = [workerData.setupSource];
    sandbox.create(data);
    live = true;
    // Our setup, in the context before its snapshot (sandbox-setup.ts); it says nothing unless it failed.
    out = [];
    sandbox.dispatchEvent({ id: 'doc', name: SETUP });
    if (out.length || crashed) throw new Error('the script setup failed');
    // none kept (a one-shot render): finding QuickJS's end reads all of its memory, which costs a page
    // fault per 4 KiB page on kernels without a shared zero page
    if (workerData.maxSnapshots > 0) remember(key, takeSnapshot());
    parentPort.postMessage({ type: 'created' });
    return true;
  };
  parentPort.on('message', ({ key, data, steps }) => {
    if (crashed) return parentPort.postMessage({ type: 'crash', message: 'the script engine had crashed' });
    sentBytes = 0;
    out = [];
    overflow = false;
    Atomics.store(progress, 0, -1);
    Atomics.store(progress, 1, 0);
    try {
      if (!fresh(key, data)) return parentPort.postMessage({ type: 'need-data' });
    } catch (e) {
      live = false;
      crash('the script context could not start');
      return;
    }
    try {
      for (let i = 0; i < steps.length && !crashed && !overflow; i++) {
        Atomics.store(progress, 0, i);
        post({ type: 'step', index: i });
        sandbox.dispatchEvent(steps[i]);
      }
      if (crashed || overflow) return;
      parentPort.postMessage({ type: 'end', messages: out, memoryBytes: wasm.HEAPU8.byteLength });
      out = [];
      const snapshot = snapshots.get(key);
      if (snapshot) {
        wasm.HEAPU8.set(snapshot);
        pristine = key;
      }
    } catch (e) {
      crash(e);
    }
  });
  parentPort.postMessage({ type: 'ready' });
})().catch((e) => parentPort.postMessage({ type: 'crash', message: String(e && e.message || e).slice(0, 200) }));
`;
