// What the sandbox's thread runs inside a form's new QuickJS context, once, right after pdf.js's layer and
// the form data are in and before the context's snapshot is taken (sandbox-thread.ts): every render of
// the form then starts from a context where this has already been done. It is our own fixed code, run by
// QuickJS as a document action; no template script runs during it.
//
// - Each field action is compiled once into a function, which pdf.js's layer then calls instead of
//   `eval`ing its source at every event. A field script runs in a scope of its own, as Acrobat runs
//   field-level scripts (its `var`s are its own; document-level scripts still run in the global scope).
//   The source is compiled as the body of a function declaration placed after a `throw`, so nothing of
//   it runs at compile time, and the function is kept only if its source text is exactly that body (a
//   body that closes the function early is left as source and `eval`ed at run time, as before).
// - The lazy field lists pdf.js builds on a field's first getArray() (a scan of every field, for every
//   field an AFSimple_Calculate names) are built here once, for all fields in one pass over the names;
//   they depend only on the form's field names.
// - What the layer sends to the host (a message per value set, per result) is queued and sent as one
//   message at the end of each event, and before any other call out (an alert, an error), so the order
//   the host reads stays the order things happened. Before each calculate script runs, its field is
//   named in the queue. In a careful session (`formcast:careful` first) the queue is also sent right
//   then, so that a session stopped for time or a crash still tells which field was running; that costs
//   a call out per calculated field, so sessions are careful only once one was stopped (run-scripts.ts).
// - Caller values needing no check are set on the fields directly (`formcast:values`), without a
//   message per field back to the host.
//
// pdf.js's objects sit behind proxies that hide their `_` members; a function stored on a proxy is
// called bound to the object behind it, which is how this code reaches them.

/** The document action that runs this code (removed by the code itself once it has run). */
export const SETUP_ACTION = 'formcast:setup';
/** The document action that sets the caller's unchecked values (event.value: PDF name -> value). */
export const VALUES_ACTION = 'formcast:values';
/** Document actions of ours whose source is compiled like a field's (they declare nothing). */
export const OWN_ACTIONS = ['formcast:calculate-off', 'formcast:calculate'];
/** The document action that makes a session careful (markers sent as they happen). */
export const CAREFUL_ACTION = 'formcast:careful';
/** The message that carries a batch of the layer's messages, in order. */
export const BATCH_COMMAND = 'formcast:batch';
/** The message that says a calculated field's script is about to run (`id`: its sandbox id). */
export const CALCULATING_COMMAND = 'formcast:calculating';

/** Bytes of messages queued at most (about) before they are sent anyway. */
const QUEUE_BYTES = 64 * 1024;

