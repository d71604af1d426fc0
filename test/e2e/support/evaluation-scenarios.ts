// Issue #33's n8n Evaluations e2e: a Data Table dataset run through Agent Core by n8n's own test runner, scored by its Tools Used metric.
import type { ScriptedReply, ScriptedRequest } from '../../../src/demo/scripted-server';
import { readObservation } from '../../../src/agent/prompt';
import { e2eModel, promptOf } from './model-script';
import type { AgentCoreInN8n } from './n8n-harness';
import { createDataTable, createWorkflow, credentialNamed, finishedTestRun, OwnerSession, personalProjectId, startTestRun, testCasesOf, type TestCaseRecord } from './n8n-rest';

/** The harness's credential for the scripted model (n8n-harness.ts; its other OpenAI credential has a wrong key). */
const MODEL_CREDENTIAL_NAME = 'Agent Core e2e: scripted model';

/** A prompt opening with this asks the model to total prices: it calls json_transform, then answers from its result. */
const TOTAL = /^Total these prices: (\[.*\])$/;

/** The dataset, in row order: one row the model answers with the tool, one it answers directly. */
export const EVALUATION_ROWS = [
  { prompt: 'Total these prices: [12.5, 7.5, 30]', expected_answer: 'The total is 50.' },
  { prompt: 'Say hello to the evaluation.', expected_answer: 'Echo: Say hello to the evaluation.' },
] as const;

/** The harness's model: TOTAL prompts through json_transform, anything else as the suites' model answers it (`Echo: <prompt>`). */
export function evaluationModel(request: ScriptedRequest): ScriptedReply {
  const total = TOTAL.exec(promptOf(request));
  if (!total) return e2eModel(request);
  const observation = readObservation(request.messages[request.messages.length - 1]?.content ?? '');
  if (observation?.tool === 'json_transform') return JSON.stringify({ type: 'final', answer: `The total is ${observation.text}.` });
  return JSON.stringify({ type: 'action', tool: 'json_transform', args: { data: JSON.parse(total[1]), expression: 'sum(@)' } });
}

const node = (name: string, type: string, typeVersion: number, x: number, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
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
 * scripted model, json_transform allowed, Options → Return Intermediate Steps on) → Evaluation (4.8, Set Metrics →
 * Tools Used, expecting json_transform, its Intermediate Steps mapped from Agent Core's output as n8n's
 * editor maps them for the AI Agent).
 */
export function evaluationWorkflow(dataTableId: string, modelCredential: { id: string; name: string }) {
  const to = (target: string) => ({ main: [[{ node: target, type: 'main', index: 0 }]] });
  return {
    name: 'Agent Core: n8n Evaluation with Tools Used',
    nodes: [
      node('When fetching a dataset row', 'n8n-nodes-base.evaluationTrigger', 4.7, 0, { source: 'dataTable', dataTableId: { __rl: true, mode: 'id', value: dataTableId } }),
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
      node('Evaluation', 'n8n-nodes-base.evaluation', 4.8, 480, {
        operation: 'setMetrics',
        metric: 'toolsUsed',
        expectedTools: 'json_transform',
        intermediateSteps: "={{ $('Agent Core').first().json.intermediateSteps }}",
        options: {},
      }),
    ],
    connections: { 'When fetching a dataset row': to('Agent Core'), 'Agent Core': to('Evaluation') },
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
  const workflowId = await createWorkflow(owner, evaluationWorkflow(dataTableId, await credentialNamed(owner, 'agentCoreOpenAiApi', MODEL_CREDENTIAL_NAME)));
  const testRunId = await startTestRun(owner, workflowId);
  const run = await finishedTestRun(owner, workflowId, testRunId, 90000);
  return { workflowId, run, cases: await testCasesOf(owner, workflowId, testRunId) };
}
