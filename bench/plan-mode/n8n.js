'use strict';
/**
 * bench/plan-mode.js --n8n: the same job in one real n8n 2.41.1 (scripts/n8n-cache.js, the package packed and
 * installed as a community package, as bench:webhook does). Two workflows Webhook → Agent Core v2 → Respond,
 * Options → Mode `react` and `plan`, each with three Workflow Tools (Options → Workflow Tools): find_customer,
 * last_order and refund, each a sub-workflow Execute Workflow Trigger → Set that returns what
 * bench/plan-mode/scenario.js's tools return. The model is bench/plan-mode/model.js's scripted server; the
 * modes take turns, one request each, at concurrency 1, and every answer is checked.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { ensureN8n } = require('../../scripts/n8n-cache');
const {
	createN8nInstance,
	installPackage,
	packPackage,
	readExampleWorkflows,
	removeOnExit,
	useCredential,
} = require('../../scripts/n8n-local');
const { percentile } = require('../webhook/load');
const { LOAD_ENV } = require('../webhook');
const job = require('./scenario');
const { LABELS, MODES, newTally, startModel } = require('./model');

const CREDENTIAL = { id: 'benchPlanModel', name: 'Bench: scripted model (plan mode)' };
const CREDENTIAL_TYPE = 'agentCoreOpenAiApi';
const pathOf = (mode) => `bench-plan-mode-${mode}`;
const workflowIdOf = (tool) =>
	`benchPlanTool${tool.replace(/(^|_)(\w)/g, (_, __, letter) => letter.toUpperCase())}`;

/** The Set node's fields per tool: the same values as scenario.js's `answers` (an n8n expression each). */
const FIELDS = {
	find_customer: {
		customer: `={{ { id: 'cust-' + $json.email.replace(/\\D/g, ''), email: $json.email, name: 'Ann Example', tier: 'gold' } }}`,
	},
	last_order: {
		orders: `={{ [{ id: 'order-' + $json.customer_id + '-7', total: 42.5, currency: 'EUR', placed_at: '2026-11-30' }] }}`,
	},
	refund: {
		refund: `={{ { order_id: $json.order_id, amount: 42.5, currency: 'EUR', status: 'refunded' } }}`,
	},
};

