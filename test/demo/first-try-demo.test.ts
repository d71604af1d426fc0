// The no-key demo on first try (issue #28): in n8n's engine, the defaults say in one sentence why they cannot answer the demo question, and the chat example answers it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../nodes/AgentCore/AgentCore.node';
import {
	DEMO_PROMPT,
	DEMO_TOOL_NOT_ALLOWED,
	DEMO_UNKNOWN_QUESTION,
	demoModel,
} from '../../src/demo/demo-model';
import { useScriptedServer } from '../support/agent';
import { runWorkflow } from '../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../support/test-nodes';

/** What n8n's Chat Trigger emits for one message (its chatInput is what Agent Core's default Prompt reads). */
const chatMessage = (text: string): IDataObject => ({
	sessionId: 'first-try-session',
	action: 'sendMessage',
	chatInput: text,
});

const CHAT_EXAMPLE = 'agent-core-simple-chat.json';

/** The Agent Core node of the chat example, as the file has it. */
function chatExampleAgentCore(): INode {
	const workflow = JSON.parse(
		readFileSync(path.join(__dirname, '..', '..', 'examples', CHAT_EXAMPLE), 'utf8'),
	);
	return workflow.nodes.find((node: INode) => node.type === 'n8n-nodes-agent-core.agentCore');
}

describe('the no-key demo on the defaults and in the chat example', () => {
	const server = useScriptedServer({ script: demoModel });

	async function chat(text: string, node: Pick<INode, 'parameters' | 'typeVersion'>) {
		const result = await runWorkflow({
			nodes: [
				createInputNode([chatMessage(text)]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: node.typeVersion,
					parameters: node.parameters,
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'Demo model' } } },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'demo', url: server().openaiBaseUrl } },
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		return result.outputOf('Agent Core')[0].json;
	}

	/** A new node: only the provider's credential and a model set, everything else at its default. */
	const defaults: INodeParameters = {
		provider: 'openai',
		model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
	};

	it('a new node at its defaults answers the demo question with one sentence naming the tool to allow', async () => {
		const json = await chat(DEMO_PROMPT, { parameters: defaults, typeVersion: 1 });

		expect(json).toMatchObject({
			finish_reason: 'final',
			output: DEMO_TOOL_NOT_ALLOWED,
			used_tools: {},
		});
		// Said at once: no refused tool call, no repair turn.
		expect(server().requests).toHaveLength(1);
	});

	it('the demo model says in one sentence that it answers only the catalogue question', async () => {
		const json = await chat('What is the capital of France?', {
			parameters: defaults,
			typeVersion: 1,
		});

		expect(json).toMatchObject({ finish_reason: 'final', output: DEMO_UNKNOWN_QUESTION });
		expect(String(json.output).match(/\.\s/g)).toBeNull();
	});

	it('the question pasted with the shell escapes of a curl line gets a sentence with the fix, not a failed call', async () => {
		const escaped = DEMO_PROMPT.replace(/"/g, '\\"');
		const json = await chat(escaped, {
			parameters: { ...defaults, allowedTools: ['json_transform'] },
			typeVersion: 1,
		});
		expect(json.finish_reason).toBe('final');
		expect(String(json.output)).toMatch(
			/^The catalogue in your message is not valid JSON, so the demo model cannot read it: paste the question exactly as `npm run dev` prints it after "Ask:" \(/,
		);
	});

	it('the README prints the demo question as the demo model reads it, ready to paste', () => {
		const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
		expect(readme).toContain(`\n${DEMO_PROMPT}\n`);
	});

	it('the demo model says how many earlier turns it sees, so memory shows without a key', () => {
		const reply = demoModel({
			messages: [
				{ role: 'system', content: 'rules' },
				{ role: 'user', content: 'My name is Ada' },
				{ role: 'assistant', content: '{"type":"final","answer":"Hello"}' },
				{ role: 'user', content: 'What is my name?' },
			],
		} as never);
		expect(JSON.parse(reply as string).answer).toBe(
			`${DEMO_UNKNOWN_QUESTION} I can see 1 earlier turn; your previous message was "My name is Ada".`,
		);
	});

	it(`the chat example (examples/${CHAT_EXAMPLE}) answers the demo question from a chat message, without Redis`, async () => {
		const node = chatExampleAgentCore();
		expect(node.credentials).not.toHaveProperty('agentCoreRedisApi');

		const json = await chat(DEMO_PROMPT, node);

		expect(json).toMatchObject({
			finish_reason: 'final',
			output: 'In stock and under 50 EUR: Desk lamp and USB-C hub.',
			used_tools: { json_transform: { count: 1 } },
		});
		expect(server().requests).toHaveLength(2);
	});
});
