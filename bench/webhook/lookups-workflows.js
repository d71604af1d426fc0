'use strict';
/**
 * bench/lookups.js's three workflows, built from bench/webhook's AI Agent and Agent Core workflows (a new
 * webhook path; Agent Core as node version 2 with its Max Parallel Tool Calls and the Calculator read-only),
 * each with the check of its answer.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const lookups = require('./lookups-scenario');

const INSTRUCTIONS =
	'Total the prices of the in-stock items of each catalogue in the message with your tool, one call per catalogue, instead of adding numbers yourself.';
/** What is wrong with an Agent Core answer, if anything: the expected answer after three Calculator calls in `steps` steps. */
const agentCoreCheck = (steps) => (index, body) => {
	if (body?.finish_reason !== 'final')
		return `finish_reason ${body?.finish_reason}: ${body?.stop_detail ?? ''}`;
	if (body.final_answer !== lookups.expectedAnswer(index))
		return `final_answer ${JSON.stringify(body.final_answer)}`;
	const calls = Object.values(body.used_tools ?? {}).reduce((sum, usage) => sum + usage.count, 0);
	if (calls !== 3 || body.trace?.length !== steps)
		return `${calls} tool calls in ${body.trace?.length} steps, not 3 in ${steps}`;
	return undefined;
};

const WORKFLOWS = [
	{
		key: 'aiAgent',
		name: 'n8n AI Agent (3 tool_calls in one reply)',
		path: 'bench-lookups-ai-agent',
		model: 'native',
		check: (index, body) =>
			body?.output === lookups.expectedAnswer(index)
				? undefined
				: `output ${JSON.stringify(body?.output ?? body)}`,
	},
	{
		key: 'agentCore4',
		name: 'Agent Core v2, Max Parallel Tool Calls 4',
		path: 'bench-lookups-agent-core-4',
		model: 'protocol',
		maxParallelToolCalls: 4,
		check: agentCoreCheck(2),
	},
	{
		key: 'agentCore1',
		name: 'Agent Core v2, Max Parallel Tool Calls 1',
		path: 'bench-lookups-agent-core-1',
		model: 'protocol',
		maxParallelToolCalls: 1,
		check: agentCoreCheck(4),
	},
];

/** The three workflows, from bench/webhook's AI Agent and Agent Core workflows: a new path, v2 options for Agent Core. */
function buildWorkflow(workflow) {
	const file = workflow.model === 'native' ? 'ai-agent.json' : 'agent-core.json';
	const json = JSON.parse(fs.readFileSync(path.join(__dirname, file), 'utf8'));
	json.name = `Bench lookups: ${workflow.name}`;
	for (const node of json.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = workflow.path;
			node.webhookId = crypto.randomUUID();
		}
		if (node.type === '@n8n/n8n-nodes-langchain.agent')
			node.parameters.options = { ...node.parameters.options, systemMessage: INSTRUCTIONS };
		if (node.type.endsWith('.agentCore')) {
			const { provider, model, inputMode, prompt } = node.parameters;
			node.typeVersion = 2;
			node.parameters = {
				provider,
				model,
				inputMode,
				prompt,
				allowedTools: [],
				options: {
					maxSteps: 8,
					maxToolCalls: 6,
					timeout: 60,
					developerText: INSTRUCTIONS,
					toolSettingsJson: '{}',
					maxParallelToolCalls: workflow.maxParallelToolCalls,
					readOnlyTools: 'Calculator',
				},
			};
		}
	}
	return { ...workflow, json };
}

module.exports = { WORKFLOWS, buildWorkflow };