export const SETUP_SOURCE = `(() => {
  const apply = Reflect.apply;
  const keys = Object.keys;
  const toSource = Function.prototype.toString;
  const realEval = globalThis.eval;
  const self = function () { return this; };
  const raw = (proxy) => {
    proxy.formcast$self = self;
    const obj = proxy.formcast$self();
    delete proxy.formcast$self;
    return obj;
  };
  const app = raw(globalThis.app);
  const doc = app._document.obj;
  const dispatcher = app._eventDispatcher;
  const send = app._send;

  let queue = [];
  let queued = 0;
  const flush = () => {
    if (queue.length === 0) return;
    const items = queue;
    queue = [];
    queued = 0;
    send({ command: ${JSON.stringify(BATCH_COMMAND)}, items });
  };
  // About the JSON length of a message: its strings, one level into arrays.
  const sizeOf = (data) => {
    let n = 16;
    for (const k in data) {
      const v = data[k];
      if (typeof v === 'string') n += v.length;
      else if (Array.isArray(v)) for (const x of v) n += typeof x === 'string' ? x.length : 8;
      else n += 8;
    }
    return n;
  };
  // Messages go out once ${QUEUE_BYTES} bytes are queued, so a script sending in a loop (or one huge
  // message) meets the host's output budget as it did unbatched, instead of piling up here.
  // The calculated field running whose marker is not queued yet (a fast session): the marker goes in
  // only before something else is said while it runs (an alert, an error, another field's value). Its
  // own value needs none: the host knows the field by the message's id.
  let mark = null;
  const markNow = () => {
    queue[queue.length] = { command: ${JSON.stringify(CALCULATING_COMMAND)}, id: mark };
    queued += 32;
    mark = null;
  };
  const push = (data) => {
    if (!data) return;
    if (mark !== null && data.id !== mark) markNow();
    queue[queue.length] = data;
    queued += sizeOf(data);
    if (queued >= ${QUEUE_BYTES}) flush();
  };
  for (const o of [app, dispatcher, raw(globalThis.util)]) {
    const call = o._externalCall;
    if (typeof call === 'function') {
      o._externalCall = (name, args) => {
        if (mark !== null) markNow();
        flush();
        return call(name, args);
      };
    }
  }
  const dispatch = dispatcher.dispatch;
  dispatcher.dispatch = function (event) {
    try { return apply(dispatch, this, [event]); } finally { flush(); }
  };
  let careful = false;

  // The calculation order, as pdf.js's runCalculate and runActions run it, step for step (the same Event
  // object, the same properties set in the same order, the same checks, the same messages), inlined: its
  // generic path cost ~16 µs a field before any script ran (three runActions calls through the proxies'
  // accessors, a marker message each). Fields whose _runActions is not Field's own (radio buttons and
  // check boxes pick their widget's actions first) go through theirs.
  let fieldRun = null;
  for (const id of keys(app._objects)) {
    let p = app._objects[id].obj;
    while (p) {
      if (Object.prototype.hasOwnProperty.call(p, '_runActions')) fieldRun = p._runActions;
      p = Object.getPrototypeOf(p);
    }
    if (fieldRun) break;
  }
  const act = (source, target, event, name) => {
    const obj = target.obj;
    event.source = source.wrapped;
    event.target = target.wrapped;
    event.name = name;
    event.targetName = obj.name;
    event.rc = true;
    if (obj._runActions !== fieldRun) return obj._runActions(event);
    const actions = obj._actions;
    if (!actions.has(name)) return false;
    const list = actions.get(name);
    try {
      for (const action of list) obj._globalEval(action);
    } catch (error) {
      event.rc = false;
      throw error;
    }
    return true;
  };
  dispatcher.runCalculate = function (source, event) {
    const order = this._calculationOrder;
    const docObj = this._document.obj;
    if (!order || !docObj.calculate) return;
    const objects = this._objects;
    try {
      for (const targetId of order) {
        if (!(targetId in objects)) continue;
        if (!docObj.calculate) break;
        event.value = null;
        const target = objects[targetId];
        const obj = target.obj;
        let savedValue = obj._getValue();
        mark = obj._id;
        if (careful) {
          markNow();
          flush();
        }
        try {
          act(source, target, event, 'Calculate');
        } catch (error) {
          const fieldId = obj._id;
          const value = \`\${error.toString()}\n\${error.stack}\`;
          this._externalCall('send', [
            { command: 'error', value: \`Error when calculating value for field "\${fieldId}"\n\${value}\` },
          ]);
          continue;
        }
        if (!event.rc) continue;
        if (event.value !== null) obj.value = event.value;
        else event.value = obj._getValue();
        act(target, target, event, 'Validate');
        if (!event.rc) {
          if (obj._getValue() !== savedValue) target.wrapped.value = savedValue;
          continue;
        }
        if (event.value === null) event.value = obj._getValue();
        savedValue = obj._getValue();
        let formattedValue = null;
        if (act(target, target, event, 'Format')) formattedValue = event.value?.toString?.();
        obj._send({ id: obj._id, siblings: obj._siblings, value: savedValue, formattedValue });
      }
    } finally {
      mark = null;
    }
  };

  const probe = 'formcast$action';
  const compiled = new Map();
  const compile = (source) => {
    if (typeof source !== 'string') return source;
    if (compiled.has(source)) return compiled.get(source);
    const text = 'function ' + probe + '() {\\n' + source + '\\n}';
    let fn;
    try {
      realEval('throw 0;\\n' + text);
    } catch (e) {
      if (e === 0) fn = globalThis[probe];
    }
    delete globalThis[probe];
    const out = typeof fn === 'function' && apply(toSource, fn, []) === text ? fn : source;
    compiled.set(source, out);
    return out;
  };
  const run = (action) => (typeof action === 'function' ? apply(action, globalThis, []) : globalThis.eval(action));

  // What getArray() of a field without kids lists (pdf.js's _getTerminalChildren: the fields with a
  // value named like it or below it, in field order), for every field in one pass over the names.
  const children = new Map();
  for (const [name, field] of doc._fields) {
    if (!field.obj._hasValue) continue;
    for (let path = name; ; ) {
      if (doc._fields.has(path)) {
        let list = children.get(path);
        if (!list) children.set(path, (list = []));
        list.push(field.wrapped);
      }
      const dot = path.lastIndexOf('.');
      if (dot < 0) break;
      path = path.slice(0, dot);
    }
  }
  const fields = new Set();
  for (const id of keys(app._objects)) fields.add(app._objects[id].obj);
  for (const f of fields) {
    if (f._actions instanceof Map) {
      for (const list of f._actions.values()) for (let i = 0; i < list.length; i++) list[i] = compile(list[i]);
      f._globalEval = run;
    }
    if (!f._kidIds && f._children === null) f._children = children.get(f._fieldPath) ?? [];
    if (typeof f._send === 'function') f._send = push;
  }
  for (const o of [app, doc, raw(globalThis.console)]) o._send = push;

  for (const name of ${JSON.stringify(OWN_ACTIONS)}) {
    const list = doc._actions.get(name);
    if (list) for (let i = 0; i < list.length; i++) list[i] = compile(list[i]);
  }
  doc._actions.set(${JSON.stringify(VALUES_ACTION)}, [() => {
    const values = globalThis.event.value;
    for (const name of keys(values)) {
      const f = doc._getField(name);
      if (!f) continue;
      if (f.obj._kidIds) f.wrapped.value = values[name];
      else f.obj.value = values[name];
    }
  }]);
  // AFNumber_Format, the format of most computed fields, without util.printf's pattern matching: the same
  // steps as pdf.js's AFNumber_Format and printf's "%,<sepStyle>.<nDec>f" branch, for the usual arguments
  // (a whole number of decimals, a finite separator style, a currency without "%"); anything else, or a
  // util.printf a script replaced, goes to pdf.js's own.
  const numberFormat = globalThis.AFNumber_Format;
  const makeNumber = globalThis.AFMakeNumber;
  const util = raw(globalThis.util);
  const printf = util.printf;
  const color = raw(globalThis.color);
  const separators = [[',', '.'], ['', '.'], ['.', ','], ['', ','], ["'", '.']];
  globalThis.AFNumber_Format = function (nDec, sepStyle, negStyle, currStyle, strCurrency, bCurrencyPrepend) {
    if (
      typeof nDec !== 'number' || !(nDec >= 0 && nDec <= 20) || nDec % 1 !== 0 ||
      typeof sepStyle !== 'number' || !isFinite(sepStyle) ||
      typeof strCurrency !== 'string' || strCurrency.indexOf('%') !== -1 || util.printf !== printf
    ) {
      return apply(numberFormat, this, [nDec, sepStyle, negStyle, currStyle, strCurrency, bCurrencyPrepend]);
    }
    const event = globalThis.event;
    let value = makeNumber(event.value);
    if (value === null) {
      event.value = '';
      return;
    }
    // Infinity and NaN (a division by zero) never leave the thousands loop below: pdf.js's own prints them
    if (!isFinite(value)) {
      return apply(numberFormat, this, [nDec, sepStyle, negStyle, currStyle, strCurrency, bCurrencyPrepend]);
    }
    const sign = Math.sign(value);
    let before = '';
    let after = '';
    if (sign === -1 && bCurrencyPrepend && negStyle === 0) before += '-';
    const paren = (negStyle === 2 || negStyle === 3) && sign === -1;
    if (paren) before += '(';
    if (bCurrencyPrepend) before += strCurrency;
    else after += strCurrency;
    if (paren) after += ')';
    if (negStyle === 1 || negStyle === 3) event.target.textColor = sign === 1 ? color.black : color.red;
    if ((negStyle !== 0 || bCurrencyPrepend) && sign === -1) value = -value;
    const [thousandSep, decimalSep] = separators[Math.min(Math.max(0, Math.floor(sepStyle)), 4)];
    let intPart = Math.trunc(value);
    let decPart = Math.abs(value - intPart).toFixed(nDec);
    if (decPart.length > 2) {
      if (/^1\\.0+$/.test(decPart)) {
        intPart += Math.sign(value);
        decPart = decimalSep + decPart.split('.')[1];
      } else {
        decPart = decimalSep + decPart.substring(2);
      }
    } else {
      if (decPart === '1') intPart += Math.sign(value);
      decPart = '';
    }
    let minus = '';
    if (intPart < 0) {
      minus = '-';
      intPart = -intPart;
    }
    if (thousandSep && intPart >= 1000) {
      const groups = [];
      while (true) {
        groups.push((intPart % 1000).toString().padStart(3, '0'));
        intPart = Math.trunc(intPart / 1000);
        if (intPart < 1000) {
          groups.push(intPart.toString());
          break;
        }
      }
      intPart = groups.reverse().join(thousandSep);
    } else {
      intPart = intPart.toString();
    }
    event.value = before + minus + intPart + decPart + after;
  };

  // AFSimple_Calculate, the calculation of most computed fields: pdf.js's steps without building its
  // table of five functions at every call, for its five function names and a list of field names.
  const simpleCalculate = globalThis.AFSimple_Calculate;
  const makeList = globalThis.AFMakeArrayFromList;
  globalThis.AFSimple_Calculate = function (cFunction, cFields) {
    const list = makeList(cFields);
    const known =
      cFunction === 'SUM' || cFunction === 'AVG' || cFunction === 'PRD' || cFunction === 'MIN' || cFunction === 'MAX';
    if (!known || !Array.isArray(list)) {
      return apply(simpleCalculate, this, [cFunction, cFields]);
    }
    const event = globalThis.event;
    const values = [];
    for (const cField of list) {
      const field = doc.getField(cField);
      if (!field) continue;
      for (const child of field.getArray()) {
        const number = makeNumber(child.value);
        values.push(number ?? 0);
      }
    }
    if (values.length === 0) {
      event.value = 0;
      return;
    }
    let res;
    if (cFunction === 'SUM' || cFunction === 'AVG') {
      res = 0;
      for (const v of values) res = res + v;
      if (cFunction === 'AVG') res = res / values.length;
    } else if (cFunction === 'PRD') {
      res = 1;
      for (const v of values) res = res * v;
    } else if (cFunction === 'MIN') {
      res = Number.MAX_VALUE;
      for (const v of values) res = Math.min(res, v);
    } else {
      res = Number.MIN_VALUE;
      for (const v of values) res = Math.max(res, v);
    }
    event.value = Math.round(1e6 * res) / 1e6;
  };

  doc._actions.set(${JSON.stringify(CAREFUL_ACTION)}, [() => { careful = true; }]);
  doc._actions.delete(${JSON.stringify(SETUP_ACTION)});
  doc._globalEval = run;
  queue = [];
})();`;
