// Issue #50 through the CLI: `guardrails` in --config redacts and blocks answers, and a bad entry exits 2 naming
// the entry and field before any model call.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';

const EMAIL = 'mia@example.com';
const hideEmails = {
	name: 'hide-emails',
	check: 'pii',
	kinds: ['email'],
	on: ['answer'],
	action: 'redact',
};

describe('agent-core run with guardrails', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-cli-guardrails-'));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	function run(guardrails: unknown) {
		const config = join(folder, `${randomBytes(4).toString('hex')}.json`);
		writeFileSync(config, JSON.stringify({ model: 'scripted-model', guardrails }));
		return runCli([
			'run',
			'--config',
			config,
			'--prompt',
			'Who do I write to?',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
		]);
	}

	it('redacts an e-mail address in the answer and counts the decision', async () => {
		server().setScript([final(`Write to ${EMAIL} today.`)]);
		const result = await run([hideEmails]);
		expect(result.stderr).toBe('');
		expect(result.code).toBe(0);
		const output = JSON.parse(result.stdout);
		expect(output.finish_reason).toBe('final');
		expect(output.final_answer).toBe('Write to [redacted:hide-emails] today.');
		expect(output.guardrails_tripped).toBe(1);
		expect(output.trace[0].guardrails).toEqual([
			expect.objectContaining({ name: 'hide-emails', point: 'after_run', decision: 'redact' }),
		]);
		expect(result.stdout).not.toContain(EMAIL);
	});

	it('blocks an answer: finish_reason guardrail, and the answer is nowhere in the output', async () => {
		server().setScript([final('This is internal only: the launch is on the fifth.')]);
		const internal = {
			name: 'internal',
			check: 'pattern',
			pattern: 'internal only',
			on: ['answer'],
			action: 'block',
		};
		const result = await run([internal]);
		expect(result.code).toBe(0);
		const output = JSON.parse(result.stdout);
		expect(output.finish_reason).toBe('guardrail');
		expect(output.stop_detail).toContain('guardrail "internal" blocked the run at after_run');
		expect(result.stdout).not.toContain('the launch is on the fifth');
	});

	it('exits 2 naming the entry and field of an unknown kind, before any model call', async () => {
		server().setScript([final('never')]);
		const result = await run([{ ...hideEmails, kinds: ['passport'] }]);
		expect(result.code).toBe(2);
		expect(result.stdout).toBe('');
		expect(result.stderr).toBe(
			'agent-core: guardrails[0].kinds[0]: unknown kind "passport": use email, phone, credit_card, iban or ip_address\n',
		);
		expect(server().requests).toHaveLength(0);
	});

	it('exits 2 with the fix for an action that does not fit its point', async () => {
		server().setScript([final('never')]);
		const result = await run([{ ...hideEmails, action: 'deny_call' }]);
		expect(result.code).toBe(2);
		expect(result.stderr).toMatch(/^agent-core: guardrails\[0\]\.action: "deny_call" only fits/);
		expect(result.stderr).toContain('  fix: Set guardrails[0].on to ["tool_call"]');
		expect(server().requests).toHaveLength(0);
	});
});
