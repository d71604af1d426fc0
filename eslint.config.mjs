// n8n's own lint rules for community node packages, as `n8n-node lint` runs them (ESLint 9 flat config):
// @n8n/eslint-plugin-community-nodes, eslint-plugin-n8n-nodes-base, @eslint/js and typescript-eslint.
//
// configWithoutCloudSupport is n8n's preset for packages that are not meant for n8n Cloud verification.
// It leaves out the two Cloud-only rules (no-restricted-imports, no-restricted-globals), which forbid every
// import that is not n8n-workflow: this package needs its runtime dependencies (openai, @google/genai, ajv,
// ioredis, …) and Node built-ins (node:http, node:dns, …), so it can run on self-hosted n8n only.
import { configWithoutCloudSupport } from '@n8n/node-cli/eslint';

/**
 * Rules this package departs from on purpose, each limited to the files concerned and with the reason.
 * scripts/scan-package.js applies the same list: n8n's scanner ignores eslint-disable comments
 * (allowInlineConfig: false), so departures live here rather than inline, and lint and scan agree.
 */
export const deliberateExceptions = [
	{
		files: ['package.json'],
		rules: { '@n8n/community-nodes/no-runtime-dependencies': 'off' },
		reason:
			'The engine runs on its runtime dependencies (openai, @google/genai, ajv, ioredis, p-limit, jmespath, ' +
			'ipaddr.js, zod, zod-to-json-schema, pg, re2js, @pydantic/genai-prices, @opentelemetry/*). n8n accepts them on self-hosted instances; n8n Cloud verification ' +
			'would need them bundled into dist/ instead.',
	},
	{
		files: [
			'credentials/AgentCoreAuditDatabaseApi.credentials.ts',
			'credentials/AgentCoreFeishuBotApi.credentials.ts',
			'credentials/AgentCoreHttpHeaderApi.credentials.ts',
			'credentials/AgentCoreRunStateApi.credentials.ts',
		],
		rules: { '@n8n/community-nodes/credential-test-required': 'off' },
		reason:
			'Each is tested by Agent Core (testedBy), whose versions are node classes in nodes/AgentCore/V1/ and V2/ under the ' +
			'VersionedNodeType package.json lists; the rule reads testedBy only from a class description written in that file. ' +
			'test/node-load.test.ts checks instead that every credential of every node version is tested by a method the version has.',
	},
];

export default [
	{
		// Only the n8n surface is linted with n8n's node rules: package.json, nodes/ and credentials/ (what
		// n8n's scanner lints in a package's source). src/ is the engine, with no n8n import by design, and
		// test/, bench/ and scripts/ are not shipped.
		ignores: [
			'dist/',
			'src/',
			'test/',
			'bench/',
			'scripts/',
			'examples/',
			'coverage/',
			'test-output/',
			'.n8n-cache/',
			'*.js',
		],
	},
	...configWithoutCloudSupport,
	...deliberateExceptions.map(({ files, rules }) => ({ files, rules })),
];
