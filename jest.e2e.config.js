/**
 * `npm run test:e2e`: the packed package installed into real n8n processes (1.x on Node 20, 2.x on Node 24,
 * from the cache of scripts/n8n-cache.js) and driven through production webhooks. One suite file per n8n
 * line, plus n8n-2-queue (2.x in queue mode: main + two workers on PostgreSQL); they run one after the
 * other, since each n8n start wants both cores. Needs Redis (all suites) and PostgreSQL (queue mode).
 * Select suites with `npm run test:e2e -- n8n-1` (n8n-2 also runs n8n-2-queue; `-- queue` runs it alone).
 */
module.exports = {
	testEnvironment: '<rootDir>/test/support/node-environment.js',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	globalSetup: '<rootDir>/test/e2e/support/global-setup.js',
	globalTeardown: '<rootDir>/test/e2e/support/global-teardown.js',
	maxWorkers: 1,
	verbose: true,
	// Scenarios are bounded by their own request timeouts; set-up (a cold n8n install) by beforeAll's.
	testTimeout: 120000,
	slowTestThreshold: 60,
};
