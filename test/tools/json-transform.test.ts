import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import jmespath from 'jmespath';
import { runTool } from '../../src/agent/calls/execute-tool';
import { Redactor } from '../../src/trace/redact';
import {
	JSON_TRANSFORM_MAX_DATA_LENGTH,
	JSON_TRANSFORM_MAX_RESULT_LENGTH,
	JSON_TRANSFORM_WORKER_MEMORY_MB,
	jsonTransformTool,
} from '../../src/tools/json-transform';
import { rejectionOf } from '../support/rejection';

function transform(
	data: unknown,
	expression: string,
	signal: AbortSignal = new AbortController().signal,
): Promise<unknown> {
	return jsonTransformTool.execute({ data, expression }, { signal, settings: {} });
}

/** `[a|[@,@]|…, b|[@,@]|…]`: two values that share every subtree, 2^depth paths each. */
function doublingPair(depth: number): string {
	const doublings = '|[@,@]'.repeat(depth);
	return `[a${doublings}, b${doublings}]`;
}

/** Counts timer callbacks while `work` runs: a blocked event loop would count none. */
async function countTicksDuring<T>(
	work: Promise<T>,
): Promise<{ ticks: number; settled: PromiseSettledResult<T> }> {
	let ticks = 0;
	const interval = setInterval(() => (ticks += 1), 20);
	try {
		const [settled] = await Promise.allSettled([work]);
		return { ticks, settled };
	} finally {
		clearInterval(interval);
	}
}

/** Threads of this process (Linux): a worker thread that really stopped is one fewer. */
function threadCount(): number {
	return readdirSync('/proc/self/task').length;
}

const catalogue = {
	items: [
		{ name: 'pen', price: 3, tags: ['office'] },
		{ name: 'lamp', price: 25, tags: ['home', 'office'] },
		{ name: 'chair', price: 80, tags: ['home'] },
	],
	users: ['ada', 'grace'],
};

