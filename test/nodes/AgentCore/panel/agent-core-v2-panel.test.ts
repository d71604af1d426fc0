// Agent Core version 2 (issue #28): a short first view at the defaults, n8n's names, and every setting of version 1 still reachable.
import {
	NodeHelpers,
	type INode,
	type INodeCredentialDescription,
	type INodeParameters,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { agentCoreMethods } from '../../../../nodes/AgentCore/methods';

const agentCore = new AgentCore();
const versionOne = agentCore.nodeVersions[1].description;
const versionTwo = agentCore.nodeVersions[2].description;

/** The fields and credential pickers n8n's editor shows for these parameters, in panel order (notices left out). */
function firstView(description: INodeTypeDescription, changes: INodeParameters = {}): string[] {
	const node = {
		id: '1',
		name: 'Agent Core',
		type: 'agentCore',
		typeVersion: description.version as number,
		position: [0, 0],
		parameters: changes,
	} as INode;
	// The values the editor holds for a new node: every default, with the user's changes (as the editor computes them).
	const values =
		NodeHelpers.getNodeParameters(
			description.properties,
			changes,
			true,
			false,
			node,
			description,
		) ?? {};
	const shown = (entry: INodeProperties | INodeCredentialDescription) =>
		NodeHelpers.displayParameter(values, entry, node, description);
	const fields = description.properties
		.filter((property) => property.type !== 'notice' && shown(property))
		.map((property) => property.displayName);
	const pickers = (description.credentials ?? [])
		.filter(shown)
		.map((credential) => `credential:${credential.name}`);
	return [...fields, ...pickers];
}

const noticesShown = (description: INodeTypeDescription, parameters: INodeParameters) => {
	const node = {
		id: '1',
		name: 'Agent Core',
		type: 'agentCore',
		typeVersion: 2,
		position: [0, 0],
		parameters,
	} as INode;
	const values =
		NodeHelpers.getNodeParameters(
			description.properties,
			parameters,
			true,
			false,
			node,
			description,
		) ?? {};
	return description.properties
		.filter(
			(property) =>
				property.type === 'notice' &&
				NodeHelpers.displayParameter(values, property, node, description),
		)
		.map((property) => property.displayName);
};

/** Every parameter name at any depth (collections, their nested collections and fixed collections). */
function allNames(properties: readonly INodeProperties[]): string[] {
	return properties.flatMap((property) => {
		const nested = (property.options ?? []).flatMap((entry) => {
			if ('type' in entry) return allNames([entry as INodeProperties]);
			if ('values' in entry) return allNames(entry.values as INodeProperties[]);
			return [];
		});
		return property.type === 'collection' || property.type === 'fixedCollection'
			? nested
			: [property.name, ...nested];
	});
}

describe('Agent Core version 2 panel', () => {
	it('is what a new node gets, while saved version 1 nodes keep version 1', () => {
		expect(agentCore.description.defaultVersion).toBe(2);
		expect(agentCore.getNodeType().description.version).toBe(2);
		expect(agentCore.getNodeType(1).description.properties).toBe(versionOne.properties);
	});

	it('opens with at most 7 fields and credential pickers at the defaults, the prompt among the first three', () => {
		const view = firstView(versionTwo);

		expect(view).toEqual([
			'Input',
			'Prompt (User Message)',
			'Provider',
			'Enable Fallback Model',
			'Allowed Tools',
			'Governance (Approval, Audit, Budgets, Durable Runs)',
			'Options',
		]);
		expect(view.length).toBeLessThanOrEqual(7);
		expect(view.indexOf('Prompt (User Message)')).toBeLessThan(3);
		// Version 1 opened with 15 fields and 2 pickers (the count issue #28 starts from): unchanged.
		expect(firstView(versionOne)).toHaveLength(17);
	});

	it("has no field named operation, so n8n's node creator adds a new node on its defaults (Governance and Require Approval off)", () => {
		// n8n's node creator makes an action of each `operation` option and sets that field's show conditions on
		// the node it adds: with Resume behind Governance → Require Approval, a new node started with both on
		// (seen in n8n 2.41.1's editor by test/browser/first-agent.browser.ts).
		expect(versionTwo.properties.map((property) => property.name)).not.toContain('operation');
		const resume = versionTwo.properties.find((property) => property.name === 'runOrResume')!;
		expect(resume.displayOptions?.show).toEqual({ governance: [true], needsApproval: [true] });
		expect(
			firstView(versionTwo, { governance: true, needsApproval: true, runOrResume: 'resume' }),
		).toEqual(expect.arrayContaining(['Run State']));
		expect(firstView(versionTwo, { governance: true, needsApproval: true })).not.toContain(
			'Run State',
		);
	});

	it("defaults the provider to the Connected Chat Model, as n8n's AI Agent, and gives each provider a model to start from", () => {
		expect(firstView(versionTwo)).not.toContain('Model');
		expect(firstView(versionTwo, { provider: 'openai' })).toEqual(
			expect.arrayContaining(['Model', 'credential:agentCoreOpenAiApi']),
		);
		const values = (provider: string) =>
			NodeHelpers.getNodeParameters(
				versionTwo.properties,
				{ provider },
				true,
				false,
				{ typeVersion: 2, parameters: {} } as unknown as INode,
				versionTwo,
			);
		expect(values('openai')?.model).toMatchObject({ value: 'gpt-4o-mini' });
		expect(values('gemini')?.model).toMatchObject({ value: 'gemini-2.5-flash' });
	});

	it('shows a credential picker only with the setting that uses it, the optional Redis one included', () => {
		expect(firstView(versionTwo).filter((entry) => entry.startsWith('credential:'))).toEqual([]);
		expect(firstView(versionTwo, { allowedTools: ['redis_context'] })).not.toContain(
			'credential:agentCoreRedisApi',
		);
		expect(firstView(versionTwo, { governance: true })).toContain('credential:agentCoreRedisApi');
		expect(firstView(versionTwo, { allowedTools: ['http_request'] })).toContain(
			'credential:agentCoreHttpHeaderApi',
		);
		expect(firstView(versionTwo, { governance: true, needsApproval: true })).toEqual(
			expect.arrayContaining(['Operation', 'credential:agentCoreRunStateApi']),
		);
		expect(firstView(versionTwo, { governance: true, auditTrail: true })).toContain(
			'credential:agentCoreAuditDatabaseApi',
		);
		// Require Approval left on while Governance is off asks for nothing.
		expect(firstView(versionTwo, { needsApproval: true })).not.toContain(
			'credential:agentCoreRunStateApi',
		);
	});

	it("leaves n8n 1.x's editor no field to take for the authentication field and hide, in either version", () => {
		// n8n 1.123's editor (editor-ui utils/nodeTypesUtils.ts, getMainAuthField / findAlternativeAuthField):
		// the fields named in credentials' displayOptions.show are "auth fields"; the first without an option
		// value no credential names is the main one, and then it and every field named in an auth field's own
		// show are hidden from the panel. With Governance named there, version 2's Governance toggle vanished.
		for (const description of [versionOne, versionTwo]) {
			const named = new Map<string, string[]>();
			for (const credential of description.credentials ?? []) {
				for (const [field, values] of Object.entries(credential.displayOptions?.show ?? {}))
					named.set(field, [...(named.get(field) ?? []), ...(values ?? []).map(String)]);
			}
			const authFields = description.properties.filter((property) => named.has(property.name));
			const main = authFields.find(
				(field) =>
					!(field.options ?? []).some(
						(option) =>
							'value' in option &&
							typeof option.value === 'string' &&
							!named.get(field.name)!.includes(option.value),
					),
			);
			expect(main?.name).toBeUndefined();
		}
	});

	it('shows Durable Runs under Governance, and its Run Key once it is on, with the Redis and Run State pickers', () => {
		expect(firstView(versionTwo)).not.toContain('Durable Runs');
		const governed = firstView(versionTwo, { governance: true });
		expect(governed).toEqual(
			expect.arrayContaining([
				'Durable Runs',
				'credential:agentCoreRedisApi',
				'credential:agentCoreRunStateApi',
			]),
		);
		expect(governed).not.toContain('Run Key');
		expect(firstView(versionTwo, { governance: true, durableRuns: true })).toContain('Run Key');
		expect(firstView(versionTwo, { durableRuns: true })).not.toContain('Run Key');
		// Version 1 has no durable runs: the engine's options, and n8n 1.x's re-processed jobs, reach them through version 2.
		expect(allNames(versionOne.properties)).not.toContain('durableRuns');
	});

	it('groups approval, audit and budgets behind Governance', () => {
		const governed = firstView(versionTwo, { governance: true });
		expect(governed).toEqual(
			expect.arrayContaining(['Require Approval', 'Audit Trail', 'Budgets']),
		);
		for (const field of ['Require Approval', 'Audit Trail', 'Budgets'])
			expect(firstView(versionTwo)).not.toContain(field);
	});

	it('warns in the panel when HTTP Request is allowed, since without allowed domains it reaches any public host', () => {
		expect(noticesShown(versionTwo, {})).toEqual([]);
		expect(noticesShown(versionTwo, { allowedTools: ['http_request'] })).toEqual([
			'HTTP Request may reach any public host: list the hosts it may call in Allowed Domains above, ' +
				'or select an HTTP Request Tool credential (which names its hosts)',
		]);
		expect(
			noticesShown(versionTwo, {
				allowedTools: ['http_request'],
				httpAllowedDomains: 'api.example.com',
			}),
		).toEqual([]);
		// The field the notice names, by a label short enough that n8n's panel does not cut it ("HTTP Request: Allowed Dom…").
		expect(firstView(versionTwo, { allowedTools: ['http_request'] })).toContain('Allowed Domains');
		expect(firstView(versionTwo, { allowedTools: ['http_request'] })).not.toContain(
			'HTTP Request: Allowed Domains',
		);
	});

	it("uses n8n's names for n8n's settings", () => {
		const options = versionTwo.properties.find((property) => property.name === 'options')!
			.options as INodeProperties[];
		const names = options.map((property) => property.displayName);
		expect(names).toEqual(
			expect.arrayContaining([
				'System Message',
				'Max Iterations',
				'Enable Streaming',
				'Batch Processing',
				'Require Specific Output Format',
			]),
		);
		expect(names).not.toEqual(expect.arrayContaining(['Instructions']));
		expect(names).not.toContain('Max Steps');
		expect(names).not.toContain('Stream Response');
	});

	it('takes MCP servers in Options → MCP Servers (JSON), in version 2 only, and says Read-Only Tools takes <server>.<tool> there', () => {
		const options = versionTwo.properties.find((property) => property.name === 'options')!
			.options as INodeProperties[];
		const mcp = options.find((property) => property.name === 'mcpServersJson');
		expect(mcp).toMatchObject({ displayName: 'MCP Servers (JSON)', type: 'json', default: '[]' });
		expect(mcp!.description).toContain('saved with the workflow');
		expect(options.find((property) => property.name === 'readOnlyTools')!.description).toContain(
			'&lt;server&gt;.&lt;tool&gt;',
		);
		expect(firstView(versionTwo)).not.toContain('MCP Servers (JSON)');
		expect(allNames(versionOne.properties)).not.toContain('mcpServersJson');
	});

	it('reaches every setting version 1 reaches, under the same parameter name (Output Format became a toggle, Operation runOrResume)', () => {
		const renamed: Record<string, string> = {
			outputFormat: 'requireOutputFormat',
			operation: 'runOrResume',
		};
		const inVersionTwo = new Set(allNames(versionTwo.properties));
		const versionOneSettings = allNames(versionOne.properties);
		expect(versionOneSettings.length).toBeGreaterThan(45);
		expect(versionOneSettings.filter((name) => !inVersionTwo.has(renamed[name] ?? name))).toEqual(
			[],
		);
	});

	it('offers the workflow tools of Options (version 2) or of the top level (version 1) to Tools Needing Approval', async () => {
		const tools = { tools: [{ name: 'lookup_customer' }] };
		const listFor = (typeVersion: number, parameters: Record<string, unknown>) =>
			agentCoreMethods.loadOptions.getApprovalTools.call({
				getNode: () => ({ typeVersion }),
				getCurrentNodeParameter: (path: string) =>
					path.split('.').reduce<any>((value, key) => value?.[key], parameters),
			} as never);

		expect(
			await listFor(2, { allowedTools: ['http_request'], options: { workflowTools: tools } }),
		).toEqual([
			{ name: 'http_request', value: 'http_request' },
			{ name: 'lookup_customer', value: 'lookup_customer' },
		]);
		expect(await listFor(1, { allowedTools: [], workflowTools: tools })).toEqual([
			{ name: 'lookup_customer', value: 'lookup_customer' },
		]);
	});
});
