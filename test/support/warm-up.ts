// One audited run before a hostile suite's watchdog starts, so one-time module loading is not counted as a stall.
import { runAgent } from '../../src/agent/run-agent';
import { closeAuditSinks } from '../../src/audit/postgres-sink';
import { startScriptedServer } from '../../src/demo/scripted-server';
import { final, modelFor } from './agent';
import { createTestDatabase, dropTestDatabase } from './postgres';

/**
 * Loads what a first audited run loads lazily (pg, the model SDK, the audit's migration and verify paths)
 * by running one against a database of its own, then drops it.
 */
export async function warmUpAuditedRun(): Promise<void> {
	const server = await startScriptedServer();
	const database = await createTestDatabase();
	try {
		server.setScript([final('warm')]);
		await runAgent({
			model: modelFor(server),
			config: { model: 'm' },
			prompt: 'warm up',
			audit: { postgres: database.url, waitMs: 5_000 },
		});
	} finally {
		await closeAuditSinks();
		await server.close();
		await dropTestDatabase(database.name);
	}
}
