import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/settings/config';
import { runAgent } from '../../src/agent/run-agent';
import { builtInTools } from '../../src/tools/registry';
import type { Tool } from '../../src/tools/tool';
import { SCHEMA_LIMITS } from '../../src/validation/schema-limits';
import { assertValidSchema, validateAgainst } from '../../src/validation/validate';
import { action, lastUserMessage, modelFor, useScriptedServer } from '../support/agent';
import { startServer, useLoopbackGuard } from '../support/servers/http-servers';
import { runCli } from '../support/cli';
import { rejectionOf } from '../support/rejection';
import { loadScaledMs, useEventLoopWatchdog } from '../support/watchdog';

/** Issue #26, typed answers: schemas from the operator cannot freeze the process, recurse forever or fetch anything. */

const EVIL = '^(a+)+$';
/** 29 characters took JavaScript's RegExp 13.5 s; each extra one doubles it. */
const EVIL_TEXT = `${'a'.repeat(28)}!`;
const typedFinal = (answer: unknown) => JSON.stringify({ type: 'final', answer });

function toolWith(
	parameters: Record<string, unknown>,
	name = 'lookup',
): { tool: Tool; calls: unknown[] } {
	const calls: unknown[] = [];
	return {
		calls,
		tool: {
			name,
			description: 'Looks something up.',
			parameters,
			execute: async (args) => (calls.push(args), 'found'),
		},
	};
}

