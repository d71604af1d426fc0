/** What the pool hands the worker once it starts. */
export interface JmespathWorkerData {
	/** Absolute path of jmespath.js, resolved by the parent so the worker needs no module resolution of its own. */
	jmespathPath: string;
	/** Longest result, in characters of JSON, the worker may send back. */
	maxResultLength: number;
}

/** One evaluation: `dataText` is the JSON text of the data. */
export interface JmespathWorkerRequest {
	dataText: string;
	expression: string;
}

/** How one evaluation ended inside the worker; `json` is the result as JSON text. */
export type JmespathWorkerReply =
	| { outcome: 'result'; json: string }
	| { outcome: 'expression-error'; message: string }
	| { outcome: 'out-of-room'; message: string }
	| { outcome: 'result-too-large' };

/**
 * The worker's code, run with `new Worker(source, { eval: true })`. It is a string rather than a .ts file
 * because the same code must start under ts-jest (no compiled .js exists) and from dist/ alike.
 *
 * jmespath 0.16 reads keys with `value[key]`, so `constructor` on `{}` yields Object's constructor. Its
 * interpreter class is private; the worker loads jmespath's own source with one line added that exports
 * it, then makes field lookups read own properties only. The anchor is checked, so a jmespath that no
 * longer matches fails loudly at start instead of silently reading inherited properties again.
 *
 * The result goes back as JSON text, not as a structured clone: jmespath results may share subtrees
 * (`[@,@]` repeated), which clone cheaply but render enormous; the length cap applies while rendering,
 * and the main thread never sees more than `maxResultLength` characters.
 */
export const JMESPATH_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { runInThisContext } = require('node:vm');

const RESULT_TOO_LARGE = Symbol('result too large');
const jmespath = loadOwnPropertyJmespath(workerData.jmespathPath);

parentPort.on('message', ({ dataText, expression }) => {
  parentPort.postMessage(evaluate(dataText, expression));
});

function evaluate(dataText, expression) {
  try {
    const result = jmespath.search(JSON.parse(dataText), expression);
    return { outcome: 'result', json: renderBounded(result === undefined ? null : result, workerData.maxResultLength) };
  } catch (error) {
    if (error === RESULT_TOO_LARGE) return { outcome: 'result-too-large' };
    // Stack overflow, "Invalid string length", "Invalid array length": the expression is fine, the work is too big.
    if (error instanceof RangeError) return { outcome: 'out-of-room', message: error.message };
    return { outcome: 'expression-error', message: (error && error.message) || String(error) };
  }
}

function loadOwnPropertyJmespath(path) {
  const source = readFileSync(path, 'utf8');
  const anchor = 'exports.search = search;';
  if (!source.includes(anchor)) {
    throw new Error('jmespath at ' + path + ' no longer contains "' + anchor + '"; its interpreter cannot be limited to own properties');
  }
  const exposed = source.replace(anchor, anchor + ' exports.TreeInterpreter = TreeInterpreter;');
  const loaded = {};
  runInThisContext('(function (exports) {' + exposed + '\n})', { filename: path })(loaded);
  readOwnPropertiesOnly(loaded.TreeInterpreter.prototype);
  return loaded;
}

function readOwnPropertiesOnly(interpreter) {
  const visit = interpreter.visit;
  interpreter.visit = function (node, value) {
    if (node.type === 'Field') {
      if (!isPlainObject(value) || !Object.hasOwn(value, node.name)) return null;
      const field = value[node.name];
      return field === undefined ? null : field;
    }
    // jmespath assigns with collected[name] = …, which for the key "__proto__" sets the prototype instead.
    if (node.type === 'MultiSelectHash' && value !== null) {
      const collected = {};
      for (const child of node.children) {
        Object.defineProperty(collected, child.name, { value: this.visit(child.value, value), enumerable: true, writable: true, configurable: true });
      }
      return collected;
    }
    return visit.call(this, node, value);
  };
}

function isPlainObject(value) {
  return value !== null && Object.prototype.toString.call(value) === '[object Object]';
}

/** JSON.stringify's output, but it stops as soon as the text would pass maxLength characters. */
function renderBounded(value, maxLength) {
  const parts = [];
  let length = 0;
  const append = (text) => {
    length += text.length;
    if (length > maxLength) throw RESULT_TOO_LARGE;
    parts.push(text);
  };
  const write = (item) => {
    if (typeof item === 'string' && length + item.length + 2 > maxLength) throw RESULT_TOO_LARGE;
    if (item === null || typeof item !== 'object') return append(JSON.stringify(item) ?? 'null');
    if (Array.isArray(item)) {
      append('[');
      for (let index = 0; index < item.length; index += 1) {
        if (index > 0) append(',');
        write(item[index]);
      }
      return append(']');
    }
    append('{');
    let first = true;
    for (const key of Object.keys(item)) {
      const field = item[key];
      if (field === undefined || typeof field === 'function') continue;
      append((first ? '' : ',') + JSON.stringify(key) + ':');
      first = false;
      write(field);
    }
    return append('}');
  };
  write(value);
  return parts.join('');
}
`;
