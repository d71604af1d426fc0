import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * The run's PostgreSQL, chosen by global-setup.js: the one at AGENT_CORE_TEST_PG_URL (default the machine's on 127.0.0.1:5432)
 * if it answers, else a private one it started from npm; the password, if any, is in PGPASSWORD (CI sets one, the private one too).
 */
export const POSTGRES_ADMIN_URL =
	process.env.AGENT_CORE_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const adminUrl = new URL(POSTGRES_ADMIN_URL);
/** Where the test PostgreSQL listens, for tests that build credentials or proxies from parts. */
export const POSTGRES_HOST = adminUrl.hostname;
export const POSTGRES_PORT = Number(adminUrl.port || 5432);

/** A database URL on the test PostgreSQL (the password, if any, comes from PGPASSWORD). */
export const databaseUrl = (name: string) => {
	const url = new URL(POSTGRES_ADMIN_URL);
	url.pathname = `/${name}`;
	return url.toString();
};

/** The environment a child process needs to reach the test database (the CLI's tests pass only PATH). */
export const postgresEnvironment = (): Record<string, string> =>
	process.env.PGPASSWORD ? { PGPASSWORD: process.env.PGPASSWORD } : {};

async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
	const client = new Client({
		connectionString: POSTGRES_ADMIN_URL,
		connectionTimeoutMillis: 5_000,
	});
	try {
		await client.connect();
	} catch (error) {
		throw new Error(
			`PostgreSQL is not reachable at ${adminUrl.host} as user ${adminUrl.username} (${(error as Error).message || (error as { code?: string }).code}): ` +
				"jest's global set-up (test/support/global-setup.js) found or started it; was it stopped since? Point AGENT_CORE_TEST_PG_URL " +
				'(and PGPASSWORD) at a running one, or unset it so the tests start a private one from npm',
		);
	}
	try {
		return await work(client);
	} finally {
		await client.end();
	}
}

/** Creates a database of its own for the test (a fresh name each time) and returns its URL. */
export async function createTestDatabase(): Promise<{ name: string; url: string }> {
	const name = `agent_core_test_${randomBytes(5).toString('hex')}`;
	await admin((client) => client.query(`CREATE DATABASE ${name}`));
	return { name, url: databaseUrl(name) };
}

export async function dropTestDatabase(name: string): Promise<void> {
	await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** A database of its own for each test of the enclosing block, dropped after it. */
export function useTestDatabase(): () => { name: string; url: string } {
	let database: { name: string; url: string } | undefined;
	beforeEach(async () => {
		database = await createTestDatabase();
	});
	afterEach(async () => {
		if (database) await dropTestDatabase(database.name);
	});
	return () => database!;
}

/** One query on a test database. */
export async function query<Row extends Record<string, unknown> = Record<string, unknown>>(
	url: string,
	text: string,
	values: unknown[] = [],
): Promise<Row[]> {
	const client = new Client({ connectionString: url });
	await client.connect();
	try {
		return (await client.query<Row>(text, values)).rows;
	} finally {
		await client.end();
	}
}
