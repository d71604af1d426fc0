// The Options collection's fields the node owns (batching, failure handling, output format, streaming); the rest come from the settings table.
import { DEFAULT_GUARDRAIL_POINTS, GUARDRAIL_POINT_CHOICES } from './guardrail-points';
import type { INodeProperties } from 'n8n-workflow';

/** Output Schema's default: an example schema (an object with a number and a currency). */
const OUTPUT_SCHEMA_EXAMPLE =
	'{\n  "type": "object",\n  "properties": {\n' +
	'    "total": { "type": "number" },\n    "currency": { "type": "string" }\n  },\n' +
	'  "required": ["total", "currency"]\n}';

/** Options fields that are not config keys: how the node batches items, fails, shapes and streams its output. */
export const nodeOptions: INodeProperties[] = [
	{
		displayName: 'Batch Size',
		name: 'batchSize',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 1,
		description:
			'How many items run at once (1 = one after another); output order and item pairing stay as the input, and Max Concurrent Model Calls still caps the calls',
	},
	{
		displayName: 'Delay Between Batches (Ms)',
		name: 'delayBetweenBatches',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		description: 'Pause after each batch of items, e.g. to stay under a rate limit',
	},
	{
		displayName: 'Max Concurrent Model Calls',
		name: 'maxConcurrentCalls',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 64,
		description:
			'Per credential, in this n8n process; more calls wait for a slot. Lower it if the provider answers 429.',
	},
	{
		displayName: 'On Limit Reached',
		name: 'onLimitReached',
		type: 'options',
		options: [
			{
				name: 'Return the Run as an Item',
				value: 'returnItem',
				description:
					'A run stopped by a limit (max_steps, max_tool_calls, token_budget, parse_error, ' +
					'tool_error, max_output_tokens, content_filter, output_invalid) comes out as an ' +
					'item with that finish_reason',
			},
			{
				name: 'Fail the Node',
				value: 'fail',
				description: 'Such a run is a node error, e.g. for the error output',
			},
		],
		default: 'returnItem',
	},
	{
		displayName: 'On Model Error',
		name: 'onModelError',
		type: 'options',
		options: [
			{
				name: 'Fail the Node',
				value: 'fail',
				description:
					'A model call that failed after the retries, or a run timeout, is a node error ' +
					"with the provider's status: Retry On Fail, the error output and Error Workflows " +
					'act on it',
			},
			{
				name: 'Return the Run as an Item',
				value: 'returnItem',
				description: 'The run comes out as an item with finish_reason llm_error or timeout',
			},
		],
		default: 'fail',
	},
	{
		displayName: 'Output Format',
		name: 'outputFormat',
		type: 'options',
		options: [
			{ name: 'Text', value: 'text', description: 'The answer is text in final_answer' },
			{
				name: 'JSON Matching a Schema',
				value: 'json',
				description:
					'The answer is a JSON value checked against Output Schema; the next node reads it as final_output',
			},
		],
		default: 'text',
	},
	{
		displayName: 'Output Schema',
		name: 'outputSchema',
		type: 'json',
		default: OUTPUT_SCHEMA_EXAMPLE,
		description:
			'A JSON Schema the answer must match. A mismatch gets one repair turn with the exact problems; a second ends the run with finish_reason output_invalid.',
		displayOptions: { show: { outputFormat: ['json'] } },
	},
	{
		displayName: 'Read-Only Tools',
		name: 'readOnlyTools',
		type: 'string',
		default: '',
		placeholder: 'e.g. lookup_customer, get_weather',
		description:
			'Names of workflow tools and connected tool sub-nodes that only read, ' +
			'comma-separated: a repeated identical call to one is answered from the earlier ' +
			'result. Any other such tool is taken to have side effects, and a repeated ' +
			'identical call to it never runs twice.',
	},
	{
		displayName: 'Stream Response',
		name: 'streamResponse',
		type: 'boolean',
		default: true,
		description:
			'Whether to stream the run as it happens when the workflow streams (a Webhook in ' +
			'Response Mode Streaming, a Chat Trigger in streaming mode): one line per tool ' +
			'call and the answer as the model writes it. The output item is the same either ' +
			'way.',
	},
];

/** Version 2's choice of when streamed answer text goes out (RunAgentOptions.streamAnswer); version 1's panel stays as published. */
export const streamAnswerCheckedOption: INodeProperties = {
	displayName: 'Stream Only Checked Answers',
	name: 'streamAnswerChecked',
	type: 'boolean',
	default: false,
	description:
		"Whether streaming sends the answer's text only once the model's reply has " +
		'closed and been checked as the answer, in one piece, instead of as the model ' +
		'writes it. A chat cannot take text back: with this on, no text of a reply that ' +
		'turns out not to be the answer (a broken or hostile reply) ever reaches it.',
};

