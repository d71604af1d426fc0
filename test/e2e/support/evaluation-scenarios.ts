// Issue #33's n8n Evaluations e2e: a Data Table dataset run through Agent Core by n8n's own test runner, scored by its Tools Used metric.
import type { ScriptedReply, ScriptedRequest } from '../../../src/demo/scripted-server';
import { readObservation } from '../../../src/agent/protocol/prompt';
import { e2eModel, promptOf } from './model-script';
import type { AgentCoreInN8n } from './n8n-harness';
import {
	createDataTable,
	createWorkflow,
	credentialNamed,
	finishedTestRun,
	OwnerSession,
	personalProjectId,
	startTestRun,
	testCasesOf,
	type TestCaseRecord,
} from './n8n-rest';

/** The harness's credential for the scripted model (n8n-harness.ts; its other OpenAI credential has a wrong key). */
const MODEL_CREDENTIAL_NAME = 'Agent Core e2e: scripted model';
/** The harness's credential of n8n's OpenAI sub-nodes, on the same scripted model. */
const JUDGE_CREDENTIAL_NAME = 'Agent Core e2e: openAiApi';

/** A prompt opening with this asks the model to total prices: it calls json_transform, then answers from its result. */
const TOTAL = /^Total these prices: (\[.*\])$/;

/**
 * The dataset, in row order: one row the model answers with the tool, as expected; one it answers directly
 * (`Echo: <prompt>`), not as expected.
 */
export const EVALUATION_ROWS = [
	{ prompt: 'Total these prices: [12.5, 7.5, 30]', expected_answer: 'The total is 50.' },
	{ prompt: 'Say hello to the evaluation.', expected_answer: 'Hello, evaluation!' },
] as const;

/** The judge's input as n8n's Correctness metric words it (CannedMetricPrompts.ee.js CORRECTNESS_INPUT_PROMPT). */
const JUDGED = /^Output: ([\s\S]*)\n\nGround truth: ([\s\S]*)$/;

/**
 * The Correctness metric's judge (n8n's OpenAI Chat Model on the Evaluation node, asking for structured output):
 * 5 when the answer is the ground truth, 1 otherwise, as JSON text for a response schema or as the call of the
 * structured-output function.
 */
function judged(request: ScriptedRequest): ScriptedReply | undefined {
	const body = request.body ?? {};
	const wantsSchema =
		body.response_format?.type === 'json_schema' || body.text?.format?.type === 'json_schema';
	const tool = (
		body.tools as Array<{ function?: { name?: string }; name?: string }> | undefined
	)?.[0];
	if (!wantsSchema && !tool) return undefined;
	const judgedPair = JUDGED.exec(request.messages[request.messages.length - 1]?.content ?? '');
	if (!judgedPair) return undefined;
	const same = judgedPair[1].trim() === judgedPair[2].trim();
	const verdict = {
		extended_reasoning: same
			? 'The output states the ground truth.'
			: 'The output differs from the ground truth.',
		reasoning_summary: same ? 'Identical.' : 'Different.',
		score: same ? 5 : 1,
	};
	if (wantsSchema) return JSON.stringify(verdict);
	return {
		text: '',
		toolCalls: [{ name: String(tool!.function?.name ?? tool!.name), arguments: verdict }],
	};
}

/**
 * The harness's model: the Correctness judge (see `judged`); TOTAL prompts through json_transform; anything else
 * as the suites' model answers it (`Echo: <prompt>`).
 */
export function evaluationModel(request: ScriptedRequest): ScriptedReply {
	const verdict = judged(request);
	if (verdict) return verdict;
	const total = TOTAL.exec(promptOf(request));
	if (!total) return e2eModel(request);
	const observation = readObservation(request.messages[request.messages.length - 1]?.content ?? '');
	if (observation?.tool === 'json_transform')
		return JSON.stringify({ type: 'final', answer: `The total is ${observation.text}.` });
	return JSON.stringify({
		type: 'action',
		tool: 'json_transform',
		args: { data: JSON.parse(total[1]), expression: 'sum(@)' },
	});
}

const node = (
	name: string,
	type: string,
	typeVersion: number,
	x: number,
	parameters: Record<string, unknown>,
	extra: Record<string, unknown> = {},
) => ({
	id: `agent-core-evaluation-${x}`,
	name,
	type,
	typeVersion,
	position: [x, 0],
	parameters,
	...extra,
});

