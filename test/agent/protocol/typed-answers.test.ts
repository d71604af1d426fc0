import { ConfigError } from '../../../src/settings/config';
import { runAgent } from '../../../src/agent/run-agent';
import { action, final, lastUserMessage, modelFor, useScriptedServer } from '../../support/agent';
import { rejectionOf } from '../../support/rejection';

/** Issue #16: the final answer checked against `output_schema`, through the real SDKs against the scripted server. */

const INVOICE = {
	type: 'object',
	properties: {
		total: { type: 'number' },
		currency: { type: 'string', enum: ['EUR', 'USD'] },
		note: { type: 'string' },
	},
	required: ['total', 'currency'],
	additionalProperties: false,
} as const;

const typedFinal = (answer: unknown) => JSON.stringify({ type: 'final', answer });

describe.each(['openai', 'gemini'] as const)(
	'typed answers through the real %s SDK',
	(provider) => {
		const server = useScriptedServer();
		const run = (config: Record<string, unknown> = {}) =>
			runAgent({
				model: modelFor(server(), provider),
				config: { model: 'scripted-model', output_schema: INVOICE, ...config },
				prompt: 'What does the invoice total?',
			});

		it('a matching answer is final_output as the value itself, and final_answer as its JSON text', async () => {
			server().setScript([typedFinal({ total: 12.5, currency: 'EUR' })]);
			const result = await run();
			expect(result).toMatchObject({
				finish_reason: 'final',
				final_output: { total: 12.5, currency: 'EUR' },
				final_answer: '{"total":12.5,"currency":"EUR"}',
			});
			expect(result.trace[0].final).toEqual({ answer: { total: 12.5, currency: 'EUR' } });
			expect(result.messages[1]).toEqual({
				role: 'assistant',
				content: '{"total":12.5,"currency":"EUR"}',
			});
		});

		it('accepts a string holding JSON that matches, and reports the parsed value', async () => {
			server().setScript([final('{"total": 3, "currency": "USD"}')]);
			const result = await run();
			expect(result).toMatchObject({
				finish_reason: 'final',
				final_output: { total: 3, currency: 'USD' },
				final_answer: '{"total":3,"currency":"USD"}',
			});
		});

		it('tells the model the schema in the system prompt, and what the answer must be', async () => {
			server().setScript([typedFinal({ total: 1, currency: 'EUR' })]);
			await run();
			const system = server().requests[0].messages[0].content;
			expect(system).toContain('{"type":"final","answer":<JSON value matching the output schema>}');
			expect(system).toContain(`Output schema: ${JSON.stringify(INVOICE)}`);
		});

		it('gives a wrong-typed answer the repair turn with path: problem lines, then takes the repaired answer', async () => {
			server().setScript([
				typedFinal({ total: '12.50', currency: 'EUR' }),
				typedFinal({ total: 12.5, currency: 'EUR' }),
			]);
			const result = await run();
			expect(result).toMatchObject({
				finish_reason: 'final',
				final_output: { total: 12.5, currency: 'EUR' },
			});
			expect(result.trace[0]).toMatchObject({
				error: { type: 'output_invalid' },
				reply_excerpt: typedFinal({ total: '12.50', currency: 'EUR' }),
			});
			expect(result.trace[0].final).toBeUndefined();
			expect(result.trace[1].repair).toBe(true);
			const repair = lastUserMessage(server(), 1);
			expect(repair).toContain('answer.total: must be number');
			expect(repair).toContain('This is your one repair turn');
		});

		it('names every problem of a mismatched answer: missing, unknown and out-of-enum fields', async () => {
			server().setScript([
				typedFinal({ currency: 'GBP', extra: 1 }),
				typedFinal({ total: 2, currency: 'EUR' }),
			]);
			await run();
			const repair = lastUserMessage(server(), 1);
			expect(repair).toContain('answer: missing required property "total"');
			expect(repair).toContain('answer: unknown property "extra" is not allowed');
			expect(repair).toContain('answer.currency: must be one of "EUR", "USD"');
		});

		it('ends output_invalid when the repaired answer does not match either, with no final_output', async () => {
			server().setScript([typedFinal({ total: 'a lot' }), final('about twelve euros')]);
			const result = await run();
			expect(result).toMatchObject({ finish_reason: 'output_invalid', final_answer: '' });
			expect(result).not.toHaveProperty('final_output');
			expect(result.stop_detail).toMatch(
				/^two failed turns in a row; last: Your final answer does not match the output schema:\nanswer: must be object/,
			);
			expect(result.trace.map((step) => step.error?.type)).toEqual([
				'output_invalid',
				'output_invalid',
			]);
		});

		it('a tool step then a typed answer: the schema applies to the final answer only', async () => {
			server().setScript([
				action('json_transform', { data: { lines: [5, 7.5] }, expression: 'sum(lines)' }),
				typedFinal({ total: 12.5, currency: 'EUR' }),
			]);
			const result = await run({ allowed_tools: ['json_transform'] });
			expect(result).toMatchObject({
				finish_reason: 'final',
				final_output: { total: 12.5, currency: 'EUR' },
			});
			expect(result.trace[0].observation).toBe('12.5');
		});

		it('takes any JSON value the schema describes: an array, a number', async () => {
			server().setScript([typedFinal([1, 2, 3])]);
			const list = await run({ output_schema: { type: 'array', items: { type: 'integer' } } });
			expect(list).toMatchObject({ final_output: [1, 2, 3], final_answer: '[1,2,3]' });
			server().setScript([typedFinal(7)]);
			const count = await run({ output_schema: { type: 'number' } });
			expect(count).toMatchObject({ final_output: 7, final_answer: '7' });
		});

		it('streams the typed answer as its JSON text once it matched, and voids the text of an answer that did not', async () => {
			server().setScript([
				final('twelve fifty'),
				{ chunks: ['{"type":"final","answer":{"total":', '12.5,"currency":"EUR"}}'] },
			]);
			const events: Array<{ type: string; text?: string }> = [];
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { model: 'scripted-model', output_schema: INVOICE },
				prompt: 'total?',
				onEvent: (event) => events.push(event),
			});
			expect(result.final_output).toEqual({ total: 12.5, currency: 'EUR' });
			const afterLastRestart = events.slice(
				events.map((event) => event.type).lastIndexOf('answer_restart') + 1,
			);
			expect(
				afterLastRestart
					.filter((event) => event.type === 'answer_delta')
					.map((event) => event.text)
					.join(''),
			).toBe(result.final_answer);
		});

		it('a string schema keeps a string answer as it is in final_answer', async () => {
			server().setScript([final('Bonjour')]);
			const result = await run({ output_schema: { type: 'string', maxLength: 20 } });
			expect(result).toMatchObject({ final_output: 'Bonjour', final_answer: 'Bonjour' });
		});
	},
);

