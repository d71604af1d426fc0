import OpenAI from 'openai';
import { runAgent } from '../../src/agent/run-agent';
import { action, final, lastUserMessage, modelFor, useScriptedServer } from '../support/agent';

/**
 * Issue #15: Claude in credential mode, through Anthropic's OpenAI SDK compatibility endpoint, emulated as
 * provider-behaviours.md §3 [D-a-compat] describes it: JSON mode and reasoning_effort ignored, system text
 * hoisted, temperature capped at 1. Agent Core's protocol and its repair turn carry the format there.
 */
describe('Claude through Anthropic’s OpenAI-compatible endpoint (real openai SDK)', () => {
	const server = useScriptedServer({ anthropicOpenAiCompat: true });
	const CLAUDE = 'claude-sonnet-4-5';

	it('runs a tool step then a final answer although the endpoint ignores JSON mode, Claude fencing its JSON', async () => {
		server().setScript([
			'```json\n' +
				action('json_transform', { data: { items: [3, 4] }, expression: 'sum(items)' }) +
				'\n```',
			final('The items add up to 7.'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: CLAUDE, allowed_tools: ['json_transform'] },
			prompt: 'Add 3 and 4 with the tool.',
		});
		expect(result).toMatchObject({
			finish_reason: 'final',
			final_answer: 'The items add up to 7.',
			model: CLAUDE,
		});
		expect(result.trace[0].observation).toBe('7');
		// Sent, and ignored: no 400, no notice, no retry without it.
		expect(server().requests.map((request) => request.body.response_format)).toEqual([
			{ type: 'json_object' },
			{ type: 'json_object' },
		]);
		expect(result.trace.flatMap((step) => step.notices ?? [])).toEqual([]);
	});

	it('repairs prose that Claude writes around the object, as JSON mode would have prevented', async () => {
		server().setScript(['Sure! Here is my answer: {"type":"final","answer":"4"}', final('4')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: CLAUDE },
			prompt: '2+2?',
		});
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: '4' });
		expect(result.trace[0].error?.type).toBe('parse_error');
		expect(lastUserMessage(server(), 1)).toContain('Your reply had text before the JSON object.');
	});

	it('Claude’s one hoisted system prompt holds the protocol rules, the tools and the workflow’s instructions', async () => {
		server().setScript([final('ok')]);
		await runAgent({
			model: modelFor(server()),
			config: { model: CLAUDE, allowed_tools: ['json_transform'] },
			messages: [
				{ role: 'system', content: 'Conversation rule: answer in French.' },
				{ role: 'user', content: 'Bonjour' },
			],
			developerText: 'Task: greet the customer.',
		});
		const [system, ...turns] = server().requests[0].messages;
		expect(system.role).toBe('system');
		expect(system.content).toMatch(/^Reply with one JSON object: /);
		expect(system.content).toContain('- json_transform: ');
		expect(system.content).toContain('Conversation rule: answer in French.');
		expect(system.content).toContain('Task: greet the customer.');
		expect(turns.map((message) => message.role)).toEqual(['user']);
	});

	it('a temperature above 1 and a reasoning effort are sent and not refused; Claude gets the temperature capped at 1', async () => {
		server().setScript([final('ok')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: CLAUDE, temperature: 1.5, reasoning_effort: 'high' },
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('final');
		expect(server().requests).toHaveLength(1);
		expect(server().requests[0].body).toMatchObject({ temperature: 1.5, reasoning_effort: 'high' });
		expect(server().requests[0].effectiveTemperature).toBe(1);
	});

	it('the emulation refuses n other than 1, as the endpoint does', async () => {
		const client = new OpenAI({ apiKey: 'k', baseURL: server().openaiBaseUrl, maxRetries: 0 });
		await expect(
			client.chat.completions.create({
				model: CLAUDE,
				messages: [{ role: 'user', content: 'q' }],
				n: 2,
			}),
		).rejects.toMatchObject({ status: 400, param: 'n' });
	});
});
