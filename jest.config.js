/** Behaviour tests run against real parts: a local scripted model server, real Redis, n8n's real engine. */
module.exports = {
	testEnvironment: '<rootDir>/test/support/node-environment.js',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	testTimeout: 30000,
	globalSetup: '<rootDir>/test/support/global-setup.js',
	globalTeardown: '<rootDir>/test/support/global-teardown.js',
};
