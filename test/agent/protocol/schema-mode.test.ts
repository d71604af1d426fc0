import OpenAI from 'openai';
import { protocolSchema } from '../../../src/agent/protocol/protocol-schema';
import { runAgent } from '../../../src/agent/run-agent';
import { validateAgainst } from '../../../src/validation/validate';
import type { Tool } from '../../../src/tools/tool';
import {
	action,
	final,
	modelFor,
	probeTool,
	startsScriptedServers,
	useScriptedServer,
} from '../../support/agent';

/**
 * Issue #16: `json_mode: "json_schema"` compiles the protocol (the allowed tools with their own args
 * schemas, and the answer) into one output schema, sent through the real SDKs; ajv still checks every reply.
 */

/** A tool whose args fit OpenAI's strict subset, with an optional field. */
function lookupTool(calls: unknown[]): Tool {
	return {
		name: 'lookup_order',
		description: 'Looks up an order by id.',
		parameters: {
			type: 'object',
			properties: { id: { type: 'string' }, fields: { type: 'array', items: { type: 'string' } } },
			required: ['id'],
			additionalProperties: false,
		},
		async execute(args) {
			calls.push(args);
			return { id: (args as { id: string }).id, status: 'shipped' };
		},
	};
}

const INVOICE = {
	type: 'object',
	properties: { total: { type: 'number' }, currency: { type: 'string' } },
	required: ['total', 'currency'],
};

describe('json_schema through the real openai SDK', () => {
	const server = useScriptedServer();

	it('sends one strict schema whose tool enum and args branches are exactly the allowed tools, plus the answer', async () => {
		const calls: unknown[] = [];
		const { tool: probe } = probeTool();
		server().setScript([final('done')]);
		await runAgent({
			model: modelFor(server()),
			config: {
				model: 'gpt-4o-mini',
				json_mode: 'json_schema',
				allowed_tools: ['lookup_order', 'probe'],
			},
			extraTools: [lookupTool(calls), probe, probeTool('not_allowed').tool],
			prompt: 'q',
		});
		const format = server().requests[0].body.response_format;
		expect(format).toMatchObject({
			type: 'json_schema',
			json_schema: { name: 'agent_turn', strict: true },
		});
		const schema = format.json_schema.schema;
		expect(schema.properties.type).toEqual({
			type: 'string',
			enum: ['action', 'actions', 'final'],
		});
		expect(schema.properties.tool.enum).toEqual(['lookup_order', 'probe', null]);
		// "actions" (max_parallel_calls 4 by default): at most 4 calls, each a tool of the same enum and its args.
		const batch = schema.properties.calls;
		expect(batch).toMatchObject({ type: ['array', 'null'], maxItems: 4 });
		expect(batch.items.properties.tool.enum).toEqual(['lookup_order', 'probe']);
		expect(batch.items.required).toEqual(['tool', 'args']);
		expect(schema.properties.args.anyOf.map((branch: { title?: string }) => branch.title)).toEqual([
			'args of lookup_order',
			'args of probe',
			undefined,
		]);
		expect(schema.properties.args.anyOf[2]).toEqual({ type: 'null' });
		expect(schema.properties.answer).toEqual({ type: ['string', 'null'] });
		expect(JSON.stringify(schema)).not.toContain('not_allowed');
		expect(schema).toMatchObject({
			additionalProperties: false,
			required: ['type', 'tool', 'args', 'calls', 'answer'],
		});
	});

	it('reads a strict "actions" reply, with null for the fields that do not apply, and runs each call', async () => {
		const calls: unknown[] = [];
		server().setScript([
			JSON.stringify({
				type: 'actions',
				tool: null,
				args: null,
				calls: [
					{ tool: 'lookup_order', args: { id: 'A-1', fields: null } },
					{ tool: 'lookup_order', args: { id: 'B-2', fields: null } },
				],
				answer: null,
			}),
			JSON.stringify({
				type: 'final',
				tool: null,
				args: null,
				calls: null,
				answer: 'Both shipped.',
			}),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'gpt-4o-mini', json_mode: 'json_schema', allowed_tools: ['lookup_order'] },
			extraTools: [lookupTool(calls)],
			prompt: 'Where are A-1 and B-2?',
		});
		expect(result.finish_reason).toBe('final');
		expect(calls).toEqual([{ id: 'A-1' }, { id: 'B-2' }]);
	});

	it('reads a strict reply with nulls for what does not apply: the tool runs without the optional field, the answer ends the run', async () => {
		const calls: unknown[] = [];
		server().setScript([
			JSON.stringify({
				type: 'action',
				tool: 'lookup_order',
				args: { id: 'A-1', fields: null },
				answer: null,
			}),
			JSON.stringify({ type: 'final', tool: null, args: null, answer: 'Order A-1 has shipped.' }),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'gpt-4o-mini', json_mode: 'json_schema', allowed_tools: ['lookup_order'] },
			extraTools: [lookupTool(calls)],
			prompt: 'Where is A-1?',
		});
		expect(result).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Order A-1 has shipped.',
		});
		expect(calls).toEqual([{ id: 'A-1' }]);
		expect(result.trace[0].action).toEqual({ tool: 'lookup_order', args: { id: 'A-1' } });
	});

	it('puts output_schema in the answer branch, strict, and checks the answer with its nulls taken out', async () => {
		server().setScript([
			JSON.stringify({
				type: 'final',
				tool: null,
				args: null,
				answer: { total: 12.5, currency: 'EUR', note: null },
			}),
		]);
		const schema = {
			...INVOICE,
			properties: { ...INVOICE.properties, note: { type: 'string' } },
			additionalProperties: false,
		};
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'gpt-4o-mini', json_mode: 'json_schema', output_schema: schema },
			prompt: 'q',
		});
		expect(result).toMatchObject({
			finish_reason: 'final',
			final_output: { total: 12.5, currency: 'EUR' },
		});
		const sent = server().requests[0].body.response_format.json_schema;
		expect(sent.strict).toBe(true);
		expect(sent.schema.properties.answer).toEqual({
			type: 'object',
			properties: {
				total: { type: 'number' },
				currency: { type: 'string' },
				note: { type: ['string', 'null'] },
			},
			required: ['total', 'currency', 'note'],
			additionalProperties: false,
		});
	});

	it('sends a schema that cannot be strict with strict: false, and a notice naming the tool and why', async () => {
		server().setScript([final('done')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'gpt-4o-mini', json_mode: 'json_schema', allowed_tools: ['json_transform'] },
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('final');
		const sent = server().requests[0].body.response_format.json_schema;
		expect(sent.strict).toBe(false);
		expect(sent.schema.properties.args.anyOf[0].properties.data).toEqual({
			description: 'The JSON value to transform (object, array or scalar).',
		});
		expect(result.trace[0].notices).toEqual([
			'json_schema: the protocol schema cannot be strict (json_transform args: (root).data: a schema without "type" (any JSON value) cannot be strict); it is sent with strict: false',
		]);
	});

	it('the strict schema it sends passes the emulated strict-mode check (no 400), so the first call is the only call', async () => {
		const { tool } = probeTool();
		server().setScript([
			JSON.stringify({
				type: 'final',
				tool: null,
				args: null,
				answer: { total: 1, currency: 'EUR' },
			}),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'gpt-4o-mini',
				json_mode: 'json_schema',
				allowed_tools: ['probe'],
				output_schema: INVOICE,
			},
			extraTools: [tool],
			prompt: 'q',
		});
		expect(result).toMatchObject({
			finish_reason: 'final',
			final_output: { total: 1, currency: 'EUR' },
		});
		expect(result.trace[0].notices).toBeUndefined();
		expect(server().requests).toHaveLength(1);
		expect(server().requests[0].body.response_format.json_schema.strict).toBe(true);
	});
});

