/**
 * `npx jest -c jest.browser.config.js`: the Agent Core panel in the real n8n editor, driven in Debian's
 * Chromium (/usr/bin/chromium, or AGENT_CORE_CHROMIUM) by playwright-core. The e2e global set-up builds and
 * packs the package and installs it once into a staging `.n8n/nodes` folder (AGENT_CORE_E2E_SKIP_BUILD=1
 * packs dist/ as it is); it also records every started n8n and Chromium process group, so a Ctrl-C stops
 * them. n8n comes from the cache of scripts/n8n-cache.js: line 1 by default, AGENT_CORE_BROWSER_N8N=2,
 * "1,2" or all for 2.x. Screenshots: test-output/browser/.
 */
module.exports = {
	testEnvironment: '<rootDir>/test/support/node-environment.js',
	roots: ['<rootDir>/test/browser'],
	testMatch: ['**/*.browser.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	globalSetup: '<rootDir>/test/e2e/support/global-setup.js',
	globalTeardown: '<rootDir>/test/e2e/support/global-teardown.js',
	maxWorkers: 1,
	verbose: true,
	// Every browser step has its own bound (tens of seconds); the set-up (n8n start, or a cold install) has beforeAll's.
	testTimeout: 240000,
	slowTestThreshold: 120,
};