/** One tool's sub-workflow: Execute Workflow Trigger (passthrough) → Set (only the answer's field). */
function toolWorkflow(tool) {
	const [[name, value]] = Object.entries(FIELDS[tool]);
	return {
		id: workflowIdOf(tool),
		name: `Bench plan mode tool: ${tool}`,
		nodes: [
			{
				parameters: { inputSource: 'passthrough' },
				id: `${workflowIdOf(tool)}-trigger`,
				name: 'When Executed by Another Workflow',
				type: 'n8n-nodes-base.executeWorkflowTrigger',
				typeVersion: 1.1,
				position: [0, 0],
			},
			{
				parameters: {
					mode: 'manual',
					assignments: {
						assignments: [
							{ id: `${tool}-field`, name, value, type: name === 'orders' ? 'array' : 'object' },
						],
					},
					includeOtherFields: false,
					options: {},
				},
				id: `${workflowIdOf(tool)}-set`,
				name: 'Answer',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [240, 0],
			},
		],
		connections: {
			'When Executed by Another Workflow': { main: [[{ node: 'Answer', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1', callerPolicy: 'workflowsFromSameOwner' },
		pinData: {},
	};
}

/** examples/agent-core-workflow-tool.json on its own path, with the three workflow tools and Options → Mode `mode`. */
function agentWorkflow(mode) {
	const [example] = readExampleWorkflows(['agent-core-workflow-tool.json']);
	const workflow = useCredential(JSON.parse(JSON.stringify(example)), CREDENTIAL_TYPE, CREDENTIAL);
	delete workflow.id;
	workflow.name = `Bench plan mode: Agent Core v2, ${mode}`;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = pathOf(mode);
			node.webhookId = `7d0c1e2f-3a4b-4c5d-8e6f-0000000000${mode === 'plan' ? '01' : '02'}`;
		}
		if (node.type.endsWith('.agentCore')) {
			const { shopTools } = job;
			node.parameters.options = {
				maxSteps: 6,
				maxToolCalls: 6,
				timeout: 60,
				toolSettingsJson: '{}',
				mode,
				workflowTools: {
					tools: shopTools().tools.map((tool) => ({
						name: tool.name,
						description: tool.description,
						workflowId: { __rl: true, mode: 'id', value: workflowIdOf(tool.name) },
						argsSchema: JSON.stringify(tool.parameters),
					})),
				},
			};
		}
	}
	return workflow;
}

/** What is wrong with one answer, if anything. */
function problemOf(mode, requestNumber, status, body) {
	if (status !== 200) return `HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`;
	if (body?.finish_reason !== 'final')
		return `finish_reason ${body?.finish_reason}: ${body?.stop_detail ?? ''}`;
	if (body.final_answer !== job.expectedAnswer(requestNumber))
		return `final_answer ${JSON.stringify(body.final_answer)}`;
	const calls = (body.trace ?? []).flatMap((step) =>
		step.action ? [step.action] : (step.calls ?? []),
	);
	const expected = job.expectedCalls(requestNumber);
	if (JSON.stringify(calls.map(({ tool, args }) => ({ tool, args }))) !== JSON.stringify(expected))
		return `tool calls ${JSON.stringify(calls)}`;
	return undefined;
}

async function post(n8n, mode, requestNumber) {
	const started = performance.now();
	const response = await fetch(`${n8n.baseUrl}/webhook/${pathOf(mode)}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ prompt: job.promptFor(requestNumber) }),
	});
	const body = await response.json().catch(() => undefined);
	const wallMs = performance.now() - started;
	const problem = problemOf(mode, requestNumber, response.status, body);
	if (problem) throw new Error(`n8n, ${mode}, request ${requestNumber}: ${problem}`);
	// The three sub-workflow executions as the engine timed them, to tell them from the model's time and n8n's.
	const toolMs = body.trace.reduce(
		(total, step) =>
			total + (step.tool_ms ?? (step.calls ?? []).reduce((sum, call) => sum + call.elapsed_ms, 0)),
		0,
	);
	return { wallMs, toolMs };
}

/** Starts n8n with both workflows, runs the modes in turns and returns one row per mode (as plan-mode.js prints). */
async function measureN8n(options) {
	const installation = await ensureN8n(2);
	const runFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-core-bench-plan-'));
	const cancelRemoval = removeOnExit(runFolder);
	const { server, holder } = await startModel(options.delay);
	let n8n;
	try {
		process.stderr.write('[bench] npm run build + npm pack, install as a community package…\n');
		const tarball = await packPackage(runFolder, { build: true });
		const nodesFolder = await installPackage(tarball, path.join(runFolder, 'nodes'));
		n8n = await createN8nInstance({
			installation,
			nodesFolder,
			credentials: [
				{
					...CREDENTIAL,
					type: CREDENTIAL_TYPE,
					data: { apiKey: 'bench-key', url: server.openaiBaseUrl },
				},
			],
			workflows: [...MODES.map(agentWorkflow), ...job.TOOL_NAMES.map(toolWorkflow)],
			env: { ...LOAD_ENV },
		});
		process.stderr.write('[bench] starting n8n…\n');
		await n8n.start({ webhookPaths: MODES.map(pathOf) });
		let requestNumber = 1000;
		for (let run = 0; run < options.warmup; run++)
			for (const mode of MODES) await post(n8n, mode, ++requestNumber);
		holder.tally = newTally();
		const wall = Object.fromEntries(MODES.map((mode) => [mode, []]));
		const tools = Object.fromEntries(MODES.map((mode) => [mode, []]));
		for (let run = 0; run < options.runs; run++)
			for (const mode of run % 2 ? [...MODES].reverse() : MODES) {
				const { wallMs, toolMs } = await post(n8n, mode, ++requestNumber);
				wall[mode].push(wallMs);
				tools[mode].push(toolMs);
			}
		if (holder.unexpected.length)
			throw new Error(`the scripted model could not place: ${holder.unexpected.join(', ')}`);
		return MODES.map((mode) => {
			const sorted = wall[mode].sort((left, right) => left - right);
			const tally = holder.tally[mode];
			return {
				mode,
				label: LABELS[mode],
				modelCalls: tally.calls / options.runs,
				promptTokens: tally.promptTokens / options.runs,
				tokensByCall: tally.byCall.map((total) => total / options.runs),
				p50: percentile(sorted, 0.5),
				p90: percentile(sorted, 0.9),
				toolsP50: percentile(
					tools[mode].sort((left, right) => left - right),
					0.5,
				),
			};
		});
	} finally {
		await n8n?.stop();
		await server.close();
		fs.rmSync(runFolder, { recursive: true, force: true });
		cancelRemoval();
	}
}

module.exports = { measureN8n };