/** Version 2's built-in guardrails (the config's `guardrails`, issue #50); version 1's panel stays as published. */
export const guardrailsOption: INodeProperties = {
	displayName: 'Guardrails',
	name: 'guardrails',
	type: 'json',
	default: '[]',
	placeholder:
		'[{"name": "no-cards", "check": "pii", "kinds": ["credit_card"], "on": ["tool_call", "answer"], "action": "block"}]',
	description:
		'Checks that need no model, as a JSON list: each with a name, a check (pii, secrets, ' +
		'urls, pattern or keywords), where it looks (on: input, tool_call, observation, ' +
		'answer) and an action (block ends the run, redact replaces what it finds, ' +
		'deny_call refuses the tool call). Every decision is in the trace and the audit.',
};

/** Version 2's Guardrail Workflow: an n8n workflow called at the Guardrail Points as one of the run's hooks. */
export const guardrailWorkflowOption: INodeProperties = {
	displayName: 'Guardrail Workflow',
	name: 'guardrailWorkflow',
	type: 'workflowSelector',
	default: '',
	description:
		'A workflow that judges the run at the Guardrail Points: it gets one item {point, run_id, ' +
		'step, tool, args, observation, answer, input} and returns one item {decision: allow, deny, ' +
		'modify or block, reason, and the changed args, observation, answer or input}. A workflow ' +
		'that fails, takes over 10 seconds or returns anything else stops the run.',
};

/** Version 2's Guardrail Points: where the Guardrail Workflow is called. */
export const guardrailPointsOption: INodeProperties = {
	displayName: 'Guardrail Points',
	name: 'guardrailPoints',
	type: 'multiOptions',
	options: GUARDRAIL_POINT_CHOICES,
	default: [...DEFAULT_GUARDRAIL_POINTS],
	description:
		'Where the Guardrail Workflow is called; without a Guardrail Workflow this does nothing',
};

/** Version 2's MCP servers (the config's `mcp_servers`, read by execute/inputs/mcp-servers.ts); version 1's panel stays as published. */
export const mcpServersOption: INodeProperties = {
	displayName: 'MCP Servers (JSON)',
	name: 'mcpServersJson',
	type: 'json',
	default: '[]',
	placeholder: '[{"name": "docs", "url": "https://mcp.example.com/mcp", "tools": ["search"]}]',
	hint: "Or connect n8n's MCP Client Tool to the Tool input: its tools join the agent's, no JSON needed",
	description:
		'MCP servers (streamable HTTP) whose tools the agent may use: an array as the ' +
		"config's mcp_servers, each with name and URL, and optionally headers, tools, " +
		"read_only, pins, allow_private_network and timeout. A server's tools are " +
		'offered as &lt;name&gt;.&lt;tool&gt;: those named in its tools list, or every ' +
		'tool it offers. Their definitions are pinned: in Redis on first use with the ' +
		'Agent Core: Redis API credential (under Governance), else only by pins; a ' +
		'changed definition is blocked until its new fingerprint is put in pins. Headers ' +
		'are saved with the workflow as they are (the run redacts them from its output).',
};

/** Version 2's Read-Only Tools: the same field, which also takes MCP tools as <server>.<tool>. */
export const readOnlyToolsWithMcpOption: INodeProperties = {
	...nodeOptions.find((property) => property.name === 'readOnlyTools')!,
	placeholder: 'e.g. lookup_customer, docs.search',
	description:
		'Names of workflow tools, connected tool sub-nodes and MCP tools ' +
		"(&lt;server&gt;.&lt;tool&gt;, added to that server's read_only) that only read, " +
		'comma-separated: a repeated identical call to one is answered from the earlier ' +
		'result. Any other such tool is taken to have side effects, and a repeated ' +
		'identical call to it never runs twice.',
};

/**
 * Version 2's Return Intermediate Steps (n8n's AI Agent's name): the output also carries `intermediateSteps` in
 * the AI Agent's shape (execute/output/intermediate-steps.ts), which n8n's Evaluation node reads; version 1's panel stays as published.
 */
export const returnIntermediateStepsOption: INodeProperties = {
	displayName: 'Return Intermediate Steps',
	name: 'returnIntermediateSteps',
	type: 'boolean',
	default: false,
	description:
		"Whether the output also carries intermediateSteps as n8n's AI Agent returns " +
		"them (each tool call's tool, input and what it returned), e.g. for the " +
		"Evaluation node's Tools Used metric",
};

/**
 * Version 2's Binary Properties: which of the item's binary properties go to the model with the user's message
 * (execute/inputs/read-files.ts); empty = all of them. Version 1 sends no files.
 */
export const binaryPropertiesOption: INodeProperties = {
	displayName: 'Binary Properties',
	name: 'binaryProperties',
	type: 'string',
	default: '',
	placeholder: 'e.g. data, data0',
	description:
		"Names of the input item's binary properties sent to the model with the message, " +
		'comma-separated, in that order; empty = all of them. Images and PDFs go as the two ' +
		'Passthrough options say, text files (plain, Markdown, CSV, JSON) as text; another ' +
		'type stops the run with an error naming the property.',
};