/** Lets the watchdog's timer fire after synchronous work, so the stall it caused is recorded for this test. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

function timed<T>(work: () => T): { value: T; ms: number } {
	const started = performance.now();
	const value = work();
	return { value, ms: performance.now() - started };
}

describe('schema patterns run in linear time (RE2), wherever the schema comes from', () => {
	useEventLoopWatchdog('schemas');
	const server = useScriptedServer();

	it('an output_schema pattern that backtracks exponentially in JavaScript ends the run promptly as output_invalid', async () => {
		server().setScript([typedFinal(EVIL_TEXT), typedFinal(`${'a'.repeat(150_000)}!`)]);
		const started = performance.now();
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', timeout: 20, output_schema: { type: 'string', pattern: EVIL } },
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('output_invalid');
		// Backtracking, this text holds the event loop for far longer than any bound here (the run timeout could not
		// even fire); checked linearly it takes milliseconds. Load adds seconds at most, so the bound is generous.
		expect(performance.now() - started).toBeLessThan(10_000);
		expect(lastUserMessage(server(), 1)).toContain(`answer: must match pattern "${EVIL}"`);
	});

	it('the same pattern in a tool argument schema refuses the call without running the tool, promptly', async () => {
		const { tool, calls } = toolWith({
			type: 'object',
			properties: { code: { type: 'string', pattern: EVIL } },
			required: ['code'],
		});
		server().setScript([
			action('lookup', { code: EVIL_TEXT }),
			action('lookup', { code: `${'a'.repeat(100_000)}!` }),
		]);
		const started = performance.now();
		const result = await runAgent({
			model: modelFor(server()),
			extraTools: [tool],
			config: { model: 'm', timeout: 20, allowed_tools: ['lookup'] },
			prompt: 'q',
		});
		expect(calls).toHaveLength(0);
		// Two invalid calls in a row end the run as tool errors do.
		expect(result.finish_reason).toBe('tool_error');
		expect(result.trace.map((step) => step.error?.type)).toEqual(['invalid_args', 'invalid_args']);
		expect(result.trace[0].error?.message).toContain('args.code: must match pattern "^(a+)+$"');
		expect(performance.now() - started).toBeLessThan(10_000);
	});

	it('catastrophic patterns nested in items, patternProperties, propertyNames, if/then and $defs all match in linear time', async () => {
		const schema = {
			type: 'object',
			$defs: { code: { type: 'string', pattern: EVIL } },
			properties: {
				list: { type: 'array', items: { type: 'string', pattern: '^(a|aa)+$' } },
				map: {
					type: 'object',
					patternProperties: { '^(a+)+$': { type: 'number' } },
					propertyNames: { pattern: '^(a*)*b?$' },
				},
				ref: { $ref: '#/$defs/code' },
				conditional: { if: { type: 'string' }, then: { pattern: '^(\\w+\\s?)*$' } },
			},
		};
		const long = 'a'.repeat(5_000);
		const value = {
			list: [`${long}!`, `${long}!`],
			map: { [`${long}!`]: 'not a number' },
			ref: `${long}!`,
			conditional: `${'word '.repeat(2_000)}!`,
		};
		const { value: result, ms } = timed(() => validateAgainst(schema, value, 'answer'));
		await settle();
		expect(result.ok).toBe(false);
		expect(ms).toBeLessThan(loadScaledMs(500));
		const issues = (result as { issues: string[] }).issues.join('\n');
		expect(issues).toContain('answer.list[0]: must match pattern "^(a|aa)+$"');
		expect(issues).toContain('answer.ref: must match pattern "^(a+)+$"');
		expect(issues).toContain('answer.conditional: must match pattern');
		expect(issues).toContain('answer.map: must match pattern "^(a*)*b?$"');
	});

	it('matches unicode patterns as JavaScript does with the u flag', () => {
		const schema = { type: 'string', pattern: '^[\\p{L}\\u{1F600}]+$' };
		expect(validateAgainst(schema, 'Grüße😀').ok).toBe(true);
		expect(validateAgainst(schema, 'Grüße 1').ok).toBe(false);
		expect(validateAgainst({ type: 'string', pattern: '^.$' }, '😀').ok).toBe(true);
	});

	it('a text too long to match within the time budget fails the check with a sentence, instead of stalling', async () => {
		const heavy = { type: 'string', pattern: '(a|b)*a(a|b){20}c$' };
		const text = `${'ab'.repeat(100_000)}c`;
		const { value: result, ms } = timed(() => validateAgainst(heavy, text, 'answer'));
		await settle();
		expect(result).toEqual({
			ok: false,
			issues: [
				expect.stringMatching(
					/^answer: checking a text of 200,001 characters against pattern .* would take [\d,]+ RE2 steps .*$/,
				),
			],
		});
		// The budget counts RE2 steps; a test fails only on a stall of seconds (this machine is shared): the watchdog reports the rest.
		expect(ms).toBeLessThan(2_000);
	});

	it('a 40,000-item value of wrong items against a 10-variant union is refused promptly with its first problem', async () => {
		const variants = Array.from({ length: 10 }, (_, index) => ({
			type: 'object',
			properties: { kind: { const: `k${index}` } },
			required: ['kind'],
		}));
		const schema = { type: 'array', items: { anyOf: variants } };
		validateAgainst(schema, []); // compiled outside the measurement
		const { value: result, ms } = timed(() =>
			validateAgainst(
				schema,
				Array.from({ length: 40_000 }, () => 1),
				'answer',
			),
		);
		await settle();
		expect(result.ok).toBe(false);
		// Stopped at the first item: listing every problem took 150 ms and 440,000 errors.
		expect((result as { issues: string[] }).issues).toEqual([
			'answer[0]: must be object',
			'answer[0]: must match a schema in anyOf',
		]);
		expect(ms).toBeLessThan(2_000);
	});

	it('uniqueItems over 40,000 objects is checked in linear time (ajv compared every pair: 1.07 s for 10,000, so about 17 s here), key order ignored', async () => {
		const schema = { type: 'array', uniqueItems: true };
		const distinct = Array.from({ length: 40_000 }, (_, index) => ({
			id: index,
			tags: ['a', 'b'],
		}));
		const { value: result, ms } = timed(() => validateAgainst(schema, distinct, 'answer'));
		await settle();
		expect(result.ok).toBe(true);
		// Sized so that the pairwise check would take many seconds: no tight timing on a shared machine.
		expect(ms).toBeLessThan(3_000);
		expect(
			validateAgainst(
				schema,
				[
					{ a: 1, b: [2] },
					{ b: [2], a: 1 },
				],
				'answer',
			),
		).toEqual({
			ok: false,
			issues: ['answer: must NOT have duplicate items (items ## 0 and 1 are identical)'],
		});
		expect(validateAgainst(schema, [1, '1', [1], { x: 1 }]).ok).toBe(true);
	});

	it('an enum of 999 objects against a 150,000-item array is checked by lookup: no slower than an enum of 10 (ajv compared each entry: 214 ms for 10,000, so about 3 s here)', async () => {
		const array = Array.from({ length: 150_000 }, () => ({ unit: 'kg', code: 9 }));
		/** The fastest of three checks of the array against an enum of `size` objects (load only ever adds time). */
		const checkWith = (size: number) => {
			const schema = {
				type: 'array',
				items: { enum: Array.from({ length: size }, (_, index) => ({ code: index, unit: 'kg' })) },
			};
			validateAgainst(schema, []);
			let fastest = Infinity;
			let result: ReturnType<typeof validateAgainst> | undefined;
			for (let attempt = 0; attempt < 3; attempt++) {
				const run = timed(() => validateAgainst(schema, array, 'answer'));
				[fastest, result] = [Math.min(fastest, run.ms), run.value];
			}
			return { fastest, result: result! };
		};
		const ten = checkWith(10);
		const many = checkWith(999);
		await settle();
		expect(many.result.ok).toBe(true);
		// Compared entry by entry, 999 entries take about 100 times as long as 10; looked up, about as long. Both are
		// measured in the same moment, so the ratio holds on a loaded machine where a bound in milliseconds does not.
		expect(many.fastest / ten.fastest).toBeLessThan(5);
		expect(validateAgainst({ enum: ['EUR', 'USD', { a: [1] }] }, { a: [2] }, 'answer')).toEqual({
			ok: false,
			issues: ['answer: must be one of "EUR", "USD", {"a":[1]}'],
		});
	});

	it('every built-in tool schema compiles on the same engine', () => {
		for (const tool of builtInTools)
			expect(() => assertValidSchema(tool.parameters, tool.name)).not.toThrow();
	});
});

