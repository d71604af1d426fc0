// Agent Core's version 1 panel: top-level fields, with Limits and Options built from the settings table.
import type { INodeProperties } from 'n8n-workflow';
import { builtInTools } from '../../../src/panel';
import { nodeOptions } from '../panel/options';
import { resumeProperties } from '../panel/resume-properties';
import { collectionProperties, settingProperty } from '../panel/settings';
import { DEFAULT_WORKFLOW_ARGS_SCHEMA } from '../panel/workflow-tool-schema';
import { modelProperties } from './model-properties';

/** How the built-in tools read in the panel; the model sees their names. */
const TOOL_LABELS: Record<string, string> = {
	feishu_bot: 'Feishu / Lark Bot',
	http_request: 'HTTP Request',
	json_transform: 'JSON Transform (JMESPath)',
	redis_context: 'Redis Context (Per-Session Values)',
};

/**
 * The first sentence of Tools Needing Approval's description, without its period; n8n's standard sentence for a
 * list loaded from a method follows it in the description's own literal, where n8n's lint rule reads it.
 */
const APPROVAL_TOOLS_LEAD =
	'Calls to these tools wait for approval (a connected tool sub-node is named in an expression)';

/** Only for Operation → Run a New Task. */
const forNewRuns = { hide: { operation: ['resume'] } };

