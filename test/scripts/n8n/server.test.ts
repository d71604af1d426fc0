// `npm run dev`, the e2e and browser suites start n8n so that it calls nothing at api.n8n.io (issue #48: offline,
// each call filled the terminal with an ENOTFOUND trace after Ready).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { n8nEnvironment } = require('../../../scripts/n8n/server');

const environment = (line: 1 | 2) =>
	n8nEnvironment(
		{ line, pathPrefix: '/nonexistent', env: {} },
		{ userFolder: '/tmp/n8n-user', port: 5678, brokerPort: 5679 },
	) as NodeJS.ProcessEnv;

/** The switches that stop n8n's fetches from api.n8n.io, each its config's own variable. */
const OFF = [
	'N8N_DIAGNOSTICS_ENABLED',
	'N8N_VERSION_NOTIFICATIONS_ENABLED',
	'N8N_TEMPLATES_ENABLED',
	'N8N_PERSONALIZATION_ENABLED',
	'N8N_VERIFIED_PACKAGES_ENABLED',
	'N8N_DYNAMIC_BANNERS_ENABLED',
];

describe('the environment n8n is started with', () => {
	it.each([1, 2] as const)('turns off every fetch from api.n8n.io on line %s', (line) => {
		const env = environment(line);
		for (const name of OFF) expect([name, env[name]]).toEqual([name, 'false']);
		if (line === 2) expect(env.N8N_DISABLED_MODULES).toBe('mcp-registry');
	});

	it('an N8N_ variable of the caller cannot turn one back on', () => {
		process.env.N8N_VERIFIED_PACKAGES_ENABLED = 'true';
		try {
			expect(environment(1).N8N_VERIFIED_PACKAGES_ENABLED).toBe('false');
		} finally {
			delete process.env.N8N_VERIFIED_PACKAGES_ENABLED;
		}
	});

	// Where the installed n8n is in the cache (npm run dev installs it), its own code says which switch guards the fetch.
	const cache = path.join(homedir(), '.cache', 'n8n-nodes-agent-core');
	const lines = ['n8n-1.123.81', 'n8n-2.41.1'].filter((folder) =>
		existsSync(path.join(cache, folder, 'node_modules', 'n8n', 'dist')),
	);
	const itInstalled = lines.length ? it.each(lines) : it.skip.each(['(no n8n in the cache)']);
	itInstalled(
		'%s fetches the vetted community node list only while N8N_VERIFIED_PACKAGES_ENABLED is on',
		(folder) => {
			const packages = path.join(
				cache,
				folder,
				'node_modules',
				'n8n',
				'dist',
				'modules',
				'community-packages',
			);
			const service = readFileSync(path.join(packages, 'community-node-types.service.js'), 'utf8');
			const config = readFileSync(path.join(packages, 'community-packages.config.js'), 'utf8');
			expect(service).toContain('if (this.config.enabled && this.config.verifiedEnabled)');
			expect(config).toMatch(
				/Env\)\('N8N_VERIFIED_PACKAGES_ENABLED'\)[^\]]*\][^;]*"verifiedEnabled"/,
			);
		},
	);
});