describe('patterns RE2 cannot run are refused at config time, naming whose schema it is', () => {
	useEventLoopWatchdog('schemas');
	const server = useScriptedServer();
	const configured = (output_schema: unknown, extraTools: Tool[] = []) =>
		runAgent({
			model: modelFor(server()),
			extraTools,
			config: {
				model: 'm',
				output_schema,
				allowed_tools: extraTools.map((tool) => tool.name),
			} as never,
			prompt: 'q',
		});

	it.each([
		['a lookahead', '^(?=.*\\d).{8,}$', /uses a lookahead or lookbehind.*"allOf"/],
		['a lookbehind', '(?<!x)y', /uses a lookahead or lookbehind/],
		['a back-reference', '^(a)\\1$', /uses a back-reference.*Remove the back-reference/],
		[
			'an invalid pattern',
			'[a-',
			/is not a valid regular expression \(Unterminated character class\)/,
		],
	])('%s in output_schema, before any model call', async (_, pattern, message) => {
		const error = await rejectionOf(
			configured({ type: 'object', properties: { code: { type: 'string', pattern } } }),
		);
		expect(error).toBeInstanceOf(ConfigError);
		expect(error).toMatchObject({ key: 'output_schema' });
		expect(error.message).toMatch(
			/^output_schema has pattern .* \(at \/properties\/code\/pattern\) that /,
		);
		expect(error.message).toMatch(message);
		expect(server().requests).toHaveLength(0);
	});

	it('a back-reference in a tool argument schema, naming the tool', async () => {
		const { tool } = toolWith({
			type: 'object',
			properties: { id: { type: 'string' } },
			patternProperties: { '^(x)\\1$': {} },
		});
		const error = await rejectionOf(configured(undefined, [tool]));
		expect(error).toBeInstanceOf(ConfigError);
		expect(error.message).toMatch(
			/^the args schema of tool "lookup" has pattern "\^\(x\)\\\\1\$" \(at \/patternProperties\) that uses a back-reference/,
		);
		expect(server().requests).toHaveLength(0);
	});
});

