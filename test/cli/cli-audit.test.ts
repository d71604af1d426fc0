import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { postgresEnvironment, query, useTestDatabase } from '../support/postgres';

/** Issue #19 through the CLI: `run --audit-postgres`, then `audit verify` and `audit replay` on what it stored. */
describe('agent-core audit', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	let folder: string;
	let config: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-audit-'));
		config = join(folder, 'config.json');
		writeFileSync(config, JSON.stringify({ model: 'm', allowed_tools: ['json_transform'] }));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	const script = () =>
		server().setScript((request) =>
			request.messages.length <= 2
				? action('json_transform', { data: [1, 2, 3], expression: 'length(@)' })
				: final('three'),
		);
	const cli = (args: string[]) => runCli(args, postgresEnvironment());
	const run = (prompt = 'count', extra: string[] = []) =>
		cli([
			'run',
			'--config',
			config,
			'--prompt',
			prompt,
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
			'--audit-postgres',
			database().url,
			...extra,
		]);

	it('a run is stored; verify checks it, replay reaches the same answer without a model call', async () => {
		script();
		const stored = await run();
		expect(stored).toMatchObject({ code: 0, stderr: '' });
		const output = JSON.parse(stored.stdout);
		expect(output.audit).toEqual({
			run_id: expect.any(String),
			stored: true,
			record_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
		});

		const verified = await cli([
			'audit',
			'verify',
			'--postgres',
			database().url,
			'--run',
			output.audit.run_id,
			'--digest',
			output.trace_digest,
		]);
		expect(verified.code).toBe(0);
		expect(JSON.parse(verified.stdout)).toMatchObject({
			ok: true,
			steps: 2,
			recomputed_digest: output.trace_digest,
		});

		const requests = server().requests.length;
		const replayed = await cli([
			'audit',
			'replay',
			'--postgres',
			database().url,
			'--run',
			output.audit.run_id,
		]);
		expect(replayed.code).toBe(0);
		expect(JSON.parse(replayed.stdout)).toMatchObject({
			same: true,
			replayed: { finish_reason: 'final', final_answer: 'three' },
			answered_from_record: { model_turns: 2, tool_calls: 1 },
		});
		expect(server().requests.length).toBe(requests);
	});

	it('verify exits 3 and names the step whose observation was changed', async () => {
		script();
		const output = JSON.parse((await run()).stdout);
		await query(
			database().url,
			"UPDATE agent_core_audit_steps SET observation = '4' WHERE step = 1",
		);
		const verified = await cli([
			'audit',
			'verify',
			'--postgres',
			database().url,
			'--run',
			output.audit.run_id,
		]);
		expect(verified.code).toBe(3);
		expect(JSON.parse(verified.stdout).first_mismatch).toEqual({
			part: 'step 1',
			detail: 'step 1 does not match its recorded link: it was changed after the run',
		});
	});

	it('four processes at once on an empty database: every run is stored', async () => {
		script();
		const runs = await Promise.all([0, 1, 2, 3].map((index) => run(`count ${index}`)));
		for (const finished of runs) expect(finished).toMatchObject({ code: 0, stderr: '' });
		const [{ count }] = await query<{ count: string }>(
			database().url,
			'SELECT count(*) FROM agent_core_audit_runs',
		);
		expect(Number(count)).toBe(4);
	});

	it('an unreachable audit database does not fail the run: the output and stderr say the row was not stored', async () => {
		script();
		const finished = await cli([
			'run',
			'--config',
			config,
			'--prompt',
			'count',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
			'--audit-postgres',
			'postgres://postgres@127.0.0.1:1/none',
		]);
		expect(finished.code).toBe(0);
		const output = JSON.parse(finished.stdout);
		expect(output).toMatchObject({
			finish_reason: 'final',
			final_answer: 'three',
			audit: { stored: false },
		});
		expect(output.audit.notice).toMatch(
			/^the audit row of run \S+ was not stored \(.*ECONNREFUSED.*\)/,
		);
		expect(finished.stderr).toBe(
			`agent-core: audit: ${output.audit.notice}; this process ends, so the row of run ${output.audit.run_id} is not stored\n`,
		);
	});

	it.each([
		[
			['--audit-retention-days', '0'],
			'--audit-retention-days must be how many days audit rows are kept: a whole number from 1 to 36500 in decimal digits, without sign, point, exponent or leading zero (e.g. --audit-retention-days=1), not "0"',
		],
		[
			['--audit-postgres', 'localhost:5432'],
			'--audit-postgres must be a postgres:// URL, e.g. postgres://user@127.0.0.1:5432/audit',
		],
	])('a bad audit flag %j is refused with one line naming it', async (flags, message) => {
		const args = ['run', '--config', config, '--prompt', 'x', '--api-key', 'k', ...flags];
		if (!flags.includes('--audit-postgres')) args.push('--audit-postgres', database().url);
		const finished = await cli(args);
		expect(finished).toMatchObject({ code: 2, stderr: `agent-core: ${message}\n` });
	});

	it('verify and replay of an unknown run say so, and create no tables', async () => {
		const finished = await cli(['audit', 'replay', '--postgres', database().url, '--run', 'nope']);
		expect(finished).toMatchObject({
			code: 2,
			stderr: 'agent-core: --run: no run nope in the audit database\n',
		});
		expect(
			await query(
				database().url,
				"SELECT tablename FROM pg_tables WHERE tablename LIKE 'agent_core%'",
			),
		).toEqual([]);
	});
});
