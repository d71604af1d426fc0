// Issue #50 "each built-in check at each point it allows, with true and false matches": every check × every point,
// in a run — a true find ends the run (or denies the call) there, a near miss passes.
import { runAgent } from '../../../src/agent/run-agent';
import { action, final, modelFor, probeTool, useScriptedServer } from '../../support/agent';

type Target = 'input' | 'tool_call' | 'observation' | 'answer';

/** Per check: its entry's own keys, a text it finds, and a near miss it must not find. */
const CHECKS: Array<[string, Record<string, unknown>, string, string]> = [
	[
		'pii email',
		{ check: 'pii', kinds: ['email'] },
		'write to ana@shop.example',
		'write to ana at shop',
	],
	['pii phone', { check: 'pii', kinds: ['phone'] }, 'call +44 20 7946 0958', 'order 2024 was fine'],
	[
		'pii credit_card',
		{ check: 'pii', kinds: ['credit_card'] },
		'card 4111 1111 1111 1111',
		'ref 4111 1111 1111 1112',
	],
	[
		'pii iban',
		{ check: 'pii', kinds: ['iban'] },
		'pay GB82 WEST 1234 5698 7654 32',
		'pay GB82 WEST 1234 5698 7654 33',
	],
	['pii ip_address', { check: 'pii', kinds: ['ip_address'] }, 'host 192.168.10.4', 'version 1.2.3'],
	[
		'secrets',
		{ check: 'secrets' },
		'key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD',
		'key is in the vault',
	],
	[
		'urls',
		{ check: 'urls', allowed_hosts: ['api.example.com'] },
		'see https://evil.example.net/x',
		'see https://api.example.com/x',
	],
	[
		'pattern',
		{ check: 'pattern', pattern: 'internal[ -]only' },
		'this is internal-only',
		'this is internal, not only',
	],
	[
		'keywords',
		{ check: 'keywords', keywords: ['project falcon'] },
		'about Project Falcon today',
		'about falconry projects',
	],
];
const TARGETS: Target[] = ['input', 'tool_call', 'observation', 'answer'];

describe('every built-in check at every point, in a run', () => {
	const server = useScriptedServer();

	/** A run whose `target` holds `text`: the prompt, the call's args, what the tool returns, or the answer. */
	async function runWith(target: Target, entry: Record<string, unknown>, text: string) {
		const probe = probeTool('note', async () =>
			target === 'observation' ? { said: text } : { ok: true },
		);
		const tool = { ...probe.tool, parameters: { type: 'object', additionalProperties: true } };
		server().setScript([
			action('note', target === 'tool_call' ? { text } : { text: 'plain' }),
			final(target === 'answer' ? text : 'all plain'),
		]);
		const action_ = target === 'tool_call' ? 'deny_call' : 'block';
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['note'],
				guardrails: [{ name: 'the-check', ...entry, on: [target], action: action_ }],
			} as never,
			prompt: target === 'input' ? `Please note: ${text}` : 'Please note it',
			extraTools: [tool],
		});
		return { result, ran: probe.calls.length };
	}

	describe.each(CHECKS)('%s', (_, entry, found, missed) => {
		it.each(TARGETS)('finds it in the %s, and lets the near miss through', async (target) => {
			const hit = await runWith(target, entry, found);
			if (entry.check === 'secrets' && target === 'observation') {
				// The run's redactor replaces every secret shape in an observation before any hook sees it: there is
				// nothing left to find, and the key never reaches the model.
				expect(hit.result.finish_reason).toBe('final');
				expect(JSON.stringify(server().requests)).not.toContain('sk-proj-');
			} else if (target === 'tool_call') {
				expect(hit.result.finish_reason).toBe('final');
				expect(hit.ran).toBe(0);
				expect(hit.result.trace[0].guardrails?.[0]).toMatchObject({
					decision: 'deny',
					point: 'before_tool',
				});
			} else {
				expect(hit.result.finish_reason).toBe('guardrail');
				expect(hit.result.guardrails_tripped).toBe(1);
			}
			const miss = await runWith(target, entry, missed);
			expect(miss.result.finish_reason).toBe('final');
			expect(miss.result.guardrails_tripped).toBe(0);
			expect(miss.ran).toBe(1);
		});
	});
});
