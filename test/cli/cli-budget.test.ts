import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { budgetKey } from '../../src/budget/redis-ledger';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { deleteKeysByPrefix, useTestRedis } from '../support/redis';

/** Issue #17 §2 through the CLI: runs in separate processes count one shared budget in Redis. */
describe('agent-core run with a shared_budget', () => {
	const server = useScriptedServer();
	const redis = useTestRedis();
	let folder: string;
	beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'agent-core-budget-'))));
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	const usage = { prompt_tokens: 70, completion_tokens: 30 };
	const configFile = (scope: string, tokens: number) => {
		const path = join(folder, `${scope}.json`);
		writeFileSync(
			path,
			JSON.stringify({
				model: 'm',
				allowed_tools: ['json_transform'],
				shared_budget: { scope, tokens, period_seconds: 3600 },
			}),
		);
		return path;
	};
	// The budget's keys live under the default prefix; each test's scope is unique and deleted after.
	const scopeFor = (label: string) => redis.keyPrefix(label).replace(/:$/, '').replace(/:/g, '-');
	afterEach(() => deleteKeysByPrefix(redis.admin, 'agent_core:budget:{agent_core_test-'));

	const run = (config: string, prompt = 'go') =>
		runCli([
			'run',
			'--config',
			config,
			'--prompt',
			prompt,
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
			'--redis-url',
			redis.url,
		]);

	it('eight concurrent runs in eight processes add up exactly in the ledger', async () => {
		const scope = scopeFor('eight');
		server().setScript((request) =>
			request.messages.length <= 2
				? { text: action('json_transform', { data: [1], expression: 'length(@)' }), usage }
				: { text: final('done'), usage },
		);
		// One file for all eight: rewriting it per spawn let a starting process read it while it was truncated.
		const config = configFile(scope, 1_000_000);
		const runs = await Promise.all(
			Array.from({ length: 8 }, (_, index) => run(config, `go ${index}`)),
		);
		for (const finished of runs) expect(finished).toMatchObject({ code: 0, stderr: '' });
		expect(runs.map((finished) => JSON.parse(finished.stdout).finish_reason)).toEqual(
			Array(8).fill('final'),
		);
		const ledger = await redis.admin.hget(
			budgetKey('agent_core:budget:', scope, 3600, Date.now()),
			'tokens',
		);
		expect(Number(ledger)).toBe(8 * 2 * 100);
	});

	it('a run in a scope another process exhausted ends budget_exhausted with no model call', async () => {
		const scope = scopeFor('spent');
		server().setScript([{ text: final('first'), usage }]);
		expect(JSON.parse((await run(configFile(scope, 100))).stdout).finish_reason).toBe('final');
		const before = server().requests.length;
		const second = await run(configFile(scope, 100));
		expect(JSON.parse(second.stdout)).toMatchObject({
			finish_reason: 'budget_exhausted',
			stop_detail: `shared budget "${scope}" used 100 of its 100 tokens this period (3600 s)`,
		});
		expect(server().requests.length).toBe(before);
	});

	it('exits 2 with the Redis error and no model call when the budget’s Redis is down', async () => {
		const path = configFile(scopeFor('down'), 100);
		const failed = await runCli([
			'run',
			'--config',
			path,
			'--prompt',
			'go',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
			'--redis-url',
			'redis://127.0.0.1:1',
		]);
		expect(failed.code).toBe(2);
		expect(failed.stderr).toMatch(/^agent-core: Redis at 127\.0\.0\.1:1 /);
		expect(server().requests).toHaveLength(0);
	});

	it('refuses --redis-url without --session or a shared_budget', async () => {
		const path = join(folder, 'plain.json');
		writeFileSync(path, JSON.stringify({ model: 'm' }));
		const refused = await run(path);
		expect(refused).toMatchObject({
			code: 2,
			stderr:
				'agent-core: --redis-url needs --session ID, --run-key KEY, a shared_budget or mcp_servers in the config\n',
		});
	});
});

/** Issue #38 through the CLI: a price JSON reads as Infinity is refused before anything is asked. */
describe('agent-core run with a price of 1e999', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'agent-core-price-'))));
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	it('exits 2 naming prices["gpt-x"].input_per_million and what to give, with no model request', async () => {
		const path = join(folder, 'huge-price.json');
		// Written as text: JSON.stringify cannot write 1e999, and JSON.parse reads it as Infinity.
		writeFileSync(
			path,
			'{"model":"gpt-x","max_cost":1,"prices":{"gpt-x":{"input_per_million":1e999,"output_per_million":1}}}',
		);
		server().setScript([
			{ text: final('never asked'), usage: { prompt_tokens: 1, completion_tokens: 1 } },
		]);
		const refused = await runCli([
			'run',
			'--config',
			path,
			'--prompt',
			'go',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
		]);
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain(
			'prices["gpt-x"].input_per_million: Infinity is not a finite number (JSON reads a number too large for it, such as 1e999, as Infinity); give a price in USD per million tokens from 0 to 1000000, e.g. 2.5',
		);
		expect(refused.stdout).toBe('');
		expect(server().requests).toHaveLength(0);
	});
});
