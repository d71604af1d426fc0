// Issue #41: version 2's Governance explains itself — pickers say what they are for, Require Approval's field
// shows beside it, hints on Run State and Durable Runs, a Run Key default for both n8n lines, MCP Servers as [].
import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { AgentContext } from '../../../../nodes/AgentContext/AgentContext.node';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { RUN_KEY_DEFAULT } from '../../../../nodes/AgentCore/V2/durable-run-properties';

const agentCore = new AgentCore();
const versionOne = agentCore.nodeVersions[1].description;
const versionTwo = agentCore.nodeVersions[2].description;

/** The fields n8n's editor shows for these parameters, in panel order. */
function shownFields(description: INodeTypeDescription, changes: INodeParameters = {}): string[] {
	const node = {
		id: '1',
		name: 'Agent Core',
		type: 'agentCore',
		typeVersion: 2,
		position: [0, 0],
		parameters: changes,
	} as INode;
	const values =
		NodeHelpers.getNodeParameters(
			description.properties,
			changes,
			true,
			false,
			node,
			description,
		) ?? {};
	return description.properties
		.filter(
			(property) =>
				property.type !== 'notice' &&
				NodeHelpers.displayParameter(values, property, node, description),
		)
		.map((property) => property.name);
}

const field = (name: string) => versionTwo.properties.find((property) => property.name === name)!;
const options = field('options').options as INodeProperties[];

describe('version 2 Governance explains itself (issue #41)', () => {
	it('labels every credential picker by what it is for; version 1 keeps its labels', () => {
		const labels = Object.fromEntries(
			(versionTwo.credentials ?? []).map((credential) => [credential.name, credential.displayName]),
		);
		expect(labels).toEqual({
			agentCoreOpenAiApi: expect.stringMatching(/Model API/),
			agentCoreGeminiApi: expect.stringMatching(/Model API/),
			agentCoreRedisApi: expect.stringMatching(/Shared Budgets.*Durable Runs.*Redis Context Tool/),
			agentCoreHttpHeaderApi: expect.stringMatching(/^HTTP Request Tool/),
			agentCoreRunStateApi: expect.stringMatching(/Paused and Durable Runs/),
			agentCoreAuditDatabaseApi: expect.stringMatching(/^Audit Trail/),
			agentCoreFeishuBotApi: expect.stringMatching(/Feishu/),
		});
		expect((versionOne.credentials ?? []).map((credential) => credential.displayName)).toEqual(
			(versionOne.credentials ?? []).map(() => undefined),
		);
	});

	it('shows Run or Resume right under Require Approval, not at the top of the panel out of sight', () => {
		const shown = shownFields(versionTwo, { governance: true, needsApproval: true });
		expect(shown.indexOf('runOrResume')).toBe(shown.indexOf('needsApproval') + 1);
		expect(shown.indexOf('runOrResume')).toBeGreaterThan(shown.indexOf('prompt'));
		// Resuming: its fields follow it there too.
		const resuming = shownFields(versionTwo, {
			governance: true,
			needsApproval: true,
			runOrResume: 'resume',
		});
		expect(
			resuming.slice(resuming.indexOf('needsApproval'), resuming.indexOf('needsApproval') + 4),
		).toEqual(['needsApproval', 'runOrResume', 'runState', 'decision']);
	});

	it('gives Run State and Durable Runs a one-line hint each', () => {
		for (const name of ['runState', 'durableRuns']) {
			expect(field(name).hint).toEqual(expect.any(String));
			expect(field(name).hint!.length).toBeLessThan(130);
		}
		expect(
			versionOne.properties.find((property) => property.name === 'runState')!.hint,
		).toBeUndefined();
	});

	it("defaults Run Key to the request's Idempotency-Key when there is one, else the execution, and says why", () => {
		expect(field('runKey').default).toBe(RUN_KEY_DEFAULT);
		expect(RUN_KEY_DEFAULT).toMatch(/idempotency-key.*\$execution\.id/);
		expect(field('runKey').description).not.toMatch(
			/default .*wrong|use a key from the request instead/,
		);
		expect(field('runKey').description).toMatch(/n8n 2\.x/);
	});

	it("starts MCP Servers (JSON) as [], with an example placeholder and a hint about n8n's MCP Client Tool", () => {
		const mcp = options.find((property) => property.name === 'mcpServersJson')!;
		expect(mcp.default).toBe('[]');
		expect(mcp.placeholder).toMatch(/^\[\{"name"/);
		expect(mcp.hint).toMatch(/MCP Client Tool/);
	});

	it('names every section Governance shows in its label', () => {
		const label = field('governance').displayName;
		for (const section of ['Approval', 'Audit', 'Budgets', 'Durable Runs'])
			expect(label).toContain(section);
	});

	it("shows the node's own whole-number fields without decimals in version 2, as version 1 did not", () => {
		const numbers = (properties: INodeProperties[]): INodeProperties[] =>
			properties.flatMap((property) => [
				...(property.type === 'number' ? [property] : []),
				...numbers(
					((property.options ?? []) as INodeProperties[]).filter((entry) => 'type' in entry),
				),
			]);
		const precision = Object.fromEntries(
			numbers(versionTwo.properties).map((property) => [
				property.name,
				property.typeOptions?.numberPrecision,
			]),
		);
		for (const name of [
			'auditRetentionDays',
			'batchSize',
			'delayBetweenBatches',
			'maxConcurrentCalls',
			'sharedBudgetPeriod',
			'sharedBudgetTokens',
			'maxSteps',
			'maxToolCalls',
		])
			expect([name, precision[name]]).toEqual([name, 0]);
		// Fractions stay where they mean something, without fixed decimals (Run State Max Age read "7.000", issue #48).
		expect(precision.timeout).toBeUndefined();
		expect(precision.runStateMaxAgeDays).toBeUndefined();
		expect(
			numbers(versionTwo.properties).find((property) => property.name === 'runStateMaxAgeDays'),
		).toMatchObject({ default: 7, typeOptions: { minValue: 0.001, maxValue: 30 } });
		expect(precision.temperature).toBe(2);
		expect(
			numbers(versionOne.properties).find((property) => property.name === 'auditRetentionDays')!
				.typeOptions?.numberPrecision,
		).toBeUndefined();
	});
});

describe('every field and choice has a one-line description (issue #41)', () => {
	/** Fields (not notices or collections) and choices without a description, at any depth. */
	function undescribed(properties: readonly INodeProperties[], path = ''): string[] {
		return properties.flatMap((property) => {
			const here = `${path}${property.name}`;
			const own =
				property.description || ['notice', 'collection', 'fixedCollection'].includes(property.type)
					? []
					: [here];
			const nested = (property.options ?? []).flatMap((entry) => {
				if ('type' in entry) return undescribed([entry as INodeProperties], `${here}.`);
				if ('values' in entry) return undescribed(entry.values, `${here}.`);
				return entry.description ? [] : [`${here}=${String(entry.value)}`];
			});
			return [...own, ...nested];
		});
	}

	it('in Agent Core version 2', () => {
		expect(undescribed(versionTwo.properties)).toEqual([]);
	});

	it('in Agent Context', () => {
		// Operation, as in n8n's own nodes, is described by its choices (each has one).
		expect(undescribed(new AgentContext().description.properties)).toEqual(['operation']);
	});
});
