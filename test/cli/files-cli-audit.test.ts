// Files in the CLI and the audit (issue #40): `run --file`, references (never bytes) in the audit row and its
// chain, and `audit fork` / counterfactual `audit replay` that need the files again (`--files DIR`, by SHA-256).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeAuditSinks } from '../../src/audit/postgres-sink';
import { final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { png, sha256 } from '../support/files';
import { postgresEnvironment, query, useTestDatabase } from '../support/postgres';
import { getTestRedis, openTestClient } from '../support/redis';

const STEPS = 'agent_core_audit_steps';

describe('files through the command line and the audit', () => {
	const server = useScriptedServer();
	const database = useTestDatabase();
	let folder: string;
	const image = png(300, 200);
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-files-'));
		writeFileSync(join(folder, 'config.json'), JSON.stringify({ model: 'm', allowed_tools: [] }));
		writeFileSync(join(folder, 'receipt.png'), image);
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));
	afterEach(() => closeAuditSinks());
	const cli = (args: string[]) =>
		runCli(args, {
			...postgresEnvironment(),
			OPENAI_API_KEY: 'k',
			OPENAI_BASE_URL: server().openaiBaseUrl,
		});

	/** A run given the receipt with --file, audited. */
	async function audited(): Promise<{ runId: string; stdout: string }> {
		server().setScript([final('a receipt for 12 EUR')]);
		const run = await cli([
			'run',
			'--config',
			join(folder, 'config.json'),
			'--prompt',
			'What is this?',
			'--file',
			join(folder, 'receipt.png'),
			'--audit-postgres',
			database().url,
		]);
		expect(run).toMatchObject({ code: 0 });
		return { runId: JSON.parse(run.stdout).audit.run_id, stdout: run.stdout };
	}

	it('run --file sends the file and prints only its reference', async () => {
		const { stdout } = await audited();
		const output = JSON.parse(stdout);
		const ref = {
			name: 'receipt.png',
			type: 'image/png',
			bytes: image.length,
			sha256: sha256(image),
		};
		expect(output.trace[0].files).toEqual([ref]);
		expect(output.messages[0].files).toEqual([ref]);
		expect(stdout).not.toContain(image.toString('base64').slice(0, 20));
	});

	it('run --file names a missing file and a folder, before any model call', async () => {
		const missing = await cli([
			'run',
			'--config',
			join(folder, 'config.json'),
			'--prompt',
			'q',
			'--file',
			join(folder, 'nope.png'),
		]);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain(`--file ${join(folder, 'nope.png')}: cannot read it (ENOENT)`);
		const dir = await cli([
			'run',
			'--config',
			join(folder, 'config.json'),
			'--prompt',
			'q',
			'--file',
			folder,
		]);
		expect(dir.stderr).toContain(`--file ${folder}: is a directory, not a file`);
		expect(server().requests).toHaveLength(0);
	});

	it('a session in Redis keeps the reference only, and the next turn reads that the file was sent', async () => {
		const redis = await getTestRedis();
		const client = openTestClient(redis.url);
		const session = `files-${process.pid}-${Date.now()}`;
		const turn = (prompt: string, extra: string[] = []) =>
			cli([
				'run',
				'--config',
				join(folder, 'config.json'),
				'--prompt',
				prompt,
				...extra,
				'--session',
				session,
				'--context',
				'redis',
				'--redis-url',
				redis.url,
			]);
		try {
			server().setScript([final('A receipt.'), final('12 EUR.')]);
			expect((await turn('What is this?', ['--file', join(folder, 'receipt.png')])).code).toBe(0);
			expect((await turn('How much was it?')).code).toBe(0);
			const earlier = server().requests[1].messages.find((message) =>
				message.content.startsWith('What is this?'),
			);
			expect(earlier?.content).toContain(
				`[File receipt.png (image/png, ${image.length} bytes), sha256 ${sha256(image).slice(0, 12)}…, was sent with this message;`,
			);
			const keys = await client.keys(`*${session}*`);
			expect(keys.length).toBeGreaterThan(0);
			let stored = '';
			for (const key of keys) {
				const type = await client.type(key);
				if (type === 'string') stored += await client.get(key);
				if (type === 'list') stored += (await client.lrange(key, 0, -1)).join('\n');
				if (type === 'hash') stored += JSON.stringify(await client.hgetall(key));
				if (type === 'zset') stored += (await client.zrange(key, 0, -1)).join('\n');
			}
			expect(stored).toContain(sha256(image));
			expect(stored).not.toContain(image.toString('base64').slice(0, 20));
			// A fork at turn 1 and a rewind to it keep the reference: the next turn of each still reads the note.
			const forked = `${session}-fork`;
			const fork = await cli([
				'session',
				'fork',
				'--session',
				session,
				'--to-session',
				forked,
				'--turn',
				'1',
				'--redis-url',
				redis.url,
			]);
			expect(fork.code).toBe(0);
			const rewind = await cli([
				'session',
				'rewind',
				'--session',
				session,
				'--turn',
				'1',
				'--redis-url',
				redis.url,
			]);
			expect(rewind.code).toBe(0);
			server().setScript([final('From the fork.'), final('After the rewind.')]);
			server().requests.length = 0;
			const inFork = await cli([
				'run',
				'--config',
				join(folder, 'config.json'),
				'--prompt',
				'And the date?',
				'--session',
				forked,
				'--context',
				'redis',
				'--redis-url',
				redis.url,
			]);
			expect(inFork.code).toBe(0);
			expect((await turn('And the shop?')).code).toBe(0);
			for (const request of server().requests)
				expect(
					request.messages.some((message) =>
						message.content.includes(`[File receipt.png (image/png, ${image.length} bytes)`),
					),
				).toBe(true);
		} finally {
			const keys = await client.keys(`*${session}*`);
			if (keys.length) await client.del(...keys);
			// (the fork's keys contain the session id too)
			client.disconnect();
			await redis.stop();
		}
	});

	it('an eval case names its files, relative to the dataset; a missing one stops the set before any model call', async () => {
		writeFileSync(
			join(folder, 'cases.jsonl'),
			`${JSON.stringify({ id: 'receipt', input: 'What is this?', files: ['receipt.png'], expected: { contains: 'receipt' } })}\n`,
		);
		server().setScript([final('a receipt for 12 EUR')]);
		const results = join(folder, 'results.jsonl');
		const run = await cli([
			'eval',
			'--dataset',
			join(folder, 'cases.jsonl'),
			'--config',
			join(folder, 'config.json'),
			'--results',
			results,
		]);
		expect(run.code).toBe(0);
		expect(server().requests).toHaveLength(1);
		writeFileSync(
			join(folder, 'broken.jsonl'),
			`${JSON.stringify({ input: 'q', files: ['gone.png'] })}\n`,
		);
		server().requests.length = 0;
		const broken = await cli([
			'eval',
			'--dataset',
			join(folder, 'broken.jsonl'),
			'--config',
			join(folder, 'config.json'),
		]);
		expect(broken.code).toBe(2);
		expect(broken.stderr).toContain(`line 1: files[0]: ${join(folder, 'gone.png')} does not exist`);
		expect(server().requests).toHaveLength(0);
	});

	it("keeps the files' references in the row, covered by the chain: an edited hash fails verify", async () => {
		const { runId } = await audited();
		expect(
			(await cli(['audit', 'verify', '--postgres', database().url, '--run', runId])).code,
		).toBe(0);
		await query(
			database().url,
			`UPDATE ${STEPS} SET extra = jsonb_set(extra, '{files,0,sha256}', to_jsonb(repeat('0', 64))) WHERE run_id = $1 AND position = 0`,
			[runId],
		);
		const tampered = await cli(['audit', 'verify', '--postgres', database().url, '--run', runId]);
		expect(tampered.code).toBe(3);
		expect(JSON.parse(tampered.stdout).first_mismatch.part).toMatch(/step 1|trace/);
	});

	it('audit fork needs the files again: without --files it names the missing one and asks nothing', async () => {
		const { runId } = await audited();
		server().requests.length = 0;
		const fork = await cli([
			'audit',
			'fork',
			'--postgres',
			database().url,
			'--run',
			runId,
			'--step',
			'1',
		]);
		expect(fork.code).toBe(2);
		expect(fork.stderr).toContain(
			`--files: run ${runId} was given a file that is not here: receipt.png (image/png, ${image.length} bytes, sha256 ${sha256(image)}). Give the same files again (the CLI: --files DIR`,
		);
		expect(server().requests).toHaveLength(0);
	});

	it('audit fork --files DIR finds the file by its hash under any name', async () => {
		const { runId } = await audited();
		const again = mkdtempSync(join(tmpdir(), 'agent-core-files-again-'));
		try {
			writeFileSync(join(again, 'renamed.bin'), image);
			writeFileSync(join(again, 'other.png'), png(10, 10));
			server().setScript([final('still a receipt')]);
			server().requests.length = 0;
			const fork = await cli([
				'audit',
				'fork',
				'--postgres',
				database().url,
				'--run',
				runId,
				'--step',
				'1',
				'--files',
				again,
			]);
			expect(fork).toMatchObject({ code: 0 });
			const output = JSON.parse(fork.stdout);
			expect(output.trace[0].files).toEqual([
				{ name: 'receipt.png', type: 'image/png', bytes: image.length, sha256: sha256(image) },
			]);
		} finally {
			rmSync(again, { recursive: true, force: true });
		}
	});

	it('a counterfactual audit replay without the files reports the run as unreplayable, naming them', async () => {
		const { runId } = await audited();
		server().requests.length = 0;
		const replay = await cli([
			'audit',
			'replay',
			'--postgres',
			database().url,
			'--run',
			runId,
			'--model',
			'candidate',
		]);
		const report = JSON.parse(replay.stdout);
		expect(report.runs[0].first_mismatch).toMatchObject({ part: 'files' });
		expect(report.runs[0].first_mismatch.detail).toContain('receipt.png');
		expect(server().requests).toHaveLength(0);
	});
});
