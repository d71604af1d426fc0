const fs = require('node:fs');

module.exports = async function globalTeardown() {
	const runFolder = process.env.AGENT_CORE_E2E_RUN_FOLDER;
	if (runFolder && !process.env.AGENT_CORE_E2E_KEEP)
		fs.rmSync(runFolder, { recursive: true, force: true });
};