describe('json_transform cannot hold the event loop', () => {
	it('stops the 40-deep comparison soon after its signal aborts, keeps timers firing meanwhile, and works again afterwards', async () => {
		const expression = `${doublingPair(40)} | @[0] == @[1]`;
		const controller = new AbortController();
		const reason = new Error('single call timeout');
		let threadsWhileRunning = 0;
		const timer = setTimeout(() => {
			threadsWhileRunning = threadCount();
			controller.abort(reason);
		}, 1000);
		const started = performance.now();
		const { ticks, settled } = await countTicksDuring(
			transform({ a: [1], b: [1] }, expression, controller.signal),
		);
		clearTimeout(timer);

		expect(settled).toEqual({ status: 'rejected', reason });
		expect(performance.now() - started).toBeLessThan(1000 + 5000);
		expect(ticks).toBeGreaterThan(0);
		// The spinning worker's thread ends; if it were left running, this would wait until the test times out.
		while (threadCount() >= threadsWhileRunning)
			await new Promise((resolve) => setTimeout(resolve, 20));
		await new Promise((resolve) => setImmediate(resolve));
		await expect(transform(catalogue, 'length(items)')).resolves.toBe(3);
	});

	it('reports the engine timeout as tool_timeout when single_call_timeout stops the expression', async () => {
		const request = {
			tools: new Map([[jsonTransformTool.name, jsonTransformTool]]),
			name: jsonTransformTool.name,
			args: { data: { a: [1], b: [1] }, expression: `${doublingPair(40)} | @[0] == @[1]` },
			settings: {},
			runSignal: new AbortController().signal,
			singleCallTimeout: 1,
			observationMaxLength: 0,
			redactor: new Redactor(),
		};
		const outcome = await runTool(jsonTransformTool, request);

		expect(outcome).toMatchObject({
			ok: false,
			error: {
				type: 'tool_timeout',
				message: 'json_transform did not finish within single_call_timeout (1 s)',
			},
		});
		await expect(transform([3, 1, 2], 'sort(@)')).resolves.toEqual([3, 1, 2].sort());
	});

	it('answers a quick transform while another expression is still running', async () => {
		const controller = new AbortController();
		const stuck = transform(
			{ a: [1], b: [1] },
			`${doublingPair(40)} | @[0] == @[1]`,
			controller.signal,
		);
		const timer = setTimeout(() => controller.abort(new Error('gave up')), 20000);
		try {
			await expect(transform(catalogue, 'users[0]')).resolves.toBe('ada');
		} finally {
			controller.abort(new Error('test finished'));
			clearTimeout(timer);
		}
		expect((await rejectionOf(stuck)).message).toBe('test finished');
	});

	it('gives every one of many simultaneous calls its own result', async () => {
		const calls = Array.from({ length: 7 }, (_, index) =>
			transform({ value: index, padding: 'x'.repeat(index * 1000) }, 'value'),
		);
		await expect(Promise.all(calls)).resolves.toEqual([0, 1, 2, 3, 4, 5, 6]);
	});

	it('rejects at once with the reason when the signal is already aborted', async () => {
		const controller = new AbortController();
		controller.abort(new Error('run cancelled'));
		expect((await rejectionOf(transform(catalogue, 'items', controller.signal))).message).toBe(
			'run cancelled',
		);
	});

	it('lets a process that used it exit on its own once the call is done', async () => {
		// A plain Node process loading the TypeScript sources: proves the worker starts outside jest and is unref'd when idle.
		const script = `
      const { readFileSync } = require('node:fs');
      const typescript = require('typescript');
      require.extensions['.ts'] = (module, filename) => module._compile(typescript.transpileModule(readFileSync(filename, 'utf8'),
        { compilerOptions: { module: typescript.ModuleKind.CommonJS, target: typescript.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, filename);
      const { jsonTransformTool } = require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'tools', 'json-transform.ts'))});
      jsonTransformTool.execute({ data: { a: [1, 2] }, expression: 'length(a)' }, { signal: new AbortController().signal, settings: {} })
        .then((result) => console.log(JSON.stringify(result)));`;
		const child = spawn(process.execPath, ['-e', script], {
			cwd: join(__dirname, '..', '..'),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		// A worker that kept the child alive would hang it forever; stop it well past any normal exit.
		const hangGuard = setTimeout(() => child.kill(), 20000);
		const code = await new Promise((resolve) => child.on('close', resolve));
		clearTimeout(hangGuard);

		expect({ code, output: output.trim() }).toEqual({ code: 0, output: '2' });
	});
});

describe('json_transform bounds memory and size', () => {
	it('ends an expression that multiplies its data with a memory error, while the process stays far from the reported 1.5 GB', async () => {
		const data = Array.from({ length: 250 }, (_, index) => index);
		expect(JSON.stringify(data).length).toBeLessThan(1000);
		// Each step builds a pair per element and flattens them: real copies, 250 × 2^20 numbers at the end.
		const expression = `@${' | [*].[@,@][]'.repeat(20)}`;
		const before = process.memoryUsage().rss;
		let peak = before;
		const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
		const controller = new AbortController();
		const timer = setTimeout(() => controller.abort(new Error('memory bomb ran 30 s')), 30000);
		try {
			const error = await rejectionOf(transform(data, expression, controller.signal));
			expect(error.message).toBe(
				`the expression ${JSON.stringify(expression)} needed more than ${JSON_TRANSFORM_WORKER_MEMORY_MB} MB of memory; simplify it or select less data first`,
			);
		} finally {
			clearInterval(sampler);
			clearTimeout(timer);
		}
		expect(peak - before).toBeLessThan(300 * 1024 * 1024);
		await expect(transform(catalogue, 'items[-1].name')).resolves.toBe('chair');
	});

	it('refuses the 20-deep shared-subtree result on 1,000 characters of data by its size, without rendering it', async () => {
		const data = { a: 'x'.repeat(500), b: 'y'.repeat(500) };
		const expression = doublingPair(20);
		const before = process.memoryUsage().rss;
		const error = await rejectionOf(transform(data, expression));

		expect(error.message).toContain(
			`is more than ${JSON_TRANSFORM_MAX_RESULT_LENGTH.toLocaleString('en-US')} characters of JSON; select less`,
		);
		expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
	});

	it('returns a result just under the cap and refuses one just over it, naming the cap', async () => {
		const longestFitting = Math.floor((JSON_TRANSFORM_MAX_RESULT_LENGTH - 7) / 2); // ["…","…"] adds 7 characters to two strings
		await expect(transform('z'.repeat(longestFitting), '[@, @]')).resolves.toHaveLength(2);
		const error = await rejectionOf(transform('z'.repeat(longestFitting + 1), '[@, @]'));

		expect(error.message).toBe(
			`the result of "[@, @]" is more than 1,000,000 characters of JSON; select less, e.g. add a filter such as [?price > \`10\`] or keep the first items with [:10]`,
		);
	});

	it('refuses data over its cap before evaluating, and data that is not JSON', async () => {
		const tooBig = 'd'.repeat(JSON_TRANSFORM_MAX_DATA_LENGTH);
		expect((await rejectionOf(transform(tooBig, '@'))).message).toBe(
			`data is 1,000,002 characters of JSON, more than the limit of 1,000,000; pass only the part the expression needs`,
		);
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		expect((await rejectionOf(transform(cyclic, '@'))).message).toMatch(
			/^data must be JSON: Converting circular structure/,
		);
	});
});

describe('json_transform reads own properties only', () => {
	// An inherited function would render as null too, so the lookups are also checked where their value decides the result.
	it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf'])(
		'%s on an object without that own key is null',
		async (key) => {
			await expect(transform({}, key)).resolves.toBeNull();
			await expect(transform({ name: 'ada' }, `${key} || 'absent'`)).resolves.toBe('absent');
			await expect(transform({ name: 'ada' }, `type(${key})`)).resolves.toBe('null');
		},
	);

	it('also reads own properties only on objects the expression builds', async () => {
		await expect(transform({ a: 1 }, "not_null({copy: a} | constructor, 'absent')")).resolves.toBe(
			'absent',
		);
		await expect(
			transform({ a: 1 }, 'not_null(merge(@, `{"b": 2}`) | toString, \'absent\')'),
		).resolves.toBe('absent');
	});

	it('reads own keys named constructor and __proto__ and keeps them in results', async () => {
		const data = JSON.parse(
			'{"constructor": "mine", "__proto__": {"x": 1}, "hasOwnProperty": true}',
		);
		await expect(transform(data, 'constructor')).resolves.toBe('mine');
		await expect(transform(data, '__proto__.x')).resolves.toBe(1);
		await expect(transform(data, 'hasOwnProperty')).resolves.toBe(true);
		await expect(transform(data, 'keys(@)')).resolves.toEqual([
			'constructor',
			'__proto__',
			'hasOwnProperty',
		]);

		const built = (await transform({ a: 1 }, '{"__proto__": a}')) as object;
		expect(Object.keys(built)).toEqual(['__proto__']);
		expect(JSON.stringify(built)).toBe('{"__proto__":1}');
	});
});

describe('json_transform keeps its results and messages', () => {
	it.each([
		['items[?price > `10`].name', ['lamp', 'chair']],
		['length(users)', 2],
		['sort_by(items, &price)[-1].name', 'chair'],
		['max_by(items, &price).price', 80],
		['items[?contains(tags, `"home"`)] | [0].name', 'lamp'],
		["join(', ', users)", 'ada, grace'],
		[
			'items[:2].{label: name, cost: price}',
			[
				{ label: 'pen', cost: 3 },
				{ label: 'lamp', cost: 25 },
			],
		],
		['`{"fixed": [1, 2]}`', { fixed: [1, 2] }],
		["'a string'", 'a string'],
		['missing.deeper', null],
		['items[*].tags[]', ['office', 'home', 'office', 'home']],
		['to_string(length(items))', '3'],
	])('%s gives the same result as jmespath itself', async (expression, expected) => {
		const result = await transform(catalogue, expression);
		expect(result).toEqual(expected);
		expect(result).toEqual(jmespath.search(catalogue, expression));
	});

	it('keeps the hints for unquoted dashed keys and unknown functions, naming the expression', async () => {
		expect((await rejectionOf(transform({ 'user-id': 7 }, 'user-id'))).message).toBe(
			'invalid JMESPath expression "user-id": Unexpected token type: Number, value: NaN. Hints: quote keys that contain dashes or spaces with double quotes, e.g. "user-id"; write literal numbers in backticks, e.g. [?age > `30`], and strings in single quotes.',
		);
		expect((await rejectionOf(transform(catalogue, 'average(items[*].price)'))).message).toBe(
			'invalid JMESPath expression "average(items[*].price)": Unknown function: average(). Hints: JMESPath functions include length, keys, values, sort_by, max_by, min_by, contains, join, to_string.',
		);
		expect((await rejectionOf(transform(catalogue, 'sort_by(@, &price)'))).message).toMatch(
			/^invalid JMESPath expression "sort_by\(@, &price\)": TypeError: sort_by\(\) expected argument 1 to be type array/,
		);
	});
});