/** The panel: provider and model, input, tools, limits. */
export const agentCoreProperties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Run a New Task',
				value: 'run',
				action: 'Run a new task',
				description: 'Answer the prompt or conversation of each item',
			},
			{
				name: 'Resume a Paused Run',
				value: 'resume',
				action: 'Resume a paused run',
				description:
					"Continue a run that waited for approval, with a person's decision; the node needs the same settings as the one that paused it",
			},
		],
		default: 'run',
	},
	...resumeProperties,
	...modelProperties,
	{
		displayName: 'Allowed Tools',
		name: 'allowedTools',
		type: 'multiOptions',
		options: builtInTools
			.map((tool) => ({
				name: `${TOOL_LABELS[tool.name] ?? tool.name} (${tool.name})`,
				value: tool.name,
				description: tool.description,
			}))
			.sort((first, second) => first.name.localeCompare(second.name)),
		default: [],
		description:
			'The only tools the agent may see and call; a call to anything else is refused without running',
	},
	{
		displayName: 'Require Approval',
		name: 'needsApproval',
		type: 'boolean',
		default: false,
		noDataExpression: true,
		description:
			'Whether calls to some tools wait for a person: the run pauses before such a ' +
			'call and leaves by the Needs Approval output with the call and a signed run ' +
			'state, for any approval step (Wait, Send and Wait, a Form) and then Agent Core ' +
			'→ Resume a Paused Run',
	},
	{
		displayName: 'Tools Needing Approval',
		name: 'approvalTools',
		type: 'multiOptions',
		typeOptions: {
			loadOptionsMethod: 'getApprovalTools',
			loadOptionsDependsOn: ['allowedTools', 'workflowTools'],
		},
		default: [],
		description: `${APPROVAL_TOOLS_LEAD}. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
		displayOptions: { show: { needsApproval: [true] } },
	},
	settingProperty('run_state_max_age_days', {
		displayOptions: { show: { needsApproval: [true] } },
	}),
	{
		displayName: 'Audit Trail',
		name: 'auditTrail',
		type: 'boolean',
		default: false,
		noDataExpression: true,
		description:
			'Whether each run is kept in a PostgreSQL database (Agent Core: Audit Database ' +
			'API credential) once its answer is ready: config, tool schemas, every step and ' +
			"the hash chain, with the workflow and execution IDs, beyond n8n's pruning; the " +
			"output's audit field says whether it was stored",
	},
	{
		displayName: 'Audit Retention (Days)',
		name: 'auditRetentionDays',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		description:
			'Runs older than this are deleted from the audit database (checked at most hourly, after a write); 0 keeps them',
		displayOptions: { show: { auditTrail: [true] } },
	},
	{
		displayName: 'Input',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Prompt',
				value: 'prompt',
				description: 'A single request, e.g. from a webhook body',
			},
			{
				name: 'Conversation (Messages JSON)',
				value: 'messages',
				description: 'A conversation as [{role, content}], e.g. from the Agent Context node',
			},
		],
		default: 'prompt',
		displayOptions: forNewRuns,
	},
	{
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		typeOptions: { rows: 3 },
		// Chat Trigger and Chat Hub send chatInput, a Webhook node's body is under body, older workflows set prompt.
		default: '={{ $json.chatInput ?? $json.body?.prompt ?? $json.prompt }}',
		required: true,
		description:
			"The user's request: by default the chat message (chatInput), a webhook body's prompt, or the item's prompt",
		displayOptions: { show: { inputMode: ['prompt'] }, ...forNewRuns },
	},
	{
		displayName: 'Messages JSON',
		name: 'messagesJson',
		type: 'json',
		default: '={{ $json.messages_json }}',
		required: true,
		description:
			'The conversation as an array of {role, content} (roles: system, user, assistant), ending with the user message to answer',
		displayOptions: { show: { inputMode: ['messages'] }, ...forNewRuns },
	},
	{
		displayName: 'Session ID',
		name: 'sessionId',
		type: 'string',
		default: '={{ $json.session_id ?? $json.sessionId ?? "" }}',
		description:
			'The conversation this run belongs to (set by Agent Context prepare, or the Chat ' +
			"Trigger's sessionId); copied to the output for persist and given to per-session " +
			'tools',
	},
	{
		displayName: 'Instructions',
		name: 'developerText',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		description:
			'Your task description and constraints, added to the system prompt after the protocol rules',
	},
	{
		displayName: 'Workflow Tools',
		name: 'workflowTools',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Workflow Tool',
		default: {},
		description:
			'Workflows of this n8n instance that the agent may call as tools (they are ' +
			'allowed automatically). The validated arguments are the workflow’s input item; ' +
			'its output is what the agent sees.',
		options: [
			{
				name: 'tools',
				displayName: 'Tool',
				values: [
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'e.g. lookup_customer',
						description: 'The name the model calls: letters, digits and _',
					},
					{
						displayName: 'Description',
						name: 'description',
						type: 'string',
						typeOptions: { rows: 2 },
						default: '',
						description: 'When the model should use this tool, and what it returns',
					},
					{ displayName: 'Workflow', name: 'workflowId', type: 'workflowSelector', default: '' },
					{
						displayName: 'Arguments Schema',
						name: 'argsSchema',
						type: 'json',
						default: DEFAULT_WORKFLOW_ARGS_SCHEMA,
						description:
							'JSON Schema of the arguments object; calls that do not match are refused before the workflow runs',
					},
				],
			},
		],
	},
	{
		displayName: 'Limits',
		name: 'limits',
		type: 'collection',
		placeholder: 'Add Limit',
		default: {},
		// The limits of the settings table (src/agent/settings.ts), with the shared budget's three fields that make one config key.
		options: collectionProperties('limits', [
			{
				displayName: 'Shared Budget Period (Seconds)',
				name: 'sharedBudgetPeriod',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 86400,
				description:
					'How long a shared budget lasts before it starts again from zero (periods are aligned to the clock); default one day',
			},
			{
				displayName: 'Shared Budget Scope',
				name: 'sharedBudgetScope',
				type: 'string',
				default: '={{ $workflow.id }}',
				description:
					'Who shares the budget: every run with the same scope draws on it, on every n8n worker, e.g. the workflow ID, a session ID or a customer ID',
			},
			{
				displayName: 'Shared Token Budget',
				name: 'sharedBudgetTokens',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'Tokens all runs of the scope may use per period, counted in Redis (Agent Core: ' +
					'Redis API credential); when they are used up, runs end with finish_reason ' +
					'budget_exhausted without calling the model; if Redis is lost mid-run, the run ' +
					'ends budget_unavailable before its next model call. 0 = none.',
			},
		]),
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		// The options of the settings table (src/agent/settings.ts), with the node's own (batching, failure handling, streaming).
		options: collectionProperties('options', nodeOptions),
	},
	{
		displayName: 'Tool Settings (JSON)',
		name: 'toolSettingsJson',
		type: 'json',
		default: '{}',
		description:
			'Settings per tool, e.g. {"http_request": {"allowed_domains": ' +
			'["api.example.com"], "allowed_methods": ["GET"]}}. Saved with the workflow as ' +
			'it is: keep API keys and bot addresses in the tool credentials above.',
	},
];