describe('without output_schema nothing changes', () => {
	const server = useScriptedServer();

	it('an object answer is still a protocol error with its repair text, and no final_output is set', async () => {
		server().setScript([typedFinal({ total: 1 }), final('1 EUR')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm' },
			prompt: 'q',
		});
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: '1 EUR' });
		expect(result).not.toHaveProperty('final_output');
		expect(result.trace[0].error?.type).toBe('parse_error');
		expect(server().requests[0].messages[0].content).toMatch(
			/^Reply with one JSON object: \{"type":"final","answer":"\.\.\."\}\. There are no tools\.$/,
		);
	});
});

describe('output_schema in the config', () => {
	const server = useScriptedServer();
	const configured = (output_schema: unknown) =>
		runAgent({
			model: modelFor(server()),
			config: { model: 'm', output_schema } as never,
			prompt: 'q',
		});

	it('refuses a schema that is not an object, naming output_schema and showing one', async () => {
		const error = await rejectionOf(configured('number'));
		expect(error).toBeInstanceOf(ConfigError);
		expect(error).toMatchObject({ key: 'output_schema' });
		expect((error as Error).message).toMatch(
			/^output_schema must be a JSON Schema object, e\.g\. \{"type":"object"/,
		);
	});

	it('refuses an invalid JSON Schema before any model call, naming output_schema', async () => {
		const error = await rejectionOf(
			configured({ type: 'object', properties: { total: { type: 'money' } } }),
		);
		expect(error).toMatchObject({ key: 'output_schema' });
		expect((error as Error).message).toMatch(
			/^output_schema is not a valid JSON Schema draft-07: /,
		);
		expect(server().requests).toHaveLength(0);
	});

	it('treats an empty value from a panel field as no schema', async () => {
		server().setScript([final('plain')]);
		const result = await configured('');
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'plain' });
		expect(result).not.toHaveProperty('final_output');
	});
});
