import {
	auditSinkFor,
	closeAuditSinks,
	InputError,
	pingAuditDatabase,
	PostgresAuditSink,
	type PostgresTarget,
} from '../../src/index';
import { startCanary, useLoopbackGuard, type TestServer } from '../support/servers/http-servers';
import { expectNearMiss, refusalOf } from '../support/option-refusal';
import { POSTGRES_ADMIN_URL, useTestDatabase } from '../support/postgres';

/**
 * Issue #48: a target object went to pg as it was, so a misspelt field was ignored (`pasword`: no password) and
 * one of pg's own (`connectionString`) was taken. Now the sink, auditSinkFor and pingAuditDatabase refuse it
 * before anything connects: the database named is a canary that must stay untouched.
 */
describe('the audit entry points refuse a target field they do not know, before they connect', () => {
	useLoopbackGuard();
	const database = useTestDatabase();
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary();
	});
	afterEach(async () => {
		await closeAuditSinks();
		expect(canary.connections).toBe(0);
	});

	const canaryTarget = () => ({
		host: '127.0.0.1',
		port: canary.port,
		database: 'audit',
		user: 'agent',
	});
	/** The test database as the credential's fields (not a URL): what the check reads. */
	const realTarget = (): PostgresTarget => {
		const admin = new URL(POSTGRES_ADMIN_URL);
		return {
			host: admin.hostname,
			port: Number(admin.port || 5432),
			database: database().name,
			user: decodeURIComponent(admin.username),
			...(process.env.PGPASSWORD ? { password: process.env.PGPASSWORD } : {}),
			ssl: false,
		};
	};

	it('new PostgresAuditSink with pasword; spelt right, it reads the database', async () => {
		const error = await refusalOf(async () => {
			const sink = new PostgresAuditSink({ ...canaryTarget(), pasword: 'x' } as never);
			await sink.read('run-1').finally(() => sink.close());
		});
		expectNearMiss(error, 'PostgresAuditSink', 'pasword', 'password');
		expect((error as Error).message).not.toContain('"x"');
		const sink = new PostgresAuditSink(realTarget());
		await expect(sink.read('run-1').finally(() => sink.close())).resolves.toBeUndefined();
	});

	it("auditSinkFor with dbname or pg's own connectionString: refused, naming the fields there are", async () => {
		const dbname = await refusalOf(() =>
			auditSinkFor({ ...canaryTarget(), dbname: 'audit' } as never).read('run-1'),
		);
		expect(dbname).toBeInstanceOf(InputError);
		expect(dbname).toMatchObject({
			field: 'dbname',
			message:
				'auditSinkFor: unknown option "dbname"; known options: host, port, database, user, password, ssl',
			fix: "Remove dbname, or use one of auditSinkFor's options: host, port, database, user, password, ssl.",
		});
		const smuggled = {
			...canaryTarget(),
			connectionString: `postgres://127.0.0.1:${canary.port}/x`,
		};
		const pgOwn = await refusalOf(() => auditSinkFor(smuggled as never).read('run-1'));
		expect(pgOwn).toMatchObject({ name: 'InputError', field: 'connectionString' });
		const notATarget = await refusalOf(() => auditSinkFor(5432 as never).read('run-1'));
		expect(notATarget).toMatchObject({ name: 'InputError', field: 'postgres' });
		await expect(auditSinkFor(realTarget()).read('run-1')).resolves.toBeUndefined();
	});

	it('pingAuditDatabase with ssl.rejectUnauthorised: refused; spelt right, it answers', async () => {
		const target = { ...canaryTarget(), ssl: { rejectUnauthorised: false } };
		const error = await refusalOf(() => pingAuditDatabase(target as never));
		expectNearMiss(error, 'pingAuditDatabase ssl', 'rejectUnauthorised', 'rejectUnauthorized');
		expect(await pingAuditDatabase(realTarget())).toMatchObject({ ok: true });
	});
});
