// Version 2's structured tool settings (issue #28): one collection per built-in tool, derived from its settings schema, shown while the tool is allowed, read into tool_settings under Tool Settings (JSON).
import {
	NodeHelpers,
	type IExecuteFunctions,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { VERSION_1_PANEL } from '../../../../nodes/AgentCore/V1/panel';
import { VERSION_2_PANEL } from '../../../../nodes/AgentCore/V2/panel';
import {
	LEFT_OUT_OF_TOOL_FIELDS,
	TOP_LEVEL_TOOL_FIELDS,
	collectionNameOf,
	toolFieldsOf,
} from '../../../../nodes/AgentCore/V2/tool-fields';
import { resolveConfig } from '../../../../src/settings/config';
import { readFeishuBotSettings } from '../../../../src/tools/feishu-bot';
import { readHttpRequestSettings } from '../../../../src/tools/http-request';
import { readRedisContextSettings } from '../../../../src/tools/redis-context';
import { ToolRegistry, builtInTools } from '../../../../src/tools/registry';
import type { JsonSchema } from '../../../../src/validation/validate';

const versionTwo = new AgentCore().nodeVersions[2].description;
const registry = new ToolRegistry(builtInTools);
const WEBHOOK = 'https://open.feishu.cn/open-apis/bot/v2/hook/test-token';

const toolsWithSettings = builtInTools.filter(
	(tool) => Object.keys(tool.settingsSchema?.properties ?? {}).length > 0,
);
const propertiesOf = (toolName: string) =>
	(registry.get(toolName)!.settingsSchema!.properties ?? {}) as Record<string, JsonSchema>;
const collectionOf = (toolName: string) =>
	versionTwo.properties.find((property) => property.name === collectionNameOf(toolName));
const fieldsIn = (collection: INodeProperties | undefined) =>
	(collection?.options ?? []) as INodeProperties[];

/** The fields and credential pickers n8n's editor shows for these parameters, in panel order (as in agent-core-v2-panel.test.ts). */
function firstView(changes: INodeParameters = {}): string[] {
	const node = {
		id: '1',
		name: 'Agent Core',
		type: 'agentCore',
		typeVersion: 2,
		position: [0, 0],
		parameters: changes,
	} as INode;
	const values =
		NodeHelpers.getNodeParameters(versionTwo.properties, changes, true, false, node, versionTwo) ??
		{};
	return versionTwo.properties
		.filter(
			(property) =>
				property.type !== 'notice' &&
				NodeHelpers.displayParameter(values, property, node, versionTwo),
		)
		.map((property) => property.displayName);
}

/** A node's execute context as withToolFields reads it: the node's version and chosen credentials, and its parameters. */
function contextFor(
	parameters: Record<string, unknown>,
	node: { typeVersion?: number; credentials?: Record<string, unknown> } = {},
): IExecuteFunctions {
	return {
		getNode: () => ({ typeVersion: 2, credentials: {}, ...node }),
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) =>
			name in parameters ? structuredClone(parameters[name]) : fallback,
	} as unknown as IExecuteFunctions;
}

const settingsFrom = (
	parameters: Record<string, unknown>,
	json: Record<string, Record<string, unknown>> = {},
	node?: Parameters<typeof contextFor>[1],
) =>
	((node?.typeVersion ?? 2) >= 2 ? VERSION_2_PANEL : VERSION_1_PANEL).withToolFields(
		contextFor(parameters, node),
		0,
		json,
		(parameters.allowedTools as string[] | undefined) ?? [],
	);

/** The engine's config check on these tool settings: the ConfigError's message, or undefined when accepted. */
function configProblem(
	allowed: string[],
	toolSettings: Record<string, Record<string, unknown>>,
): string | undefined {
	try {
		resolveConfig({ model: 'm', allowed_tools: allowed, tool_settings: toolSettings }, registry);
		return undefined;
	} catch (error) {
		expect((error as Error).name).toBe('ConfigError');
		return (error as Error).message;
	}
}

