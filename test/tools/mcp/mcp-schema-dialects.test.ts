// MCP tool schemas are JSON Schema 2020-12 unless they say otherwise (MCP 2025-11-25): checked end to end against a server built with the SDK's own Server.
import { runAgent } from '../../../src/agent/run-agent';
import { createChatModel } from '../../../src/providers/create-model';
import { action, final, useScriptedServer } from '../../support/agent';
import { useLoopbackGuard } from '../../support/servers/http-servers';
import { startTestMcpServer, text, type RunningMcpServer } from '../../support/servers/mcp-servers';

useLoopbackGuard();
const scripted = useScriptedServer();
const model = () =>
	createChatModel({
		provider: 'openai',
		apiKey: 'sk-test',
		baseUrl: scripted().openaiBaseUrl,
		maxRetries: 0,
	});

describe('an MCP server whose tool schemas use 2020-12 keywords without $schema', () => {
	let shop: RunningMcpServer;
	beforeAll(async () => {
		shop = await startTestMcpServer(() => [
			{
				name: 'pay',
				description: 'Charges a card.',
				inputSchema: {
					type: 'object',
					properties: { amount: { type: 'number' }, card: { type: 'string' } },
					dependentRequired: { card: ['amount'] },
					unevaluatedProperties: false,
				},
				call: () => text('charged'),
			},
			{
				name: 'move',
				description: 'Moves a piece to a square.',
				inputSchema: {
					type: 'object',
					properties: {
						to: {
							type: 'array',
							prefixItems: [{ type: 'string' }, { type: 'integer' }],
							items: false,
						},
					},
					required: ['to'],
				},
				call: () => text('moved'),
			},
			{
				name: 'legacy',
				description:
					'A draft-07 tuple, without $schema: MCP reads it as 2020-12, where additionalItems is not a keyword.',
				inputSchema: {
					type: 'object',
					properties: {
						pair: { type: 'array', items: [{ type: 'string' }], additionalItems: false },
					},
				},
				call: () => text('legacy'),
			},
		]);
	});
	afterAll(() => shop.close());

	it('never sends the call its schema forbids (the model reads why), sends a valid prefixItems call, and reads a schema without $schema as 2020-12', async () => {
		scripted().setScript([
			action('shop.pay', { amount: 5, card: '4111', admin: true }),
			action('shop.move', { to: ['e', 4] }),
			final('done'),
		]);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['shop.*'],
				mcp_servers: [{ name: 'shop', url: shop.url, allow_private_network: true }],
			},
			prompt: 'Pay and move.',
		});
		expect(shop.calls('pay')).toEqual([]);
		expect(shop.calls('move').map((call) => call.arguments)).toEqual([{ to: ['e', 4] }]);
		expect(result.trace[0].error).toEqual({
			type: 'invalid_args',
			message: 'shop.pay args are invalid: args: unknown property "admin" is not allowed',
		});
		expect(result.trace[1].error).toBeUndefined();
		expect(result.finish_reason).toBe('final');
		expect(result.trace[0].notices).toContain(
			'shop.legacy is left out: the input schema of shop.legacy uses "additionalItems" (at /properties/pair), which JSON Schema 2020-12 does not define, so it would be ignored. ' +
				'In 2020-12, write the tuple as "prefixItems" and what follows it as "items"; or declare draft-07 with "$schema": "http://json-schema.org/draft-07/schema#".',
		);
		// The model is shown the schema without the dialect it was given.
		expect(JSON.stringify(scripted().requests[0].messages)).not.toContain('draft/2020-12');
	});
});