describe('schema size, nesting and $ref cycles are refused at config time, before any model call', () => {
	useEventLoopWatchdog('schemas');
	useLoopbackGuard();
	const server = useScriptedServer();
	const configured = (output_schema: unknown, extraTools: Tool[] = []) =>
		runAgent({
			model: modelFor(server()),
			extraTools,
			config: {
				model: 'm',
				output_schema,
				allowed_tools: extraTools.map((tool) => tool.name),
			} as never,
			prompt: 'q',
		});
	const refusal = async (output_schema: unknown, extraTools: Tool[] = []) => {
		const started = performance.now();
		const error = await rejectionOf(configured(output_schema, extraTools));
		expect(error).toBeInstanceOf(ConfigError);
		expect(server().requests).toHaveLength(0);
		expect(performance.now() - started).toBeLessThan(loadScaledMs(500));
		return error as ConfigError;
	};

	it('{"$ref":"#"}: a cycle that never consumes input', async () => {
		const error = await refusal({ $ref: '#' });
		expect(error.key).toBe('output_schema');
		expect(error.message).toMatch(
			/^output_schema has \$ref "#" at \/\$ref that leads back to a schema applying to the same value.*Recurse only through a part of the value/,
		);
	});

	it('a two-step cycle through $defs and allOf', async () => {
		const error = await refusal({
			$defs: {
				a: { allOf: [{ $ref: '#/$defs/b' }] },
				b: { anyOf: [{ $ref: '#/$defs/a' }, { type: 'null' }] },
			},
			$ref: '#/$defs/a',
		});
		expect(error.message).toMatch(/^output_schema has \$ref "#\/\$defs\/\w" at .* that leads back/);
	});

	it('a recursion that doubles at each level (two refs to the same definition for one value)', async () => {
		const doubling = {
			$defs: {
				node: {
					type: 'array',
					items: { anyOf: [{ $ref: '#/$defs/node' }, { $ref: '#/$defs/node' }] },
				},
			},
			$ref: '#/$defs/node',
		};
		const error = await refusal(doubling);
		expect(error.message).toMatch(
			/^output_schema has \$refs that apply more than 1000 schemas to one value \d+ levels deep/,
		);
	});

	it('references that fan out without recursion (a "billion laughs" of $refs)', async () => {
		const defs: Record<string, unknown> = { d12: { type: 'string' } };
		for (let level = 0; level < 12; level++)
			defs[`d${level}`] = {
				anyOf: [{ $ref: `#/$defs/d${level + 1}` }, { $ref: `#/$defs/d${level + 1}` }],
			};
		const error = await refusal({ $defs: defs, $ref: '#/$defs/d0' });
		expect(error.message).toMatch(
			/^output_schema has \$refs that apply more than 1000 schemas to one value,/,
		);
	});

	it('20,000 properties, 10,000 enum entries, 40 levels of nesting, 200,000 characters', async () => {
		const properties = Object.fromEntries(
			Array.from({ length: 20_000 }, (_, index) => [`p${index}`, { type: 'string' }]),
		);
		expect((await refusal({ type: 'object', properties })).message).toMatch(
			/^output_schema has more than 300 schema objects \(the root and every nested schema\)\. Make it smaller/,
		);
		expect(
			(await refusal({ enum: Array.from({ length: 10_000 }, (_, index) => `v${index}`) })).message,
		).toMatch(/^output_schema has more than 1000 enum and const values in all/);
		let deep: Record<string, unknown> = { type: 'string' };
		for (let level = 0; level < 40; level++) deep = { type: 'object', properties: { x: deep } };
		expect((await refusal(deep)).message).toMatch(
			/^output_schema nests schemas more than 32 levels deep/,
		);
		expect((await refusal({ type: 'string', description: 'x'.repeat(200_000) })).message).toMatch(
			/^output_schema is 200\d+ characters of JSON, more than 100000/,
		);
	});

	it('a schema nested 100,000 levels deep is refused, not a stack overflow', async () => {
		let deep: Record<string, unknown> = {};
		for (let level = 0; level < 100_000; level++) deep = { not: deep };
		expect((await refusal(deep)).message).toMatch(/^output_schema nests (JSON|schemas) more than/);
		let deepDefault: unknown = 1;
		for (let level = 0; level < 100_000; level++) deepDefault = [deepDefault];
		expect((await refusal({ type: 'string', default: deepDefault })).message).toMatch(
			/^output_schema nests JSON more than 64 levels deep/,
		);
	});

	it('the same limits apply to a tool schema, naming the tool', async () => {
		const { tool } = toolWith({
			type: 'object',
			properties: { tree: { $ref: '#/properties/tree' } },
		});
		const error = await refusal(undefined, [tool]);
		expect(error.key).toBe('the args schema of tool "lookup"');
		expect(error.message).toMatch(
			/^the args schema of tool "lookup" has \$ref "#\/properties\/tree" at \/properties\/tree\/\$ref that leads back/,
		);
	});

	it('a $ref to a URL is refused and never fetched', async () => {
		const target = await startServer((_, response) => response.end('{"type":"string"}'));
		const error = await refusal({
			type: 'object',
			properties: { a: { $ref: `${target.url}/schema.json` } },
		});
		expect(error.message).toMatch(
			/that does not point to a schema inside this one \(schemas are never fetched, and the "\$id" of another schema means nothing here\)/,
		);
		expect(target.connections).toBe(0);
	});

	it('the largest schema within the limits compiles in a fraction of the 20,000-property one', async () => {
		const properties = Object.fromEntries(
			Array.from({ length: SCHEMA_LIMITS.subschemas - 1 }, (_, index) => [
				`field_${index}`,
				{ type: 'string', maxLength: 20, description: `field ${index}` },
			]),
		);
		const schema = { type: 'object', properties, required: Object.keys(properties).slice(0, 50) };
		const { ms } = timed(() => assertValidSchema(schema, 'output_schema'));
		await settle();
		// Plain node on this machine: 34–72 ms; under jest's module sandbox about 300 ms, 1 s on a machine at load 10.
		// 20,000 properties took 1.3 s plain (about 6 s in the sandbox): the bound is what the limits keep it under.
		expect(ms).toBeLessThan(3_000);
	});
});

