// The jest run's PostgreSQL fallback (test/support/embedded-postgres.js), exercised even where the machine has its own.
import { existsSync } from 'node:fs';
import os from 'node:os';
import { Client } from 'pg';
import { freeLoopbackPort } from '../support/redis';

interface ProvidedPostgres {
	url: string;
	started: boolean;
	folder?: string;
	stop(): Promise<void>;
}
// A CommonJS module jest's global set-up loads untransformed; required here so the type-check does not take it in.
const { provideTestPostgres } = require('../support/embedded-postgres') as {
	provideTestPostgres(options?: { log?: (line: string) => void }): Promise<ProvidedPostgres>;
};

async function connectError(url: string, password: string): Promise<string | undefined> {
	const target = new URL(url);
	target.password = password;
	const client = new Client({
		connectionString: target.toString(),
		connectionTimeoutMillis: 3_000,
	});
	try {
		await client.connect();
		return undefined;
	} catch (error) {
		return (error as { code?: string }).code;
	} finally {
		await client.end().catch(() => {});
	}
}

describe('the test PostgreSQL when none answers', () => {
	const saved = { url: process.env.AGENT_CORE_TEST_PG_URL, password: process.env.PGPASSWORD };
	afterEach(() => {
		for (const [key, value] of [
			['AGENT_CORE_TEST_PG_URL', saved.url],
			['PGPASSWORD', saved.password],
		] as const) {
			if (value === undefined) delete process.env[key];
			else process.env[key] = value;
		}
	});

	it('starts a private one from npm on loopback that needs its password, and removes it and its data when stopped', async () => {
		const closed = `postgres://postgres@127.0.0.1:${await freeLoopbackPort()}/postgres`;
		process.env.AGENT_CORE_TEST_PG_URL = closed;
		const lines: string[] = [];
		const provided = await provideTestPostgres({ log: (line) => lines.push(line) });
		let stopped = false;
		try {
			expect(provided.started).toBe(true);
			expect(lines).toEqual([
				expect.stringMatching(
					/No PostgreSQL usable at 127\.0\.0\.1:\d+ \(ECONNREFUSED\): started a private one from npm/,
				),
			]);
			expect(process.env.AGENT_CORE_TEST_PG_URL).toBe(provided.url);
			expect(provided.folder!.startsWith(os.tmpdir())).toBe(true);
			const client = new Client({ connectionString: provided.url }); // the password comes from PGPASSWORD, as in the tests
			await client.connect();
			const [row] = (
				await client.query(
					'SELECT current_user AS name, inet_server_addr()::text AS address, current_setting($1) AS sockets',
					['unix_socket_directories'],
				)
			).rows;
			await client.end();
			expect(row).toEqual({ name: 'postgres', address: '127.0.0.1/32', sockets: '' });
			expect(await connectError(provided.url, 'not-the-password')).toBe('28P01');
			await provided.stop();
			stopped = true;
			expect(existsSync(provided.folder!)).toBe(false);
			expect(await connectError(provided.url, 'any')).toBe('ECONNREFUSED');
			expect([process.env.AGENT_CORE_TEST_PG_URL, process.env.PGPASSWORD]).toEqual([
				closed,
				saved.password,
			]);
		} finally {
			if (!stopped) await provided.stop();
		}
	}, 90_000);

	it('keeps the PostgreSQL that answers and starts nothing', async () => {
		const lines: string[] = [];
		const provided = await provideTestPostgres({ log: (line) => lines.push(line) }); // the run's own: the machine's, or the private one global-setup.js started
		expect(provided).toMatchObject({ url: saved.url, started: false });
		expect(lines).toEqual([]);
		await provided.stop();
	});
});
