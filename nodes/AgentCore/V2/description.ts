// Agent Core's version 2 panel: a short first view (the prompt near the top), the breadth behind Governance and Options.
import type { INodeProperties } from 'n8n-workflow';
import { SETTINGS, type Setting } from '../../../src/panel';
import { agentCoreProperties } from '../V1/description';
import { withBatchAndPlanDecisions } from '../panel/resume-properties';
import { durableRunProperties } from './durable-run-properties';
import {
	binaryPropertiesOption,
	mcpServersOption,
	nodeOptions,
	readOnlyToolsWithMcpOption,
	returnIntermediateStepsOption,
	streamAnswerCheckedOption,
	guardrailsOption,
	guardrailPointsOption,
	guardrailWorkflowOption,
} from '../panel/options';
import { RUN_OR_RESUME, SESSION_ID_DEFAULT, VERSION_2_DISPLAY_NAMES } from '../panel/places';
import { collectionProperties } from '../panel/settings';
import { TOP_LEVEL_TOOL_FIELDS, toolSettingsCollections } from './tool-fields';
import { CREDENTIAL_LABELS } from './credential-labels';
import {
	explained,
	GOVERNANCE_HINTS,
	GOVERNANCE_LABEL,
	wholeNumbers,
	withoutFixedDecimals,
} from './panel-words';

type Show = NonNullable<NonNullable<INodeProperties['displayOptions']>['show']>;

/** A copy of a version 1 entry whose show/hide conditions on Operation name RUN_OR_RESUME, version 2's name for it. */
function withRunOrResume(property: INodeProperties): INodeProperties {
	const copy = structuredClone(property);
	for (const kind of ['show', 'hide'] as const) {
		const conditions = copy.displayOptions?.[kind];
		if (conditions && 'operation' in conditions) {
			const { operation, ...rest } = conditions;
			copy.displayOptions = {
				...copy.displayOptions,
				[kind]: { ...rest, [RUN_OR_RESUME]: operation },
			};
		}
	}
	return copy;
}

/** Version 1's entry of that name, copied, so both versions describe a field alike unless version 2 says otherwise. */
function fromVersionOne(
	name: string,
	changes: Partial<INodeProperties> = {},
	showAlso?: Show,
): INodeProperties {
	const entry = agentCoreProperties.find((property) => property.name === name);
	if (!entry) throw new Error(`version 1 has no field ${name}`);
	const copy = withRunOrResume({ ...structuredClone(entry), ...changes });
	if (showAlso)
		copy.displayOptions = {
			...copy.displayOptions,
			show: { ...copy.displayOptions?.show, ...showAlso },
		};
	return copy;
}

/** n8n's names where the meaning is the same (see panel/places.ts). */
const renamed = (property: INodeProperties): INodeProperties =>
	VERSION_2_DISPLAY_NAMES[property.name]
		? { ...property, displayName: VERSION_2_DISPLAY_NAMES[property.name] }
		: property;

const byDisplayName = (first: INodeProperties, second: INodeProperties) =>
	first.displayName.localeCompare(second.displayName);
const governed: Show = { governance: [true] };
/** The settings table's limits that are budgets (`panel.budget`): version 2 shows them under Governance → Budgets. */
const BUDGET_LIMITS = new Set(
	Object.values(SETTINGS as Record<string, Setting>).flatMap((setting) =>
		setting.panel?.budget ? [setting.panel.name] : [],
	),
);
const option = (name: string) => nodeOptions.find((property) => property.name === name)!;

/**
 * A model per provider that a first run can use as it is: the small, inexpensive default model of each API
 * (also the names the no-key demo server lists); any other is picked from the list or typed.
 */
const modelFor = (provider: 'openai' | 'gemini', value: string): INodeProperties =>
	fromVersionOne('model', {
		default: { mode: 'list', value },
		displayOptions: { show: { provider: [provider] } },
	});

