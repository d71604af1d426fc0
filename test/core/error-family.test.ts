// One error family (issue #28): every refusal names its field and its fix; the node and the CLI each translate it once.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IExecuteFunctions, INode, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { AgentCore } from '../../nodes/AgentCore/AgentCore.node';
import { agentCoreFieldNames, panelName } from '../../nodes/AgentCore/panel/names';
import { toNodeError } from '../../nodes/shared/node-errors';
import {
	AgentCoreError,
	AuditWriteError,
	BudgetInputError,
	ConfigError,
	InputError,
	MemoryBudgetLedger,
	RunStateError,
	McpServerError,
	SETTINGS,
	UnverifiedRecordError,
	SchemaError,
	ToolRegistry,
	builtInTools,
	resolveConfig,
	type Setting,
} from '../../src';
import { RedisError, ConversationError, InvalidContextInputError } from '../../src/context';
import { errorReport } from '../../src/cli/error-lines';
import { UsageError } from '../../src/cli/flags';
import { useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { runWorkflow } from '../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../support/test-nodes';

const registry = new ToolRegistry(builtInTools);
const thrownBy = (act: () => unknown): unknown => {
	try {
		act();
	} catch (error) {
		return error;
	}
	throw new Error('nothing was thrown');
};

const members: Array<[string, AgentCoreError]> = [
	[
		'ConfigError',
		thrownBy(() => resolveConfig({ model: 'm', max_steps: 0 }, registry)) as ConfigError,
	],
	['InputError', new InputError('prompt', 'prompt must be text, but it was an array')],
	[
		'InvalidContextInputError',
		new InvalidContextInputError('maxSessions', ['must be a positive integer, got 0']),
	],
	[
		'RedisError',
		new RedisError('Redis at 127.0.0.1:1 is unreachable (connect ECONNREFUSED)', {
			failure: 'unreachable',
			address: '127.0.0.1:1',
			operation: 'prepare',
			cause: new Error('ECONNREFUSED'),
		}),
	],
	[
		'RunStateError',
		new RunStateError(
			'run_state was made for another config: resume with the configuration the run was paused with',
		),
	],
	[
		'BudgetInputError',
		new BudgetInputError(
			'shared_budget.scope',
			'shared_budget.scope must be a non-empty string of at most 200 characters',
		),
	],
	['UsageError', new UsageError('--stream-answer must be "as-written" or "checked", not "x"')],
	[
		'SchemaError',
		new SchemaError(
			'output_schema',
			'has $ref "#" at /$ref that leads back to itself',
			'Recurse only through a part of the value',
		),
	],
	[
		'AuditWriteError',
		new AuditWriteError('the audit row of run r1 was not stored (ECONNREFUSED)', true),
	],
	[
		'ConversationError',
		new ConversationError({
			code: 'turn_out_of_range',
			session: 's',
			turn: 1e9,
			last: 12,
			least: 1,
		}),
	],
	[
		'McpServerError',
		new McpServerError(
			'docs',
			'MCP server "docs" (http://10.0.0.7:3001/mcp) refused the connection (ECONNREFUSED)',
			'Check mcp_servers "docs" url and that the server is running.',
		),
	],
	[
		'UnverifiedRecordError',
		new UnverifiedRecordError('r1', {
			part: 'step 1',
			detail: 'step 1 does not match its recorded link: it was changed after the run',
		}),
	],
];

/** A node of `typeVersion`, as toNodeError sees it. */
const contextOf = (typeVersion: number) => {
	const node = {
		id: '1',
		name: 'Agent Core',
		type: 'agentCore',
		typeVersion,
		position: [0, 0],
		parameters: {},
	} as INode;
	return { getNode: () => node } as unknown as IExecuteFunctions;
};
const descriptionOf = (error: AgentCoreError, typeVersion = 2) => {
	const context = contextOf(typeVersion);
	return (
		toNodeError(context, error, 0, agentCoreFieldNames(typeVersion)) as Error & {
			description?: string;
		}
	).description;
};

describe('the error family', () => {
	it.each(members)('%s is an AgentCoreError with a field and a fix', (name, error) => {
		expect(error).toBeInstanceOf(AgentCoreError);
		expect(error.name).toBe(name);
		expect(error.field).not.toBe('');
		expect(error.fix).toMatch(/\S/);
	});

	it('keeps each class’s own properties: key, issues, details with the cause, problem, retried', async () => {
		const config = members[0][1] as ConfigError;
		expect(config).toMatchObject({
			key: 'max_steps',
			field: 'max_steps',
			message: 'max_steps must be an integer from 1 to 1000',
		});
		expect(new InvalidContextInputError('maxSessions', ['a', 'b'])).toMatchObject({
			issues: ['a', 'b'],
			message: 'Invalid maxSessions: a; b',
		});
		const store = members[3][1] as RedisError;
		expect(store).toMatchObject({
			field: 'redis',
			details: { failure: 'unreachable', address: '127.0.0.1:1' },
		});
		expect((store.cause as Error).message).toBe('ECONNREFUSED');
		expect(members[7][1]).toMatchObject({
			problem: 'has $ref "#" at /$ref that leads back to itself',
			message:
				'output_schema has $ref "#" at /$ref that leads back to itself. Recurse only through a part of the value',
		});
		expect(members[8][1]).toMatchObject({ retried: true, field: 'audit.postgres' });
		expect(new RunStateError('x').field).toBe('run_state');
		expect(new UsageError('--stream-answer needs --stream').field).toBe('--stream-answer');
		const refused = await new MemoryBudgetLedger()
			.charge('', 60, { tokens: 1 })
			.catch((error: unknown) => error);
		expect(refused).toMatchObject({ name: 'BudgetInputError', field: 'shared_budget.scope' });
	});

	it('says whether the message already says the fix: a range does, a Redis failure and a schema’s own fix are judged by their text', () => {
		expect(members[0][1].messageSaysFix).toBe(true);
		expect(members[3][1].messageSaysFix).toBe(false);
		expect(members[7][1].messageSaysFix).toBe(true);
		expect(
			new ConfigError(
				'config',
				'config must be a JSON object',
				'Write the config as one JSON object.',
			).messageSaysFix,
		).toBe(false);
	});
});

describe('the node translates it once: the fix in the panel’s words', () => {
	it('names the panel field of a config key, in each version’s words', () => {
		const error = members[0][1];
		expect(descriptionOf(error, 2)).toBe('Correct the value of Options → Max Iterations.');
		expect(descriptionOf(error, 1)).toBe('Correct the value of Limits → Max Steps.');
		expect(
			descriptionOf(
				new ConfigError('total_token_budget', 'total_token_budget must be an integer ≥ 0'),
				2,
			),
		).toBe('Correct the value of Budgets → Token Budget.');
	});

	it('names the panel field of a path inside a config key, and falls back to the engine key where the panel has none', () => {
		const http = thrownBy(() =>
			resolveConfig(
				{ model: 'm', tool_settings: { http_request: { allowed_methods: ['TRACE'] } } },
				registry,
			),
		) as ConfigError;
		expect(http.field).toBe('tool_settings.http_request');
		expect(descriptionOf(http, 2)).toBe(
			'Correct the value of Options → Tool Settings (JSON) → http_request.',
		);
		expect(descriptionOf(http, 1)).toBe(
			'Correct the value of Tool Settings (JSON) → http_request.',
		);
		expect(descriptionOf(new ConfigError('prices', 'prices must be an object'))).toBe(
			'Correct the value of prices.',
		);
		expect(descriptionOf(members[5][1])).toBe('Correct the value of shared_budget.scope.');
	});

	it('keeps the specific fixes of a run state and of Redis, and a schema’s own fix', () => {
		expect(descriptionOf(members[4][1])).toBe(
			"Pass Run State exactly as the paused run's output gave it, with the settings the run paused with.",
		);
		expect(descriptionOf(members[3][1])).toBe(
			'Nothing was written. Check the Redis credential and that Redis is running.',
		);
		expect(descriptionOf(members[7][1])).toBe('Recurse only through a part of the value');
	});

	it('leaves errors outside the family with their message and no description', () => {
		const error = toNodeError(contextOf(2), new Error('boom'), 0) as Error & {
			description?: string;
		};
		expect(error.message).toBe('boom');
		expect(error.description ?? undefined).toBeUndefined();
	});

	/** The path of display names `names` leads to in `properties`, or undefined where a name is missing. */
	function reach(
		properties: readonly INodeProperties[],
		names: string[],
	): INodeProperties | undefined {
		const [first, ...rest] = names;
		const property = properties.find((candidate) => candidate.displayName === first);
		if (!property || rest.length === 0) return property;
		return reach((property.options ?? []) as INodeProperties[], rest);
	}

	it.each([1, 2])(
		'names, in version %i, a field its panel has for every config key with a panel entry',
		(version) => {
			const description: INodeTypeDescription = new AgentCore().nodeVersions[version].description;
			for (const [key, setting] of Object.entries(SETTINGS) as Array<[string, Setting]>) {
				if (!setting.panel || (setting.panel.since ?? 1) > version) continue;
				const field = reach(description.properties, panelName(key, version).split(' → '));
				expect({ key, name: field?.name }).toEqual({ key, name: setting.panel.name });
			}
		},
	);

	describe('in a workflow', () => {
		const server = useScriptedServer();
		const maxStepsZero = async (typeVersion: number) => {
			const parameters =
				typeVersion >= 2 ? { options: { maxSteps: 0 } } : { limits: { maxSteps: 0 } };
			const result = await runWorkflow({
				nodes: [
					createInputNode([{ prompt: 'hello' }]),
					createNode({
						name: 'Agent Core',
						type: 'agentCore',
						typeVersion,
						parameters: {
							provider: 'openai',
							model: { __rl: true, mode: 'id', value: 'm' },
							...parameters,
						},
						settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
					}),
				],
				connections: connectInSequence('Input', 'Agent Core'),
				nodeTypes: { agentCore: new AgentCore() },
				credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
			});
			return result.errorOf('Agent Core') as Error & { description?: string };
		};

		it.each([
			[2, 'Options → Max Iterations'],
			[1, 'Limits → Max Steps'],
		])(
			'a Max Steps of 0 on version %i fails the node with the engine’s message and the panel field (%s) in its description',
			async (typeVersion, name) => {
				const error = await maxStepsZero(typeVersion);
				expect(error.message).toBe('max_steps must be an integer from 1 to 1000');
				expect(error.description).toBe(`Correct the value of ${name}.`);
				expect(server().requests).toHaveLength(0);
			},
		);
	});
});

describe('the CLI translates it once: message, the fix where it adds to it, exit 2', () => {
	const directory = mkdtempSync(join(tmpdir(), 'error-family-'));
	const configFile = (config: unknown) => {
		const file = join(directory, `config-${Math.random().toString(36).slice(2)}.json`);
		writeFileSync(file, JSON.stringify(config));
		return file;
	};

	it('prints a config that is no JSON object with a fix line naming --config, exit 2', async () => {
		const run = await runCli([
			'run',
			'--config',
			configFile([]),
			'--prompt',
			'x',
			'--api-key',
			'k',
			'--base-url',
			'http://127.0.0.1:9',
		]);
		expect(run).toMatchObject({ code: 2, stdout: '' });
		expect(run.stderr).toBe(
			'agent-core: config must be a JSON object\n  fix: Write the --config file as one JSON object of settings, e.g. {"model":"gpt-4o-mini","max_steps":5}.\n',
		);
	});

	it('prints a bad config value whose message says the fix as one line, exit 2', async () => {
		const run = await runCli([
			'run',
			'--config',
			configFile({ model: 'm', max_steps: 0 }),
			'--prompt',
			'x',
			'--api-key',
			'k',
			'--base-url',
			'http://127.0.0.1:9',
		]);
		expect(run).toMatchObject({
			code: 2,
			stdout: '',
			stderr: 'agent-core: max_steps must be an integer from 1 to 1000\n',
		});
	});

	it('prints an unreachable Redis with the fix that names --redis-url and says nothing was written, exit 2', async () => {
		const run = await runCli([
			'run',
			'--config',
			configFile({ model: 'm' }),
			'--prompt',
			'x',
			'--api-key',
			'k',
			'--session',
			's1',
			'--context',
			'redis',
			'--redis-url',
			'redis://127.0.0.1:1',
		]);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(
			/^agent-core: Redis at 127\.0\.0\.1:1 is unreachable .*\n {2}fix: Nothing was written\. Check --redis-url and that Redis is running\.\n$/,
		);
	});

	it('keeps exit 1 and "unexpected failure" for an error outside the family', () => {
		expect(errorReport(new TypeError('x is not a function'))).toEqual({
			text: 'agent-core: unexpected failure: x is not a function\n',
			code: 1,
		});
		expect(errorReport('thrown text')).toEqual({
			text: 'agent-core: unexpected failure: thrown text\n',
			code: 1,
		});
		expect(errorReport(members[6][1])).toEqual({
			text: 'agent-core: --stream-answer must be "as-written" or "checked", not "x"\n',
			code: 2,
		});
	});
});
