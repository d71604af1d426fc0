// Issue #50 through the node, in n8n's engine: version 2's Options → Guardrails denies a call and blocks an
// answer, refuses a field it cannot use by name, and shows each decision in n8n's AI events and intermediate steps.
import type { INodeParameters, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { AgentCoreV1 } from '../../../../nodes/AgentCore/V1/agent-core-v1';
import { AgentCoreV2 } from '../../../../nodes/AgentCore/V2/agent-core-v2';
import { stepGuardrails } from '../../../../nodes/AgentCore/execute/output/guardrail-notes';
import { action, final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

const CARD = '4111 1111 1111 1111'; // passes Luhn
const SECRET_PLAN = 'internal only: we launch on the fifth';
const NO_ANSWER = 'No answer: a guardrail stopped the run.';

const noCards = {
	name: 'no-cards',
	check: 'pii',
	kinds: ['credit_card'],
	on: ['tool_call'],
	action: 'deny_call',
};
const internal = {
	name: 'internal',
	check: 'pattern',
	pattern: 'internal only',
	on: ['answer'],
	action: 'block',
};

describe('Agent Core version 2: Options → Guardrails in n8n’s engine', () => {
	const server = useScriptedServer();

	async function run(options: INodeParameters, typeVersion = 2, streaming = false) {
		return runWorkflow({
			streaming,
			nodes: [
				createInputNode([{ prompt: 'Pay the order' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion,
					parameters: {
						provider: 'openai',
						model: { __rl: true, mode: 'id', value: 'scripted-model' },
						allowedTools: ['json_transform'],
						options,
					},
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'Scripted OpenAI' } } },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
		});
	}
	const itemOf = (result: Awaited<ReturnType<typeof run>>) =>
		result.outputOf('Agent Core')[0].json as Record<string, any>;

	it('denies a tool call carrying a card number: the call never runs, the model reads why, the run goes on', async () => {
		server().setScript([
			action('json_transform', { data: { card: CARD }, expression: 'card' }),
			final('I could not use the card.'),
		]);
		const result = await run({
			guardrails: JSON.stringify([noCards]),
			returnIntermediateSteps: true,
		});
		const json = itemOf(result);
		expect(json.finish_reason).toBe('final');
		expect(json.output).toBe('I could not use the card.');
		expect(json.guardrails_tripped).toBe(1);
		const told = JSON.stringify(server().requests[1].messages.at(-1));
		expect(told).toContain('was denied before it ran');
		expect(told).toContain('no-cards');
		const decision = {
			name: 'no-cards',
			by: 'guardrail',
			point: 'before_tool',
			decision: 'deny',
			tool: 'json_transform',
		};
		expect(json.trace[0].guardrails).toEqual([expect.objectContaining(decision)]);
		// n8n's event log: the decision rides on step 1's model call; the call never ran, so no tool event.
		expect(result.aiEvents.map((entry) => entry.event)).toEqual([
			'ai-llm-generated-output',
			'ai-llm-generated-output',
		]);
		expect(JSON.parse(result.aiEvents[0].msg)).toMatchObject({
			step: 1,
			guardrails: [decision],
		});
		expect(JSON.parse(result.aiEvents[1].msg)).not.toHaveProperty('guardrails');
		// The Logs view's output: the intermediate step names the guardrail, the point and the decision.
		expect(json.intermediateSteps).toEqual([
			expect.objectContaining({
				action: expect.objectContaining({ tool: 'json_transform' }),
				observation: expect.stringContaining('denied'),
				guardrails: [decision],
			}),
		]);
	});

	it('puts the decisions on the tool event of a call that ran and was redacted after', async () => {
		server().setScript([
			action('json_transform', { data: { to: 'mia@example.com' }, expression: 'to' }),
			final('sent'),
		]);
		const hide = {
			name: 'hide',
			check: 'pii',
			kinds: ['email'],
			on: ['observation'],
			action: 'redact',
		};
		const result = await run({ guardrails: JSON.stringify([hide]) });
		expect(itemOf(result).trace[0].observation).toContain('[redacted:hide]');
		const tool = result.aiEvents.find((entry) => entry.event === 'ai-tool-called')!;
		expect(JSON.parse(tool.msg)).toMatchObject({
			tool: 'json_transform',
			ok: true,
			guardrails: [
				{
					name: 'hide',
					by: 'guardrail',
					point: 'after_tool',
					decision: 'redact',
					tool: 'json_transform',
				},
			],
		});
		expect(result.aiEvents.map((entry) => entry.msg).join()).not.toContain('mia@example.com');
	});

	it('blocks an answer: finish_reason guardrail and the chat’s one sentence, never the matched text', async () => {
		server().setScript([final(`The plan is ${SECRET_PLAN}.`)]);
		const result = await run({ guardrails: JSON.stringify([internal]) });
		expect(result.errorOf('Agent Core')).toBeUndefined();
		const json = itemOf(result);
		expect(json.finish_reason).toBe('guardrail');
		expect(json.output).toBe(NO_ANSWER);
		expect(json.stop_detail).toContain('"internal"');
		expect(json.stop_detail).toContain('after_run');
		expect(json.guardrails_tripped).toBe(1);
		expect(JSON.stringify(json)).not.toContain('we launch on the fifth');
		expect(JSON.parse(result.aiEvents[0].msg).guardrails).toEqual([
			{ name: 'internal', by: 'guardrail', point: 'after_run', decision: 'block' },
		]);
	});

	it.each([
		['not JSON', '[{"name": "x",', /^Guardrails is not valid JSON: /, /^Fix the JSON/],
		[
			'an unknown kind',
			JSON.stringify([{ ...noCards, kinds: ['passport'] }]),
			/^guardrails\[0\]\.kinds\[0\]: unknown kind "passport": use email, phone/,
			/^Correct the value of Options → Guardrails → \[0\]\.kinds\[0\]\.$/,
		],
		[
			'an unknown check',
			JSON.stringify([{ ...noCards, check: 'piii' }]),
			/^guardrails\[0\]\.check: unknown check "piii"/,
			/^Write "pii" in Options → Guardrails → \[0\]\.check\.$/,
		],
	])(
		'refuses a Guardrails field that is %s, naming the field, the entry and the fix, before any model call',
		async (_what, guardrails, message, fix) => {
			const result = await run({ guardrails });
			const error = result.errorOf('Agent Core') as Error & { description?: string };
			expect(error?.message).toMatch(message);
			expect(error.description).toMatch(fix);
			expect(server().requests).toHaveLength(0);
		},
	);

	it('has no Guardrails field in version 1, and a version 1 workflow carrying one runs without it', async () => {
		const optionsOf = (description: INodeTypeDescription) =>
			(description.properties.find((field) => field.name === 'options')?.options ??
				[]) as INodeProperties[];
		const base = new AgentCore().description;
		const names = (node: { description: INodeTypeDescription }) =>
			optionsOf(node.description).map((field) => field.name);
		expect(names(new AgentCoreV2(base))).toContain('guardrails');
		expect(names(new AgentCoreV1(base))).not.toContain('guardrails');
		server().setScript([final(`The plan is ${SECRET_PLAN}.`)]);
		const result = await run({ guardrails: JSON.stringify([internal]) }, 1);
		const json = itemOf(result);
		expect(json.finish_reason).toBe('final');
		expect(json).not.toHaveProperty('guardrails_tripped');
	});

	it('names the file a before_run decision checked, and leaves out its reason and hashes', () => {
		const step = {
			step: 1,
			repair: false,
			elapsed_ms: 0,
			model_ms: 0,
			guardrails: [
				{
					name: 'hide',
					by: 'guardrail' as const,
					point: 'before_run' as const,
					decision: 'redact' as const,
					file: 'orders.csv',
					reason: 'a reason',
					seen_sha256: 'a'.repeat(64),
					changed_sha256: 'b'.repeat(64),
				},
			],
		};
		expect(stepGuardrails(step)).toEqual({
			guardrails: [
				{
					name: 'hide',
					by: 'guardrail',
					point: 'before_run',
					decision: 'redact',
					file: 'orders.csv',
				},
			],
		});
		expect(stepGuardrails({ ...step, guardrails: [] })).toEqual({});
	});

	describe('streaming (a Webhook in Response Mode Streaming)', () => {
		const streamed = (result: Awaited<ReturnType<typeof run>>) =>
			result.chunks
				.filter((chunk) => chunk.type === 'item')
				.map((chunk) => chunk.content)
				.join('');

		it('streams the answer as the model writes it when no guardrail checks it', async () => {
			server().setScript([final(`The plan is ${SECRET_PLAN}.`)]);
			const result = await run({}, 2, true);
			// As written: the answer goes out in the pieces the model sends, the secret plan among them.
			const types = result.chunks.map((chunk) => chunk.type);
			expect(types.filter((type) => type === 'item').length).toBeGreaterThan(1);
			expect([types[0], types.at(-1)]).toEqual(['begin', 'end']);
			expect(streamed(result)).toBe(`The plan is ${SECRET_PLAN}.`);
		});

		it('never sends an answer an answer guardrail blocks', async () => {
			server().setScript([final(`The plan is ${SECRET_PLAN}.`)]);
			const result = await run({ guardrails: JSON.stringify([internal]) }, 2, true);
			expect(itemOf(result).finish_reason).toBe('guardrail');
			// Held until checked, then blocked: the stream carries only the chat's one sentence.
			expect(result.chunks.map((chunk) => chunk.type)).toEqual(['begin', 'item', 'end']);
			expect(streamed(result)).toBe('No answer: a guardrail stopped the run.');
			expect(JSON.stringify(result.chunks)).not.toContain('launch');
			expect(JSON.stringify(result.chunks)).not.toContain('The plan is');
		});

		it('sends an answer an answer guardrail redacts only as redacted', async () => {
			server().setScript([final('Write to mia@example.com today.')]);
			const hide = {
				name: 'hide',
				check: 'pii',
				kinds: ['email'],
				on: ['answer'],
				action: 'redact',
			};
			const result = await run({ guardrails: JSON.stringify([hide]) }, 2, true);
			expect(itemOf(result).output).toBe('Write to [redacted:hide] today.');
			// Held until checked, then sent redacted in one piece.
			expect(result.chunks.filter((chunk) => chunk.type === 'item')).toEqual([
				expect.objectContaining({ content: 'Write to [redacted:hide] today.' }),
			]);
			expect(JSON.stringify(result.chunks)).not.toContain('mia@example.com');
		});
	});
});
