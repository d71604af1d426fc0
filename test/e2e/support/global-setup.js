// Once per `npm run test:e2e`: build the package, pack it like `npm publish` would, and install the tarball
// into a staging `.n8n/nodes` folder the way n8n installs a community package. Every n8n the suites start
// gets a copy of that folder. Plain JS: jest loads global set-up outside the test environment.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
	installPackage,
	packPackage,
	removeOnExit,
	PID_FOLDER_VARIABLE,
} = require('../../../scripts/n8n-local');

module.exports = async function globalSetup() {
	const started = Date.now();
	const runFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-core-e2e-'));
	// Also on Ctrl-C, which skips global teardown.
	if (!process.env.AGENT_CORE_E2E_KEEP) removeOnExit(runFolder);
	// The suites' n8n processes are recorded there, so that this copy of n8n-local stops them on Ctrl-C.
	process.env[PID_FOLDER_VARIABLE] = path.join(runFolder, 'pids');
	try {
		// AGENT_CORE_E2E_SKIP_BUILD=1 packs dist/ as it is (e.g. right after `npm run build` in CI).
		const tarball = await packPackage(runFolder, { build: !process.env.AGENT_CORE_E2E_SKIP_BUILD });
		const packed = Date.now();
		const nodesFolder = await installPackage(tarball, path.join(runFolder, 'nodes'));
		process.env.AGENT_CORE_E2E_RUN_FOLDER = runFolder;
		process.env.AGENT_CORE_E2E_NODES_FOLDER = nodesFolder;
		process.stdout.write(
			`\n[e2e] build + npm pack: ${((packed - started) / 1000).toFixed(1)} s (${path.basename(tarball)}); ` +
				`install into .n8n/nodes: ${((Date.now() - packed) / 1000).toFixed(1)} s\n`,
		);
	} catch (error) {
		fs.rmSync(runFolder, { recursive: true, force: true });
		throw error;
	}
};
