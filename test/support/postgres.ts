import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The machine's PostgreSQL: trust auth on a fresh machine; CI sets PGPASSWORD where the cluster asks for one. */
export const POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database URL on the machine's PostgreSQL (the password, if any, comes from PGPASSWORD). */
export const databaseUrl = (name: string) => `postgres://postgres@127.0.0.1:5432/${name}`;

/** The environment a child process needs to reach the test database (the CLI's tests pass only PATH). */
export const postgresEnvironment = (): Record<string, string> => (process.env.PGPASSWORD ? { PGPASSWORD: process.env.PGPASSWORD } : {});

async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at 127.0.0.1:5432 as user postgres (${(error as Error).message || (error as { code?: string }).code}): ` +
        "start it with 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start' (set PGPASSWORD if it asks for one)",
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
export async function query<Row extends Record<string, unknown> = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}
