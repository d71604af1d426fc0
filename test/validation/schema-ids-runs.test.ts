// Issue #48: runs and tools whose schemas share an `$id` with other content each check by their own schema.
import { runAgent } from '../../src/agent/run-agent';
import type { Tool } from '../../src/tools/tool';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import { useLoopbackGuard } from '../support/servers/http-servers';
import { startTestMcpServer, text, type RunningMcpServer } from '../support/servers/mcp-servers';

useLoopbackGuard();
const server = useScriptedServer();
const typedFinal = (answer: unknown) => JSON.stringify({ type: 'final', answer });

/** An object schema under the shared `$id`, with one required property of one type, closed. */
const shared = (property: string, type: string) => ({
	$id: 'urn:example:shared',
	type: 'object',
	properties: { [property]: { type } },
	required: [property],
	additionalProperties: false,
});

describe('two runs whose output_schema has the same $id and other content', () => {
	const run = (output_schema: Record<string, unknown>) =>
		runAgent({
			model: modelFor(server()),
			config: { model: 'm', output_schema },
			prompt: 'Answer.',
		});

	it('each run checks its answer by its own schema', async () => {
		server().setScript([typedFinal({ total: 12 })]);
		expect(await run(shared('total', 'number'))).toMatchObject({
			finish_reason: 'final',
			final_output: { total: 12 },
		});
		server().setScript([typedFinal({ total: 12 }), typedFinal({ name: 'Ada' })]);
		const second = await run(shared('name', 'string'));
		expect(second).toMatchObject({ finish_reason: 'final', final_output: { name: 'Ada' } });
		expect(second.trace[0].error).toMatchObject({ type: 'output_invalid' });
		server().setScript([typedFinal({ name: 'Ada' }), typedFinal({ total: 7 })]);
		const third = await run(shared('total', 'number'));
		expect(third).toMatchObject({ finish_reason: 'final', final_output: { total: 7 } });
		expect(third.trace[0].error).toMatchObject({ type: 'output_invalid' });
	});
});

describe('two tools of one run whose schemas share an $id', () => {
	it('library tools: the run works and each tool checks its args by its own schema', async () => {
		const calls: Record<string, unknown[]> = { price: [], label: [] };
		const tool = (name: string, property: string, type: string): Tool => ({
			name,
			description: `Looks up a ${name}.`,
			parameters: shared(property, type),
			async execute(args) {
				calls[name].push(args);
				return 'ok';
			},
		});
		server().setScript([
			action('price', { label: 'x' }),
			action('price', { sku: 4 }),
			action('label', { sku: 4 }),
			action('label', { text: 'x' }),
			final('done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['price', 'label'] },
			extraTools: [tool('price', 'sku', 'integer'), tool('label', 'text', 'string')],
			prompt: 'Price and label.',
		});
		expect(result.finish_reason).toBe('final');
		expect(calls).toEqual({ price: [{ sku: 4 }], label: [{ text: 'x' }] });
		expect(result.trace.map((step) => step.error?.type)).toEqual([
			'invalid_args',
			undefined,
			'invalid_args',
			undefined,
			undefined,
		]);
	});

	describe('MCP tools', () => {
		let shop: RunningMcpServer;
		beforeAll(async () => {
			shop = await startTestMcpServer(() => [
				{ name: 'price', inputSchema: shared('sku', 'integer'), call: () => text('12') },
				{ name: 'label', inputSchema: shared('text', 'string'), call: () => text('printed') },
				{
					name: 'peek',
					description: 'A hostile schema that points at the $id the other tools declare.',
					inputSchema: { type: 'object', properties: { steal: { $ref: 'urn:example:shared' } } },
					call: () => text('peeked'),
				},
			]);
		});
		afterAll(() => shop.close());

		it('the run works, each checks by its own schema, one whose $ref names their $id is left out', async () => {
			server().setScript([
				action('shop.price', { text: 'x' }),
				action('shop.price', { sku: 4 }),
				action('shop.label', { text: 'x' }),
				action('shop.peek', { steal: { sku: 1 } }),
				final('done'),
			]);
			const result = await runAgent({
				model: modelFor(server()),
				config: {
					model: 'm',
					allowed_tools: ['shop.*'],
					mcp_servers: [{ name: 'shop', url: shop.url, allow_private_network: true }],
				},
				prompt: 'Price and label.',
			});
			expect(result.finish_reason).toBe('final');
			expect(shop.calls('price').map((call) => call.arguments)).toEqual([{ sku: 4 }]);
			expect(shop.calls('label').map((call) => call.arguments)).toEqual([{ text: 'x' }]);
			expect(shop.calls('peek')).toEqual([]);
			expect(result.trace[0].error).toEqual({
				type: 'invalid_args',
				message:
					'shop.price args are invalid: args: missing required property "sku"; ' +
					'args: unknown property "text" is not allowed',
			});
			const left = result.trace[0].notices?.find((notice) => notice.startsWith('shop.peek'));
			expect(left).toMatch(
				'shop.peek is left out: the input schema of shop.peek has $ref "urn:example:shared" ' +
					'at /properties/steal/$ref that does not point to a schema inside this one',
			);
		});
	});
});
