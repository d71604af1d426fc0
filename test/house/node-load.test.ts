// Loading the nodes as n8n does at start loads their panels only: no engine run path, no heavy client (issue #39).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	ICredentialType,
	ILoadOptionsFunctions,
	INodeType,
	VersionedNodeType,
} from 'n8n-workflow';
import { AgentContext } from '../../nodes/AgentContext/AgentContext.node';
import { AgentContextMemory } from '../../nodes/AgentContextMemory/AgentContextMemory.node';
import { AgentCore } from '../../nodes/AgentCore/AgentCore.node';

const ROOT = join(__dirname, '..', '..');

/** Node packages a default run never touches, or touches only on first use: none may load with the panels. */
const HEAVY_PACKAGES = [
	'@modelcontextprotocol/sdk',
	'pg',
	'@opentelemetry/',
	'@pydantic/genai-prices',
	'openai',
	'@google/genai',
	'ioredis',
	'@langchain/',
	// The http_request tool's address policy, loaded by its first call.
	'ipaddr.js',
];
/** The package's own run path and the tools beside it: replay, fork, the CLI, telemetry, the audit trail, the engine's index. */
const HEAVY_OWN = [
	'dist/src/agent/run-agent.js',
	'dist/src/audit/',
	'dist/src/agent/calls/',
	'dist/src/agent/model/',
	'dist/src/replay/',
	'dist/src/cli/',
	'dist/src/telemetry/',
	'dist/src/index.js',
	'dist/nodes/AgentCore/execute/',
	'dist/nodes/AgentContext/execute.js',
	'dist/nodes/AgentContextMemory/supply.js',
	// The built-in tools' calls: the panels read only their names, descriptions and schemas.
	'dist/src/tools/http-request/egress.js',
	'dist/src/tools/redis-context-call.js',
	'dist/src/redis/managed-client.js',
];

/** What a fresh Node process loads when it requires n8n's listed nodes and credentials after n8n-workflow, as n8n does. */
function modulesLoadedByTheNodes(): string[] {
	const { n8n } = require('../../package.json') as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const files = [...n8n.credentials, ...n8n.nodes].map((file) => join(ROOT, file));
	const missing = files.filter((file) => !existsSync(file));
	if (missing.length)
		throw new Error(`${missing.join(', ')} missing: run npx tsc -p tsconfig.build.json first`);
	const child = `require('n8n-workflow'); const before = new Set(Object.keys(require.cache));
    for (const file of ${JSON.stringify(files)}) require(file);
    process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((file) => !before.has(file))));`;
	const loaded = JSON.parse(
		execFileSync(process.execPath, ['-e', child], { cwd: ROOT, encoding: 'utf8' }),
	) as string[];
	return loaded.map((file) => file.split('\\').join('/'));
}

/** The package a node_modules path belongs to, e.g. `@langchain/core` or `pg`. */
const packageOf = (file: string) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];

describe('loading the nodes as n8n does at start', () => {
	it('loads none of the engine run path nor the clients a run opens on first use, only the panels', () => {
		const loaded = modulesLoadedByTheNodes();
		const packages = [...new Set(loaded.flatMap((file) => packageOf(file) ?? []))];
		expect(
			packages.filter((name) =>
				HEAVY_PACKAGES.some((heavy) =>
					heavy.endsWith('/') ? name.startsWith(heavy) : name === heavy,
				),
			),
		).toEqual([]);
		const own = loaded
			.filter((file) => file.startsWith(`${ROOT.split('\\').join('/')}/dist/`))
			.map((file) => file.slice(ROOT.length + 1));
		expect(own.filter((file) => HEAVY_OWN.some((heavy) => file.startsWith(heavy)))).toEqual([]);
		expect(own).toEqual(
			expect.arrayContaining([
				'dist/nodes/AgentCore/V1/description.js',
				'dist/nodes/AgentCore/V2/description.js',
			]),
		);
		// The count to watch (npm run bench:load prints it with the time and memory); logged, never a limit.
		console.log(`the nodes and credentials load ${own.length} of the package's own modules`);
	});
});

