// @ts-check
/**
 * What an n8n instance runs: the example workflows, the credentials they point at, and how n8n's CLI
 * imports and activates them on each n8n line.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { REPO_FOLDER } = require('./package');

/**
 * An n8n credential as `n8n import:credentials` reads it, with plain (unencrypted) `data`.
 * @typedef {{ id: string; name: string; type: string; data: Record<string, unknown> }} CredentialImport
 */
/**
 * One node of an exported workflow (the subset this code touches).
 * @typedef {{ name: string; type: string; parameters: Record<string, any>; credentials?: Record<string, { id: string; name: string }>; [key: string]: unknown }} WorkflowNode
 */
/**
 * A workflow as exported by n8n (the subset this code touches).
 * @typedef {{ id?: string; name: string; nodes: WorkflowNode[]; connections: Record<string, unknown>; [key: string]: unknown }} WorkflowJson
 */
/** @typedef {WorkflowJson & { id: string }} ImportedWorkflow */

/**
 * Reads the workflows in examples/ (or the given files), as objects.
 * @param {string[]} [files]
 * @returns {WorkflowJson[]}
 */
function readExampleWorkflows(
	files = ['agent-core-webhook.json', 'agent-core-webhook-strict-limits.json'],
) {
	return files.map((file) =>
		JSON.parse(fs.readFileSync(path.join(REPO_FOLDER, 'examples', file), 'utf8')),
	);
}

/**
 * Points every credential reference of the given type at `credential` ({ id, name }).
 * @param {WorkflowJson} workflow
 * @param {string} type
 * @param {{ id: string; name: string }} credential
 * @returns {WorkflowJson}
 */
function useCredential(workflow, type, credential) {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) =>
			node.credentials?.[type]
				? {
						...node,
						credentials: {
							...node.credentials,
							[type]: { id: credential.id, name: credential.name },
						},
					}
				: node,
		),
	};
}

/**
 * True for a workflow that only other workflows start (its one trigger is an Execute Workflow Trigger).
 * @param {WorkflowJson} workflow
 */
function isSubWorkflowOnly(workflow) {
	const triggers = workflow.nodes.filter(
		(node) => /trigger$/i.test(node.type) || node.type === 'n8n-nodes-base.webhook',
	);
	return (
		triggers.length > 0 &&
		triggers.every((node) => node.type === 'n8n-nodes-base.executeWorkflowTrigger')
	);
}

/**
 * Gives every workflow without an id a stable one, so that the CLI can address it.
 * @param {WorkflowJson[]} workflows
 * @returns {ImportedWorkflow[]}
 */
function withIds(workflows) {
	return workflows.map((workflow, index) => ({
		...workflow,
		id: workflow.id ?? `agentCoreWf${String(index + 1).padStart(5, '0')}`,
	}));
}

/**
 * Makes every imported workflow run on production webhooks: 1.x activates them all but sub-workflows,
 * 2.x publishes every one. `parallel` CLI processes at once (PostgreSQL takes several, SQLite one).
 * @param {(args: string[]) => Promise<string>} n8nCli  runs one n8n CLI command in the user folder
 * @param {1 | 2} line
 * @param {ImportedWorkflow[]} workflows
 * @param {number} parallel
 */
async function activateWorkflows(n8nCli, line, workflows, parallel) {
	if (line === 1) {
		await n8nCli(['update:workflow', '--all', '--active=true']);
		// 1.x runs sub-workflows without activation, and cannot activate one whose only trigger is "When
		// Executed by Another Workflow": it logs "has no node to start the workflow" and retries forever.
		for (const workflow of workflows.filter(isSubWorkflowOnly))
			await n8nCli(['update:workflow', `--id=${workflow.id}`, '--active=false']);
		return;
	}
	// 2.x runs only the published version of a sub-workflow ("Workflow is not active and cannot be
	// executed" otherwise), so sub-workflows are published like every other workflow.
	const pending = [...workflows];
	const publishNext = async () => {
		for (let workflow; (workflow = pending.shift()); )
			await n8nCli(['publish:workflow', `--id=${workflow.id}`]);
	};
	await Promise.all(Array.from({ length: parallel }, publishNext));
}

module.exports = { readExampleWorkflows, useCredential, withIds, activateWorkflows };
