import type { IDataObject } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { AgentContext } from '../../../../nodes/AgentContext/AgentContext.node';
import { agentContextProperties } from '../../../../nodes/AgentContext/description';
import { agentCoreProperties } from '../../../../nodes/AgentCore/V1/description';
import { final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

const defaultOf = (properties: Array<{ name: string; default?: unknown }>, name: string) =>
	String(properties.find((property) => property.name === name)?.default);
// A space more: no longer the default's text, so n8n's expression engine evaluates it.
const evaluatedByN8n = (expression: string) => expression.replace('{{ ', '{{  ');

/**
 * Issue #20: fields left at their default expressions are computed in JavaScript instead of
 * by n8n's expression engine; for every shape of item, the outcome is the one n8n's own evaluation gives.
 */
describe('default expressions computed directly', () => {
	const server = useScriptedServer();
	const items: IDataObject[] = [
		{ chatInput: 'from chat', sessionId: 'chat-session' },
		{ body: { prompt: 'from a webhook body' }, session_id: 'agent-context-session' },
		{ prompt: 'from the item', session_id: 'a', sessionId: 'b' },
		{ chatInput: '', prompt: 'not used' },
		{
			chatInput: null,
			body: { prompt: null },
			prompt: 'third choice',
			session_id: null,
			sessionId: 'second choice',
		},
		{ body: 'not an object', prompt: 'with a string body' },
	];

	/** Each item's prompt as the model received it and its session, with the field as given. */
	async function outcomes(prompt: string, sessionId: string) {
		server().setScript((request) =>
			final(`got ${String(request.messages[request.messages.length - 1].content)}`),
		);
		const result = await runWorkflow({
			nodes: [
				createInputNode(items),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: { model: { __rl: true, mode: 'id', value: 'm' }, prompt, sessionId },
					settings: {
						credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } },
						continueOnFail: true,
					},
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
		});
		return result.outputOf('Agent Core').map((item) => ({
			answer: item.json.final_answer,
			session: item.json.session_id,
			error: item.json.error,
		}));
	}

	it('give what n8n’s evaluation of the same expressions gives, item by item', async () => {
		const prompt = defaultOf(agentCoreProperties, 'prompt');
		const sessionId = defaultOf(agentCoreProperties, 'sessionId');
		expect(prompt).toBe('={{ $json.chatInput ?? $json.body?.prompt ?? $json.prompt }}');
		const evaluated = await outcomes(evaluatedByN8n(prompt), evaluatedByN8n(sessionId));
		const computed = await outcomes(prompt, sessionId);
		expect(computed).toEqual(evaluated);
		expect(computed.map((outcome) => outcome.answer)).toEqual([
			'got from chat',
			'got from a webhook body',
			'got from the item',
			undefined,
			'got third choice',
			'got with a string body',
		]);
		// An empty chatInput is the prompt (?? keeps ''), and an empty prompt is refused, naming the field.
		expect(computed[3].error).toMatch(/prompt/i);
		expect(computed.map((outcome) => outcome.session)).toEqual([
			'chat-session',
			'agent-context-session',
			'a',
			undefined,
			'second choice',
			undefined,
		]);
	});

	it('Agent Context’s Session ID, User Message and Messages give what n8n’s evaluation gives', async () => {
		const contextItems: IDataObject[] = [
			{
				session_id: 's1',
				chatInput: 'hello',
				messages: [
					{ role: 'user', content: 'hello' },
					{ role: 'assistant', content: 'hi' },
				],
			},
			{
				body: { session_id: 's2', prompt: 'from a body' },
				messages: [
					{ role: 'user', content: 'from a body' },
					{ role: 'assistant', content: 'ok' },
				],
			},
			{ sessionId: 's3', prompt: 'from the item', messages: [] },
			{ body: { prompt: 'no session' } },
		];
		const run = async (operation: 'prepare' | 'persist', fields: IDataObject) => {
			const result = await runWorkflow({
				nodes: [
					createInputNode(contextItems),
					createNode({
						name: 'Context',
						type: 'agentContext',
						parameters: {
							operation,
							storage: 'memory',
							...fields,
							options: {
								keyPrefix: `defaults-${operation}-${Object.keys(fields).join('')}-${Math.random()}:`,
							},
						},
						settings: { continueOnFail: true },
					}),
				],
				connections: connectInSequence('Input', 'Context'),
				nodeTypes: { agentContext: new AgentContext() },
			});
			return result.outputOf('Context').map((item) => item.json);
		};
		const fields = (transform: (expression: string) => string, names: string[]) =>
			Object.fromEntries(
				names.map((name) => [name, transform(defaultOf(agentContextProperties, name))]),
			);
		for (const [operation, names] of [
			['prepare', ['sessionId', 'userMessage']],
			['persist', ['sessionId', 'messages']],
		] as const) {
			const computed = await run(
				operation,
				fields((expression) => expression, [...names]),
			);
			const evaluated = await run(operation, fields(evaluatedByN8n, [...names]));
			const comparable = (outputs: IDataObject[]) =>
				outputs.map(({ error, session_id, messages_json, context }) => ({
					error,
					session_id,
					messages_json,
					stored: (context as IDataObject | undefined)?.stored_turns,
				}));
			expect(comparable(computed)).toEqual(comparable(evaluated));
			expect(computed[0].session_id).toBe('s1');
		}
	});
});
