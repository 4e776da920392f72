// The code of the sandbox's thread, as text: a worker_threads Worker runs it (`eval: true`), so it works
// the same from the TypeScript sources, the bundled render worker and the compiled dist. It is our own
// fixed code; template scripts never reach a JavaScript engine of Node's, only QuickJS inside WebAssembly.
//
// The thread loads pdf.js's QuickJS sandbox once, then runs one session per message: a fresh QuickJS
// context holding the form model (pdf.js's scripting layer: AF functions, event model, util; the
// template's values, never a caller's), the steps in order, every message the scripts send streamed back
// as it happens (so a stuck session still tells which field it was on), and the context destroyed.
// Nothing of a session survives into the next; the next session's context is made right after, unused.
//
// What the page gives QuickJS (`window`) is inert: no timers, no network, no alerts shown; a dialog that
// needs an answer (confirm, prompt) is reported as unsupported. WebAssembly memory growth is capped, so a
// huge allocation fails inside QuickJS ("out of memory") instead of growing the process.
export const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// What a session may send back in all: a script printing or computing huge strings in a loop must not
// fill the render worker's memory with messages. Past it the session ends as a crash (a budget warning).
let sentBytes = 0;
const post = (m) => {
  if (sentBytes > workerData.maxOutputBytes) return;
  sentBytes += JSON.stringify(m).length;
  if (sentBytes > workerData.maxOutputBytes) parentPort.postMessage({ type: 'crash', message: 'the scripts sent too much output' });
  else parentPort.postMessage(m);
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
  dispatchEvent: (e) => post({ type: 'send', detail: e.detail }),
  console: { log() {}, warn() {}, error() {} },
};
(async () => {
  const { QuickJSSandbox } = await import(workerData.sandboxUrl);
  const sandbox = await QuickJSSandbox();
  // After QuickJS crashed (an abort: stack overflow, a broken module) nothing more is run in it: the parent
  // ends the thread on the crash message.
  let crashed = false;
  const crash = (e) => {
    crashed = true;
    post({ type: 'crash', message: String((e && e.message) || e).slice(0, 200) });
  };
  globalThis.window.console.error = crash;
  // The context made after a session for the next one (the same form is the likeliest next render): made
  // between renders, it has run no script yet, so it is as fresh as one made on demand.
  let readyKey = null;
  const drop = () => {
    if (readyKey === null) return;
    readyKey = null;
    sandbox._module.ccall('nukeSandbox', null, []);
    sandbox.support.commFun = null;
  };
  parentPort.on('message', ({ key, data, steps }) => {
    if (crashed) return post({ type: 'crash', message: 'the script engine had crashed' });
    sentBytes = 0;
    try {
      if (readyKey !== key) {
        drop();
        sandbox.create(data);
      }
      readyKey = null;
    } catch (e) {
      crash('the script context could not start');
      return;
    }
    try {
      for (let i = 0; i < steps.length && !crashed; i++) {
        post({ type: 'step', index: i });
        sandbox.dispatchEvent(steps[i]);
      }
      if (crashed) return;
      sandbox._module.ccall('nukeSandbox', null, []);
      sandbox.support.commFun = null;
      post({ type: 'done', memoryBytes: sandbox._module.HEAPU8.byteLength });
      sandbox.create(data);
      readyKey = key;
    } catch (e) {
      crash(e);
    }
  });
  post({ type: 'ready' });
})().catch((e) => post({ type: 'crash', message: String(e && e.message || e).slice(0, 200) }));
`;