describe('Agent Core version 2: structured tool settings', () => {
	it('has a settings collection for every built-in tool with settings, and none for a tool without', () => {
		expect(toolsWithSettings.map((tool) => tool.name).sort()).toEqual([
			'feishu_bot',
			'http_request',
			'redis_context',
		]);
		for (const tool of builtInTools)
			expect([tool.name, collectionOf(tool.name) !== undefined]).toEqual([
				tool.name,
				toolsWithSettings.includes(tool),
			]);
		expect(toolsWithSettings.map((tool) => collectionOf(tool.name)!.displayName).sort()).toEqual([
			'Feishu / Lark Bot Settings',
			'HTTP Request Settings',
			'Redis Context Settings',
		]);
	});

	it("shows each tool's collection only while that tool is allowed, and leaves the first view at the defaults as it was", () => {
		expect(firstView()).toEqual([
			'Input',
			'Prompt (User Message)',
			'Provider',
			'Enable Fallback Model',
			'Allowed Tools',
			'Governance (Approval, Audit, Budgets, Durable Runs)',
			'Options',
		]);
		const names = toolsWithSettings.map((tool) => collectionOf(tool.name)!.displayName);
		for (const tool of builtInTools) {
			const shown = firstView({ allowedTools: [tool.name] }).filter((name) => names.includes(name));
			expect([tool.name, shown]).toEqual([
				tool.name,
				collectionOf(tool.name) ? [collectionOf(tool.name)!.displayName] : [],
			]);
		}
		expect(firstView({ allowedTools: ['redis_context', 'feishu_bot'] })).toEqual(
			expect.arrayContaining(['Redis Context Settings', 'Feishu / Lark Bot Settings']),
		);
		expect(firstView({ allowedTools: ['redis_context', 'feishu_bot'] })).not.toContain(
			'HTTP Request Settings',
		);
	});

	it('places the collections right after Allowed Tools and Allowed Domains', () => {
		const view = firstView({ allowedTools: builtInTools.map((tool) => tool.name) });
		const start = view.indexOf('Allowed Tools');
		expect(view.slice(start, start + 5)).toEqual([
			'Allowed Tools',
			'Allowed Domains',
			'Feishu / Lark Bot Settings',
			'HTTP Request Settings',
			'Redis Context Settings',
		]);
	});

	it('reaches every settings property of each tool as a field, except the documented ones left out (secrets, connections, nested objects)', () => {
		for (const tool of toolsWithSettings) {
			const leftOut = LEFT_OUT_OF_TOOL_FIELDS[tool.name] ?? {};
			const topLevel = TOP_LEVEL_TOOL_FIELDS[tool.name] ?? {};
			const inCollection = new Set(fieldsIn(collectionOf(tool.name)).map((field) => field.name));
			const shownWithTool = firstView({ allowedTools: [tool.name] });
			const unreachable = Object.keys(propertiesOf(tool.name)).filter((key) => {
				if (key in leftOut) return false;
				if (key in topLevel) {
					const field = versionTwo.properties.find(
						(property) => property.name === topLevel[key].name,
					);
					return !field || !shownWithTool.includes(field.displayName);
				}
				return !inCollection.has(
					key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase()),
				);
			});
			expect([tool.name, unreachable]).toEqual([tool.name, []]);
			// Each left-out entry names a property the schema has, with its reason, so the list cannot go stale.
			for (const [key, reason] of Object.entries(leftOut))
				expect([tool.name, key, key in propertiesOf(tool.name), reason.length > 20]).toEqual([
					tool.name,
					key,
					true,
					true,
				]);
		}
	});

	it("gives each field the schema's type, bounds, choices and description", () => {
		for (const tool of toolsWithSettings) {
			for (const { key, property } of toolFieldsOf(tool)) {
				const schema = propertiesOf(tool.name)[key];
				const shown = fieldsIn(collectionOf(tool.name)).find(
					(field) => field.name === property.name,
				)!;
				expect(shown).toEqual(property);
				const choices = (schema.enum ?? (schema.items as JsonSchema | undefined)?.enum) as
					| string[]
					| undefined;
				if (choices)
					expect(
						((shown.options ?? []) as INodePropertyOptions[]).map((option) => option.value).sort(),
					).toEqual([...choices].sort());
				if (schema.type === 'integer' || schema.type === 'number') {
					expect([
						key,
						shown.type,
						shown.typeOptions?.minValue,
						shown.typeOptions?.maxValue,
					]).toEqual([key, 'number', schema.minimum, schema.maximum]);
				}
				if (schema.type === 'boolean') expect(shown.description).toMatch(/^Whether /);
				expect(
					shown.description
						?.replace(/^Whether to /, '')
						.toLowerCase()
						.slice(0, 20),
				).toBe(String(schema.description).toLowerCase().slice(0, 20));
				expect(shown.displayName).toMatch(/^[A-Z]/);
			}
		}
	});

	it("gives each field the tool's own default: fields added and left alone change nothing", () => {
		const allAdded = Object.fromEntries(
			toolsWithSettings.map((tool) => [
				collectionNameOf(tool.name),
				Object.fromEntries(
					toolFieldsOf(tool).map(({ property }) => [property.name, property.default]),
				),
			]),
		);
		const settings = settingsFrom(
			{ allowedTools: toolsWithSettings.map((tool) => tool.name), ...allAdded },
			{ feishu_bot: { webhook_url: WEBHOOK } },
		);

		expect(readHttpRequestSettings(settings.http_request)).toEqual(readHttpRequestSettings({}));
		expect(readRedisContextSettings(settings.redis_context)).toEqual(readRedisContextSettings({}));
		expect(readFeishuBotSettings(settings.feishu_bot)).toEqual(
			readFeishuBotSettings({ webhook_url: WEBHOOK }),
		);
		expect(
			configProblem(
				toolsWithSettings.map((tool) => tool.name),
				settings,
			),
		).toBeUndefined();
	});

	it("puts an allowed tool's collection values into tool_settings under the schema's keys", () => {
		const settings = settingsFrom({
			allowedTools: ['http_request', 'redis_context', 'feishu_bot'],
			httpRequestSettings: {
				allowedMethods: ['GET', 'POST'],
				maxRedirects: 2,
				allowPrivateNetwork: true,
				egressHosts: 'from_prompt',
			},
			redisContextSettings: { keyPrefix: 'team:', ttlSeconds: 60 },
			feishuBotSettings: { timeoutMs: 5000 },
		});

		expect(settings).toEqual({
			http_request: {
				allowed_methods: ['GET', 'POST'],
				max_redirects: 2,
				allow_private_network: true,
				egress_hosts: 'from_prompt',
			},
			redis_context: { key_prefix: 'team:', ttl_seconds: 60 },
			feishu_bot: { timeout_ms: 5000 },
		});
	});

	it('lets a key set in Tool Settings (JSON) win over its field, field by field', () => {
		const settings = settingsFrom(
			{
				allowedTools: ['http_request'],
				httpAllowedDomains: 'api.example.com',
				httpRequestSettings: { maxRedirects: 2, maxResponseBytes: 500, allowedMethods: ['GET'] },
			},
			{ http_request: { max_redirects: 0, allowed_domains: ['json.example.com'] } },
		);

		expect(settings).toEqual({
			http_request: {
				max_redirects: 0,
				max_response_bytes: 500,
				allowed_methods: ['GET'],
				allowed_domains: ['json.example.com'],
			},
		});
	});

	it('adds nothing for a tool that is not allowed, and no entry for an allowed tool whose fields are unset', () => {
		const json = { redis_context: { ttl_seconds: 5 } };
		const settings = settingsFrom(
			{
				allowedTools: ['http_request', 'feishu_bot'],
				httpAllowedDomains: '',
				httpRequestSettings: { allowedMethods: [] },
				feishuBotSettings: {},
				redisContextSettings: { ttlSeconds: 60 },
			},
			json,
		);

		expect(settings).toEqual({ redis_context: { ttl_seconds: 5 } });
		expect(
			settingsFrom({
				allowedTools: [],
				httpAllowedDomains: 'api.example.com',
				httpRequestSettings: { maxRedirects: 1 },
			}),
		).toEqual({});
	});

	it('keeps Allowed Domains (HTTP Request) as it was: a comma-separated list, not read when an HTTP Request Tool credential brings the hosts', () => {
		const parameters = {
			allowedTools: ['http_request'],
			httpAllowedDomains: 'api.example.com, *.example.org  docs.example.com',
			httpRequestSettings: { maxRedirects: 1 },
		};

		expect(settingsFrom(parameters)).toEqual({
			http_request: {
				allowed_domains: ['api.example.com', '*.example.org', 'docs.example.com'],
				max_redirects: 1,
			},
		});
		expect(
			settingsFrom(
				parameters,
				{},
				{ credentials: { agentCoreHttpHeaderApi: { id: '1', name: 'API' } } },
			),
		).toEqual({ http_request: { max_redirects: 1 } });
	});

	it('leaves version 1 nodes, which have no such fields, as they were', () => {
		const parameters = {
			allowedTools: ['http_request'],
			httpAllowedDomains: 'api.example.com',
			httpRequestSettings: { maxRedirects: 1 },
		};

		expect(
			settingsFrom(parameters, { http_request: { max_redirects: 3 } }, { typeVersion: 1 }),
		).toEqual({ http_request: { max_redirects: 3 } });
	});

	it('leaves a Tool Settings (JSON) entry that is not an object for the engine to refuse by name', () => {
		const settings = settingsFrom(
			{ allowedTools: ['redis_context'], redisContextSettings: { ttlSeconds: 60 } },
			{ redis_context: 'fast' } as never,
		);

		expect(settings).toEqual({ redis_context: 'fast' });
		expect(configProblem(['redis_context'], settings)).toMatch(
			/^tool_settings\b.*must be an object/,
		);
	});

	/** The error reading the fields throws (issue #41: a field's bad value is named by the field, before the run). */
	const fieldProblem = (...args: Parameters<typeof settingsFrom>) => {
		try {
			settingsFrom(...args);
			return undefined;
		} catch (error) {
			return (error as Error).message;
		}
	};

	it("has a value past a field's bounds refused before the run, naming the field as the panel shows it (not tool_settings.<tool>.<key>)", () => {
		let checked = 0;
		for (const tool of toolsWithSettings) {
			for (const { key, property } of toolFieldsOf(tool).filter(
				(field) => field.property.type === 'number',
			)) {
				const beyond = (property.typeOptions?.maxValue as number | undefined) ?? undefined;
				const values = [
					beyond !== undefined ? beyond + 1 : undefined,
					(property.typeOptions?.minValue as number) - 1,
				].filter((value) => value !== undefined);
				for (const value of values) {
					const problem = fieldProblem(
						{
							allowedTools: [tool.name],
							[collectionNameOf(tool.name)]: { [property.name]: value },
						},
						tool.name === 'feishu_bot' ? { feishu_bot: { webhook_url: WEBHOOK } } : {},
					);
					const name = `${collectionOf(tool.name)!.displayName} → ${property.displayName}`;
					expect([key, value, problem]).toEqual([
						key,
						value,
						expect.stringMatching(new RegExp(`^${name.replace(/[()]/g, '\\$&')}: must be`)),
					]);
					checked++;
				}
			}
		}
		expect(checked).toBe(12);
		// A string the schema bounds too: an emptied Key Prefix.
		expect(
			fieldProblem({ allowedTools: ['redis_context'], redisContextSettings: { keyPrefix: '' } }),
		).toMatch(/^Redis Context Settings → Key Prefix: /);
	});
});