describe('the execute paths, loaded on the first run', () => {
	it("load the run path through src/run-path.ts: not the library's index, replay, the CLI nor the demo (issue #49)", () => {
		const paths = [
			'dist/nodes/AgentCore/execute/index.js',
			'dist/nodes/AgentContext/execute.js',
			'dist/nodes/AgentContextMemory/supply.js',
		].map((file) => join(ROOT, file));
		const child = `for (const file of ${JSON.stringify(paths)}) require(file);
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
		const own = (
			JSON.parse(
				execFileSync(process.execPath, ['-e', child], { cwd: ROOT, encoding: 'utf8' }),
			) as string[]
		)
			.map((file) => file.split('\\').join('/'))
			.filter((file) => file.startsWith(`${ROOT.split('\\').join('/')}/dist/`))
			.map((file) => file.slice(ROOT.length + 1));
		const neverOnTheRunPath = [
			'dist/src/index.js',
			'dist/src/cli',
			'dist/src/replay/',
			'dist/src/demo/',
		];
		expect(own.filter((file) => neverOnTheRunPath.some((path) => file.startsWith(path)))).toEqual(
			[],
		);
		expect(own).toEqual(
			expect.arrayContaining(['dist/src/run-path.js', 'dist/src/agent/run-agent.js']),
		);
	});
});

describe('the node methods, loaded on first call', () => {
	const versionTwo = (new AgentCore() as VersionedNodeType).getNodeType(2) as INodeType;
	const redis = (port: number) =>
		({
			id: '1',
			name: 'Redis',
			type: 'agentCoreRedisApi',
			data: { host: '127.0.0.1', port, database: 0 },
		}) as unknown as ICredentialsDecrypted;

	it("reach their bodies: Agent Core's, Agent Context's and its memory sub-node's Redis credential tests answer for a real Redis and a closed port", async () => {
		const contextTest = new AgentContext().methods.credentialTest.agentCoreRedisApiTest;
		const memoryTest = new AgentContextMemory().methods.credentialTest.agentCoreRedisApiTest;
		for (const test of [
			versionTwo.methods!.credentialTest!.agentCoreRedisApiTest,
			contextTest,
			memoryTest,
		]) {
			expect(await test.call({} as ICredentialTestFunctions, redis(6379))).toMatchObject({
				status: 'OK',
			});
			expect(await test.call({} as ICredentialTestFunctions, redis(1))).toMatchObject({
				status: 'Error',
			});
		}
	});

	it('list the tools Require Approval can name from the panel being edited', async () => {
		const parameters: Record<string, unknown> = {
			allowedTools: ['http_request'],
			options: { workflowTools: { tools: [{ name: 'lookup' }] } },
		};
		const parameterAt = (path: string) =>
			path.split('.').reduce<any>((value, key) => value?.[key], parameters);
		const context = { getNode: () => ({ typeVersion: 2 }), getCurrentNodeParameter: parameterAt };
		const tools = await versionTwo.methods!.loadOptions!.getApprovalTools.call(
			context as unknown as ILoadOptionsFunctions,
		);
		expect(tools).toEqual([
			{ name: 'http_request', value: 'http_request' },
			{ name: 'lookup', value: 'lookup' },
		]);
	});
});

describe('the credentials each node version offers', () => {
	// eslint.config.mjs turns off n8n's credential-test-required for four credentials: the rule reads testedBy only
	// from a node class written in the file package.json lists, and Agent Core's versions live in V1/ and V2/.
	it('are each tested: by a method of that version (testedBy), or by the credential type itself', () => {
		const credentialTypes = new Map<string, ICredentialType>();
		for (const file of readdirSync(join(ROOT, 'credentials')).filter((name) =>
			name.endsWith('.credentials.ts'),
		)) {
			for (const Type of Object.values(
				require(join(ROOT, 'credentials', file)) as Record<string, new () => ICredentialType>,
			)) {
				const credential = new Type();
				credentialTypes.set(credential.name, credential);
			}
		}
		const agentCore = new AgentCore() as VersionedNodeType;
		const versions: Array<[string, INodeType]> = [
			...Object.entries(agentCore.nodeVersions).map(
				([version, node]) => [`Agent Core ${version}`, node] as [string, INodeType],
			),
			['Agent Context', new AgentContext()],
			['Agent Context Memory', new AgentContextMemory()],
		];
		const untested = versions.flatMap(([label, node]) =>
			(node.description.credentials ?? []).flatMap((credential) => {
				if (!credentialTypes.has(credential.name))
					return [`${label}: ${credential.name} is no credential type of the package`];
				if (credential.testedBy === undefined)
					return credentialTypes.get(credential.name)!.test
						? []
						: [`${label}: ${credential.name} is untested`];
				const method =
					typeof credential.testedBy === 'string'
						? node.methods?.credentialTest?.[credential.testedBy]
						: undefined;
				return typeof method === 'function'
					? []
					: [`${label}: ${credential.name} names a test ${String(credential.testedBy)} it lacks`];
			}),
		);
		expect(untested).toEqual([]);
		expect(versions.map(([label]) => label)).toEqual([
			'Agent Core 1',
			'Agent Core 2',
			'Agent Context',
			'Agent Context Memory',
		]);
	});
});
