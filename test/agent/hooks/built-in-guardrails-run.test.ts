// Issue #50: the built-in guardrails at each point a run meets them — input, each tool call, each observation,
// the answer — blocking, redacting and denying, with true and false finds, never quoting what they found.
import { runAgent } from '../../../src/agent/run-agent';
import { ConfigError } from '../../../src/core/config-error';
import {
	action,
	final,
	lastUserMessage,
	modelFor,
	probeTool,
	useScriptedServer,
} from '../../support/agent';

const CARD = '4111 1111 1111 1111'; // passes Luhn
const NOT_A_CARD = '4111 1111 1111 1112'; // fails Luhn
const actions = (...calls: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'actions', calls: calls.map(([tool, args]) => ({ tool, args })) });

/** A tool taking any args, recording what it ran with, returning `returns`. */
function noteTool(returns: unknown = { ok: true }) {
	return probeTool('note', async () => returns);
}
const openNote = (tool: ReturnType<typeof noteTool>['tool']) => ({
	...tool,
	parameters: { type: 'object', additionalProperties: true },
});

describe('built-in guardrails in a run', () => {
	const server = useScriptedServer();
	const run = (guardrails: unknown[], extra: Record<string, unknown> = {}, note = noteTool()) =>
		runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['note'], guardrails, ...extra } as never,
			prompt: 'Handle the order for mia@example.com',
			extraTools: [openNote(note.tool)],
		});

	it('redacts the user’s e-mail address before the model sees the input, and lists the decision on step 1', async () => {
		server().setScript([final('done')]);
		const hide = {
			name: 'hide-emails',
			check: 'pii',
			kinds: ['email'],
			on: ['input'],
			action: 'redact',
		};
		const result = await run([hide]);
		expect(result.finish_reason).toBe('final');
		expect(lastUserMessage(server(), 0)).toContain('[redacted:hide-emails]');
		expect(JSON.stringify(server().requests[0].messages)).not.toContain('mia@example.com');
		expect(result.trace[0].guardrails).toEqual([
			expect.objectContaining({
				name: 'hide-emails',
				point: 'before_run',
				decision: 'redact',
				by: 'guardrail',
			}),
		]);
		expect(result.guardrails_tripped).toBe(1);
		expect(result.messages[0].content).not.toContain('mia@example.com');
	});

	it('ends the run `guardrail` before any model call when the input is blocked, naming the guardrail, not the text', async () => {
		server().setScript([final('never asked')]);
		const block = {
			name: 'no-mail',
			check: 'pii',
			kinds: ['email'],
			on: ['input'],
			action: 'block',
		};
		const result = await run([block]);
		expect(result.finish_reason).toBe('guardrail');
		expect(server().requests).toHaveLength(0);
		expect(result.stop_detail).toContain('no-mail');
		expect(result.stop_detail).toContain('before_run');
		// Step 0, as a compaction's step: the decision is in the trace, so in the spans and the audit chain.
		expect(result.trace).toEqual([
			expect.objectContaining({
				step: 0,
				guardrails: [expect.objectContaining({ name: 'no-mail', decision: 'block' })],
			}),
		]);
		expect(JSON.stringify({ ...result, messages: [] })).not.toContain('mia@example.com');
		expect(result.guardrails_tripped).toBe(1);
	});

	it('blocks a tool call carrying a Luhn-valid card number, and the tool never runs', async () => {
		const note = noteTool();
		server().setScript([action('note', { text: `card ${CARD}` }), final('never')]);
		const noCards = {
			name: 'no-cards',
			check: 'pii',
			kinds: ['credit_card'],
			on: ['tool_call'],
			action: 'block',
		};
		const result = await run([noCards], {}, note);
		expect(result.finish_reason).toBe('guardrail');
		expect(note.calls).toHaveLength(0);
		expect(result.stop_detail).toMatch(/no-cards.*before_tool/);
		expect(result.stop_detail).not.toContain('4111');
		expect(result.trace[0].guardrails).toEqual([
			expect.objectContaining({
				name: 'no-cards',
				point: 'before_tool',
				decision: 'block',
				tool: 'note',
			}),
		]);
	});

	it('lets a number that fails Luhn through to the tool', async () => {
		const note = noteTool();
		server().setScript([action('note', { text: `ref ${NOT_A_CARD}` }), final('ok')]);
		const noCards = {
			name: 'no-cards',
			check: 'pii',
			kinds: ['credit_card'],
			on: ['tool_call'],
			action: 'block',
		};
		const result = await run([noCards], {}, note);
		expect(result.finish_reason).toBe('final');
		expect(note.calls).toEqual([{ text: `ref ${NOT_A_CARD}` }]);
		expect(result.trace[0].guardrails).toBeUndefined();
		expect(result.guardrails_tripped).toBe(0);
	});

	it('denies a call to a host not allowed, hidden deep in JSON args; the model is told which guardrail, and the run goes on', async () => {
		const note = noteTool();
		const args = { request: { targets: [{ href: 'https://evil.example.net/steal' }] } };
		server().setScript([action('note', args), final('answered without it')]);
		const ownApi = {
			name: 'own-api-only',
			check: 'urls',
			allowed_hosts: ['*.example.com'],
			on: ['tool_call'],
			action: 'deny_call',
		};
		const result = await run([ownApi], {}, note);
		expect(result.finish_reason).toBe('final');
		expect(note.calls).toHaveLength(0);
		const seen = lastUserMessage(server(), 1);
		expect(seen).toContain('own-api-only');
		expect(seen).toContain('not run');
		expect(result.trace[0].guardrails?.[0]).toMatchObject({
			decision: 'deny',
			point: 'before_tool',
		});
	});

	it('allows a subdomain only when it is written as *.example.com', async () => {
		const note = noteTool();
		server().setScript([action('note', { url: 'https://api.example.com/x' }), final('ok')]);
		const exact = {
			name: 'exact',
			check: 'urls',
			allowed_hosts: ['example.com'],
			on: ['tool_call'],
			action: 'deny_call',
		};
		const denied = await run([exact], {}, note);
		expect(note.calls).toHaveLength(0);
		expect(denied.trace[0].guardrails?.[0].decision).toBe('deny');
		server().setScript([action('note', { url: 'https://api.example.com/x' }), final('ok')]);
		const wild = { ...exact, allowed_hosts: ['*.example.com'] };
		await run([wild], {}, note);
		expect(note.calls).toHaveLength(1);
	});

	it('redacts an e-mail address in an observation before the model sees it, and in the trace', async () => {
		const note = noteTool({ owner: 'bo@shop.example' });
		server().setScript([action('note', { text: 'who owns it?' }), final('the owner')]);
		const hide = {
			name: 'hide-emails',
			check: 'pii',
			kinds: ['email'],
			on: ['observation'],
			action: 'redact',
		};
		const result = await run([hide], {}, note);
		expect(result.finish_reason).toBe('final');
		expect(lastUserMessage(server(), 1)).toContain('[redacted:hide-emails]');
		expect(JSON.stringify(server().requests[1].messages)).not.toContain('bo@shop.example');
		expect(result.trace[0].observation).not.toContain('bo@shop.example');
		expect(result.trace[0].guardrails?.[0]).toMatchObject({
			point: 'after_tool',
			decision: 'redact',
		});
	});

	it('blocks an answer that matches a pattern: no answer goes out', async () => {
		server().setScript([final('This is internal only, do not share')]);
		const internal = {
			name: 'internal',
			check: 'pattern',
			pattern: 'internal only',
			on: ['answer'],
			action: 'block',
		};
		const result = await run([internal]);
		expect(result.finish_reason).toBe('guardrail');
		expect(result.final_answer).toBe('');
		expect(result.trace[0].final).toBeUndefined();
		expect(JSON.stringify(result)).not.toContain('internal only, do not');
	});

	it('redacts an answer and the run ends `final` with the redacted text', async () => {
		server().setScript([final('Write to mia@example.com today')]);
		const hide = {
			name: 'hide-emails',
			check: 'pii',
			kinds: ['email'],
			on: ['answer'],
			action: 'redact',
		};
		const result = await run([hide]);
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe('Write to [redacted:hide-emails] today');
		expect(result.messages.at(-1)?.content).not.toContain('mia@example.com');
	});

	it('blocks a batch whose second call carries a card before any of its calls runs', async () => {
		const note = noteTool();
		server().setScript([
			actions(['note', { text: 'first' }], ['note', { text: CARD }]),
			final('never'),
		]);
		const noCards = {
			name: 'no-cards',
			check: 'pii',
			kinds: ['credit_card'],
			on: ['tool_call'],
			action: 'block',
		};
		const result = await run([noCards], { max_parallel_calls: 4 }, note);
		expect(result.finish_reason).toBe('guardrail');
		expect(note.calls).toHaveLength(0);
		expect(result.trace[0].guardrails?.[0]).toMatchObject({ call: 2, tool: 'note' });
	});

	it('refuses an entry with an unknown kind before any model call, naming the entry and field', async () => {
		server().setScript([final('never')]);
		const bad = { name: 'x', check: 'pii', kinds: ['passport'], on: ['input'], action: 'block' };
		const refused = run([bad]);
		await expect(refused).rejects.toThrow(ConfigError);
		await expect(run([bad])).rejects.toMatchObject({ field: 'guardrails[0].kinds[0]' });
		expect(server().requests).toHaveLength(0);
	});

	it('refuses deny_call on a point that is not a tool call', async () => {
		const bad = { name: 'x', check: 'secrets', on: ['answer'], action: 'deny_call' };
		await expect(run([bad])).rejects.toMatchObject({
			field: expect.stringMatching(/^guardrails\[0\]/),
		});
	});

	it('checks the text files sent with the input too: a redaction reaches the model, a block ends the run', async () => {
		const csv = Buffer.from('id,email\n1,mia@example.com\n');
		const files = [{ name: 'orders.csv', mimeType: 'text/csv', data: csv }];
		const withFile = (guardrail: Record<string, unknown>) =>
			runAgent({
				model: modelFor(server()),
				config: { model: 'm', guardrails: [guardrail] } as never,
				prompt: 'Summarise the file',
				files,
			});
		server().setScript([final('one order')]);
		const hide = {
			name: 'hide-emails',
			check: 'pii',
			kinds: ['email'],
			on: ['input'],
			action: 'redact',
		};
		const redacted = await withFile(hide);
		expect(redacted.finish_reason).toBe('final');
		const sent = JSON.stringify(server().requests[0].messages);
		expect(sent).toContain('[redacted:hide-emails]');
		expect(sent).not.toContain('mia@example.com');
		expect(redacted.trace[0].guardrails?.[0]).toMatchObject({
			file: 'orders.csv',
			decision: 'redact',
		});
		server().requests.length = 0;
		const blocked = await withFile({ ...hide, name: 'no-mail', action: 'block' });
		expect(blocked.finish_reason).toBe('guardrail');
		expect(server().requests).toHaveLength(0);
	});
});