describe('recursive but legal schemas', () => {
	useEventLoopWatchdog('schemas');
	const server = useScriptedServer();
	const TREE = {
		type: 'object',
		properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
		required: ['name'],
	};
	const nested = (depth: number) => {
		let value: Record<string, unknown> = { name: 'leaf' };
		for (let level = 0; level < depth; level++) value = { name: `n${level}`, children: [value] };
		return value;
	};

	it('a tree schema takes a typed answer nested as deep as a reply may be', async () => {
		const answer = nested(30); // 61 levels of JSON inside the reply
		server().setScript([typedFinal(answer)]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', output_schema: TREE },
			prompt: 'q',
		});
		expect(result).toMatchObject({ finish_reason: 'final', final_output: answer });
	});

	it('common recursive and referencing schemas pass the checks: a binary tree, any JSON value, definitions, anchors, $id', () => {
		const accepted = [
			{
				type: 'object',
				properties: { value: { type: 'number' }, left: { $ref: '#' }, right: { $ref: '#' } },
			},
			{
				$defs: {
					json: {
						anyOf: [
							{ type: ['string', 'number', 'boolean', 'null'] },
							{ type: 'array', items: { $ref: '#/$defs/json' } },
							{ type: 'object', additionalProperties: { $ref: '#/$defs/json' } },
						],
					},
				},
				$ref: '#/$defs/json',
			},
			{
				definitions: { Address: { type: 'object', properties: { street: { type: 'string' } } } },
				type: 'object',
				properties: {
					home: { $ref: '#/definitions/Address' },
					work: { $ref: '#/definitions/Address' },
				},
			},
			{
				$defs: { id: { $anchor: 'id', type: 'string', pattern: '^[a-z]{3}-\\d+$' } },
				type: 'object',
				properties: { id: { $ref: '#id' } },
			},
			{
				$id: 'https://example.com/order.json',
				type: 'object',
				properties: { line: { $ref: 'https://example.com/order.json#/$defs/line' } },
				$defs: { line: { type: 'string' } },
			},
			{
				$defs: { 'any thing': true },
				type: 'object',
				properties: { free: { $ref: '#/$defs/any%20thing' } },
			},
			{ type: 'object', properties: { child: { $ref: '#' } }, additionalProperties: { $ref: '#' } },
		];
		for (const schema of accepted)
			expect(() => assertValidSchema(schema, 'output_schema')).not.toThrow();
		expect(validateAgainst(accepted[1], { a: [1, { b: ['x', null] }] }).ok).toBe(true);
		expect(validateAgainst(accepted[3], { id: 'abc-12' }).ok).toBe(true);
		expect(validateAgainst(accepted[3], { id: 'abc-x' }).ok).toBe(false);
	});

	it('a value nested 100,000 levels deep is refused with a sentence, not a stack overflow', () => {
		const result = validateAgainst(TREE, nested(50_000), 'answer');
		expect(result).toEqual({
			ok: false,
			issues: ['answer: nests objects or arrays more than 64 levels deep'],
		});
	});
});

describe('the CLI refuses a hostile output_schema with exit 2 before any model call', () => {
	useEventLoopWatchdog('schemas');
	const server = useScriptedServer();
	const directory = mkdtempSync(join(tmpdir(), 'hostile-schemas-'));

	it.each([
		[
			'{"$ref":"#"}',
			{ $ref: '#' },
			/^agent-core: output_schema has \$ref "#" at \/\$ref that leads back/,
		],
		[
			'a back-reference',
			{ type: 'string', pattern: '^(\\w+)\\s\\1$' },
			/^agent-core: output_schema has pattern .* \(at \/pattern\) that uses a back-reference/,
		],
		[
			'10,000 enum entries',
			{ enum: Array.from({ length: 10_000 }, (_, index) => index) },
			/^agent-core: output_schema has more than 1000 enum and const values in all/,
		],
	])('%s', async (_, output_schema, line) => {
		const config = join(directory, 'config.json');
		writeFileSync(config, JSON.stringify({ model: 'm', output_schema }));
		const run = await runCli([
			'run',
			'--config',
			config,
			'--prompt',
			'x',
			'--api-key',
			'k',
			'--base-url',
			server().openaiBaseUrl,
		]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe('');
		expect(run.stderr.trim().split('\n')).toHaveLength(1);
		expect(run.stderr).toMatch(line);
		expect(server().requests).toHaveLength(0);
	});
});