/**
 * When fetching a dataset row (Evaluation Trigger 4.7 on the Data Table) → Agent Core (version 2, OpenAI on the
 * scripted model, json_transform allowed, Options → Return Intermediate Steps on) → Tools Used (Evaluation 4.8,
 * Set Metrics → Tools Used, expecting json_transform, its Intermediate Steps mapped from Agent Core's output as
 * n8n's editor maps them for the AI Agent) → Correctness (Set Metrics → Correctness: Agent Core's `output`
 * against the row's expected_answer, judged by n8n's OpenAI Chat Model on the scripted model).
 */
export function evaluationWorkflow(
	dataTableId: string,
	modelCredential: { id: string; name: string },
	judgeCredential: { id: string; name: string },
) {
	const to = (target: string) => ({ main: [[{ node: target, type: 'main', index: 0 }]] });
	return {
		name: 'Agent Core: n8n Evaluation with Tools Used',
		nodes: [
			node('When fetching a dataset row', 'n8n-nodes-base.evaluationTrigger', 4.7, 0, {
				source: 'dataTable',
				dataTableId: { __rl: true, mode: 'id', value: dataTableId },
			}),
			node(
				'Agent Core',
				'n8n-nodes-agent-core.agentCore',
				2,
				240,
				{
					provider: 'openai',
					model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
					prompt: '={{ $json.prompt }}',
					allowedTools: ['json_transform'],
					options: { returnIntermediateSteps: true, maxSteps: 3 },
				},
				{ credentials: { agentCoreOpenAiApi: modelCredential } },
			),
			node('Tools Used', 'n8n-nodes-base.evaluation', 4.8, 480, {
				operation: 'setMetrics',
				metric: 'toolsUsed',
				expectedTools: 'json_transform',
				intermediateSteps: "={{ $('Agent Core').first().json.intermediateSteps }}",
				options: {},
			}),
			node('Correctness', 'n8n-nodes-base.evaluation', 4.8, 720, {
				operation: 'setMetrics',
				metric: 'correctness',
				expectedAnswer: "={{ $('When fetching a dataset row').first().json.expected_answer }}",
				actualAnswer: "={{ $('Agent Core').first().json.output }}",
				options: {},
			}),
			node(
				'Judge Model',
				'@n8n/n8n-nodes-langchain.lmChatOpenAi',
				1.3,
				960,
				{ model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, options: {} },
				{ credentials: { openAiApi: judgeCredential } },
			),
		],
		connections: {
			'When fetching a dataset row': to('Agent Core'),
			'Agent Core': to('Tools Used'),
			'Tools Used': to('Correctness'),
			'Judge Model': {
				ai_languageModel: [[{ node: 'Correctness', type: 'ai_languageModel', index: 0 }]],
			},
		},
	};
}

/** What one test run of the evaluation workflow came to, read back through n8n's REST API. */
export interface EvaluationOutcome {
	workflowId: string;
	run: Awaited<ReturnType<typeof finishedTestRun>>;
	cases: TestCaseRecord[];
}

/**
 * As a user does it in the editor, through the REST API as the owner: a Data Table holding EVALUATION_ROWS,
 * the evaluation workflow on it (saved, not published: the test runner runs the saved workflow), one test run
 * started and polled until it ended, and its cases.
 */
export async function runEvaluation(n8n: AgentCoreInN8n): Promise<EvaluationOutcome> {
	const owner = new OwnerSession(n8n.n8n.baseUrl);
	await owner.signIn();
	const projectId = await personalProjectId(owner);
	const dataTableId = await createDataTable(owner, projectId, {
		name: n8n.uniqueId('agent-core-evaluation'),
		columns: [
			{ name: 'prompt', type: 'string' },
			{ name: 'expected_answer', type: 'string' },
		],
		rows: EVALUATION_ROWS.map((row) => ({ ...row })),
	});
	const credentials = [
		await credentialNamed(owner, 'agentCoreOpenAiApi', MODEL_CREDENTIAL_NAME),
		await credentialNamed(owner, 'openAiApi', JUDGE_CREDENTIAL_NAME),
	] as const;
	const workflowId = await createWorkflow(owner, evaluationWorkflow(dataTableId, ...credentials));
	const testRunId = await startTestRun(owner, workflowId);
	const run = await finishedTestRun(owner, workflowId, testRunId, 90000);
	return { workflowId, run, cases: await testCasesOf(owner, workflowId, testRunId) };
}