describe('a schema the endpoint refuses', () => {
	const start = startsScriptedServers();

	it.each(['openai', 'gemini'] as const)(
		'falls back to plain JSON mode once on %s, with a notice, and later calls go without the schema',
		async (provider) => {
			const server = await start({ rejectJsonSchema: true });
			const { tool, calls } = probeTool();
			server.setScript([action('probe', { value: 1 }), final('done')]);
			const result = await runAgent({
				model: modelFor(server, provider),
				config: { model: 'm', json_mode: 'json_schema', allowed_tools: ['probe'] },
				extraTools: [tool],
				prompt: 'q',
			});
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'done' });
			expect(calls).toHaveLength(1);
			expect(result.trace[0].notices?.join(' ')).toMatch(
				/the endpoint rejected json_schema \(.*\); retried without the output schema \(plain JSON mode instead\)/,
			);
			const shapes = server.requests.map((request) =>
				provider === 'openai'
					? request.body.response_format.type
					: `${request.body.generationConfig.responseMimeType}${request.body.generationConfig.responseJsonSchema ? '+schema' : ''}`,
			);
			expect(shapes).toEqual(
				provider === 'openai'
					? ['json_schema', 'json_object', 'json_object']
					: ['application/json+schema', 'application/json', 'application/json'],
			);
		},
	);
});