/** Options: n8n's AI Agent keeps System Message, Max Iterations and Enable Streaming here; so do sessions and tool settings. */
const optionsV2: INodeProperties[] = (
	[
		...collectionProperties('limits', [], 2).filter(
			(property) => !BUDGET_LIMITS.has(property.name),
		),
		...collectionProperties('options', [], 2),
		fromVersionOne('developerText'),
		fromVersionOne('sessionId', { default: SESSION_ID_DEFAULT }),
		fromVersionOne('workflowTools'),
		fromVersionOne('toolSettingsJson', {
			description:
				'Settings per tool, e.g. {"http_request": {"allowed_domains": ' +
				'["api.example.com"], "allowed_methods": ["GET"]}}. Saved with the workflow as ' +
				'it is: keep API keys and bot addresses in the tool credentials.',
		}),
		{
			displayName: 'Batch Processing',
			name: 'batching',
			type: 'collection',
			placeholder: 'Add Batch Processing Option',
			default: {},
			options: [option('batchSize'), option('delayBetweenBatches')],
		},
		{
			displayName: 'Require Specific Output Format',
			name: 'requireOutputFormat',
			type: 'boolean',
			default: false,
			description:
				'Whether the answer must be a JSON value matching Output Schema; the next node reads it as final_output',
		},
		{
			...option('outputSchema'),
			displayOptions: { show: { requireOutputFormat: [true] } },
		},
		...nodeOptions.filter(
			(property) =>
				![
					'batchSize',
					'delayBetweenBatches',
					'outputFormat',
					'outputSchema',
					'readOnlyTools',
				].includes(property.name),
		),
		readOnlyToolsWithMcpOption,
		mcpServersOption,
		binaryPropertiesOption,
		returnIntermediateStepsOption,
		streamAnswerCheckedOption,
		guardrailsOption,
		guardrailWorkflowOption,
		guardrailPointsOption,
	] as INodeProperties[]
)
	.map(renamed)
	.sort(byDisplayName);

/** The panel of version 2: Input, Prompt, Provider, Enable Fallback Model, Allowed Tools, Governance, Options at first. */
export const agentCorePropertiesV2: INodeProperties[] = explained(
	wholeNumbers([
		// With a chat memory on version 2's Memory input, Prompt is the one that works (execute/inputs/connected-memory.ts refuses Messages).
		fromVersionOne('inputMode', {
			description:
				'Prompt: the user message; a chat memory on the Memory input adds the earlier turns and saves the new one',
		}),
		fromVersionOne('prompt', { displayName: 'Prompt (User Message)' }),
		fromVersionOne('messagesJson'),
		fromVersionOne('provider', {
			default: 'connected',
			description:
				"Connected Chat Model (as in n8n's AI Agent) uses the chat model sub-node you " +
				'attach, with its own credential; or call OpenAI or Gemini with an Agent Core ' +
				'credential',
		}),
		modelFor('openai', 'gpt-4o-mini'),
		modelFor('gemini', 'gemini-2.5-flash'),
		fromVersionOne('needsFallback'),
		fromVersionOne('fallbackSource'),
		fromVersionOne('fallbackModel'),
		fromVersionOne('allowedTools'),
		{
			displayName: TOP_LEVEL_TOOL_FIELDS.http_request.allowed_domains.displayName,
			name: TOP_LEVEL_TOOL_FIELDS.http_request.allowed_domains.name,
			type: 'string',
			default: '',
			placeholder: 'e.g. api.example.com, *.example.org',
			description:
				'The only hosts the HTTP Request tool may call, comma-separated ' +
				'(http_request.allowed_domains). Tool Settings (JSON) overrides it; an HTTP ' +
				'Request Tool credential brings its own hosts instead.',
			displayOptions: { show: { allowedTools: ['http_request'] } },
		},
		{
			displayName:
				'HTTP Request may reach any public host: list the hosts it may call in Allowed Domains ' +
				'above, or select an HTTP Request Tool credential (which names its hosts)',
			name: 'httpRequestNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { allowedTools: ['http_request'], httpAllowedDomains: [''] } },
		},
		// Each allowed tool's settings as fields, derived from its settings schema (tool-fields.ts).
		...toolSettingsCollections(fromVersionOne('allowedTools')),
		{
			// The tool's Redis picker is under Governance (agent-core-v2.ts says why): say so where it is allowed.
			displayName:
				'Redis Context keeps its values in Redis: turn on Governance (below) and select an Agent Core: ' +
				`Redis API credential in "${CREDENTIAL_LABELS.agentCoreRedisApi}"`,
			name: 'redisContextNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { allowedTools: ['redis_context'], governance: [false] } },
		},
		{
			displayName: GOVERNANCE_LABEL,
			name: 'governance',
			type: 'boolean',
			default: false,
			noDataExpression: true,
			description:
				'Whether to show the controls for people approving tool calls, an audit trail in ' +
				'PostgreSQL, budgets, durable runs, and the Redis and Run State credentials ' +
				'(shared budgets, durable runs, resuming a paused run only once, the Redis ' +
				'Context tool)',
		},
		fromVersionOne('needsApproval', {}, governed),
		// Resuming needs the run-state credential of Require Approval, so the choice shows with it, right under the
		// switch that adds it (issue #41: at the top of the panel it appeared out of sight). It is not named
		// `operation`: n8n's node creator turns an `operation` field into actions and sets its show conditions on
		// the node it adds, so a new node would start with Governance and Require Approval on.
		{
			...fromVersionOne('operation', {
				displayOptions: { show: { governance: [true], needsApproval: [true] } },
			}),
			name: RUN_OR_RESUME,
		},
		...withBatchAndPlanDecisions(
			agentCoreProperties.filter((property) =>
				property.displayOptions?.show?.operation?.includes('resume'),
			),
		)
			.map(withRunOrResume)
			.map((property) =>
				property.name in GOVERNANCE_HINTS
					? { ...property, hint: GOVERNANCE_HINTS[property.name] }
					: property,
			),
		fromVersionOne(
			'approvalTools',
			{
				typeOptions: {
					loadOptionsMethod: 'getApprovalTools',
					loadOptionsDependsOn: ['allowedTools', 'options.workflowTools'],
				},
			},
			governed,
		),
		withoutFixedDecimals(fromVersionOne('runStateMaxAgeDays', {}, governed)),
		fromVersionOne('auditTrail', {}, governed),
		fromVersionOne('auditRetentionDays', {}, governed),
		...durableRunProperties.map((property) => ({
			...property,
			...(property.name in GOVERNANCE_HINTS ? { hint: GOVERNANCE_HINTS[property.name] } : {}),
			displayOptions: { show: { ...property.displayOptions?.show, ...governed } },
		})),
		{
			displayName: 'Budgets',
			name: 'budgets',
			type: 'collection',
			placeholder: 'Add Budget',
			default: {},
			displayOptions: { show: governed },
			options: [
				...(
					agentCoreProperties.find((property) => property.name === 'limits')!
						.options as INodeProperties[]
				)
					.filter((property) => property.name.startsWith('sharedBudget'))
					.map((property) => structuredClone(property)),
				...collectionProperties('limits', [], 2).filter((property) =>
					BUDGET_LIMITS.has(property.name),
				),
				<INodeProperties>{
					displayName: 'Shared Cost Budget (USD)',
					name: 'sharedBudgetCost',
					type: 'number',
					typeOptions: { minValue: 0, numberPrecision: 4 },
					default: 0,
					description:
						'USD all runs of the scope may spend per period, priced from the bundled model ' +
						'catalogue and counted in Redis (Agent Core: Redis API credential); when it is ' +
						'spent, runs end with finish_reason budget_exhausted without calling the model. ' +
						'0 = none.',
				},
			].sort(byDisplayName),
		},
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: optionsV2,
		},
	]),
);