describe('json_schema through the real @google/genai SDK', () => {
	const server = useScriptedServer();

	it('sends the compiled protocol as responseJsonSchema with the JSON mime type, the output schema in the answer', async () => {
		const { tool } = probeTool();
		server().setScript([JSON.stringify({ type: 'final', answer: { total: 3, currency: 'USD' } })]);
		const result = await runAgent({
			model: modelFor(server(), 'gemini'),
			config: {
				model: 'gemini-2.5-flash',
				json_mode: 'json_schema',
				allowed_tools: ['probe'],
				output_schema: INVOICE,
			},
			extraTools: [tool],
			prompt: 'q',
		});
		expect(result).toMatchObject({
			finish_reason: 'final',
			final_output: { total: 3, currency: 'USD' },
		});
		const config = server().requests[0].body.generationConfig;
		expect(config.responseMimeType).toBe('application/json');
		expect(config.responseJsonSchema.properties.tool).toEqual({ type: 'string', enum: ['probe'] });
		expect(config.responseJsonSchema.properties.args.anyOf).toHaveLength(1);
		expect(config.responseJsonSchema.properties.answer).toEqual(INVOICE);
	});

	it('sends no schema in json_object mode, only the JSON mime type', async () => {
		server().setScript([final('ok')]);
		await runAgent({
			model: modelFor(server(), 'gemini'),
			config: { model: 'gemini-2.5-flash' },
			prompt: 'q',
		});
		expect(server().requests[0].body.generationConfig).toMatchObject({
			responseMimeType: 'application/json',
		});
		expect(server().requests[0].body.generationConfig.responseJsonSchema).toBeUndefined();
	});
});

describe('the scripted server refuses what OpenAI strict mode refuses (provider-behaviours.md §1.4)', () => {
	const server = useScriptedServer();
	const send = (schema: Record<string, unknown>) =>
		new OpenAI({
			apiKey: 'k',
			baseURL: server().openaiBaseUrl,
			maxRetries: 0,
		}).chat.completions.create({
			model: 'gpt-4o-mini',
			messages: [{ role: 'user', content: 'json' }],
			response_format: {
				type: 'json_schema',
				json_schema: { name: 'agent_turn', schema, strict: true },
			},
		});

	it.each([
		[
			{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
			"In context=(), 'additionalProperties' is required to be supplied and to be false.",
		],
		[
			{
				type: 'object',
				properties: { a: { type: 'string' }, b: { type: 'string' } },
				required: ['a'],
				additionalProperties: false,
			},
			"In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'b'.",
		],
		[
			{
				type: 'object',
				properties: { a: { type: 'string', not: { const: 'x' } } },
				required: ['a'],
				additionalProperties: false,
			},
			"In context=('properties', 'a'), 'not' is not permitted.",
		],
	])('400 for %j', async (schema, problem) => {
		await expect(send(schema)).rejects.toMatchObject({
			status: 400,
			param: 'response_format',
			message: `400 Invalid schema for response_format 'agent_turn': ${problem}`,
		});
	});
});

describe('schemas with $refs inside the compiled protocol', () => {
	const TREE = {
		type: 'object',
		properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
		required: ['name'],
		additionalProperties: false,
	};
	const NODE_ARGS = {
		type: 'object',
		$defs: { id: { type: 'string', pattern: '^n-\\d+$' } },
		properties: { id: { $ref: '#/$defs/id' } },
		required: ['id'],
	};
	const tool = (name: string, parameters: Record<string, unknown>): Tool => ({
		name,
		description: name,
		parameters,
		execute: async () => 'ok',
	});

	it('keeps an output schema’s and a tool schema’s own $refs pointing into them, not at the protocol object', () => {
		const schema = protocolSchema(
			[tool('first', { type: 'object' }), tool('find_node', NODE_ARGS)],
			TREE,
		);
		const properties = schema.properties as Record<string, any>;
		expect(properties.answer.properties.children.items).toEqual({ $ref: '#/properties/answer' });
		expect(properties.args.anyOf[1].properties.id).toEqual({
			$ref: '#/properties/args/anyOf/1/$defs/id',
		});
		expect(
			validateAgainst(schema, {
				type: 'final',
				answer: { name: 'root', children: [{ name: 'leaf', children: [] }] },
			}).ok,
		).toBe(true);
		// Embedded as it was, "#" named the protocol object: a child holding a protocol turn passed.
		expect(
			validateAgainst(schema, {
				type: 'final',
				answer: { name: 'root', children: [{ type: 'final', answer: { name: 'x' } }] },
			}).ok,
		).toBe(false);
		expect(
			validateAgainst(schema, { type: 'action', tool: 'find_node', args: { id: 'n-7' } }).ok,
		).toBe(true);
	});
});
