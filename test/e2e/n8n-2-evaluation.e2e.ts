// Issue #33: n8n 2.41.1's Evaluations run Agent Core unchanged — a Data Table dataset, n8n's test runner, its Tools Used metric.
import { useAgentCoreInN8n } from './support/n8n-harness';
import { EVALUATION_ROWS, evaluationModel, runEvaluation } from './support/evaluation-scenarios';

describe('Agent Core in n8n 2.41.1 Evaluations', () => {
  // No example workflows: the evaluation workflow is saved through the REST API once its Data Table exists.
  const n8n = useAgentCoreInN8n(2, evaluationModel, { workflows: [], examples: false });

  it("scores each dataset row with the Evaluation node's Tools Used metric from Agent Core's intermediateSteps: 1 where the model called json_transform, 0 where it answered directly", async () => {
    const { run, cases } = await runEvaluation(n8n());

    expect(run).toMatchObject({ status: 'completed' });
    expect(cases.map((testCase) => [testCase.runIndex, testCase.status, testCase.metrics?.['Tools Used']])).toEqual([
      [0, 'success', 1],
      [1, 'success', 0],
    ]);
    // n8n's own figure for the run: the average of the rows.
    expect(run.metrics?.['Tools Used']).toBe(0.5);
    // The model saw each row's prompt: two turns for the tool row (call, answer), one for the direct answer.
    const prompts = n8n().model.requests.map((request) => request.messages.find((message) => message.role === 'user')?.content);
    expect(prompts.filter((prompt) => prompt === EVALUATION_ROWS[0].prompt)).toHaveLength(2);
    expect(prompts.filter((prompt) => prompt === EVALUATION_ROWS[1].prompt)).toHaveLength(1);
    n8n().report(`evaluation: test run ${run.id} completed, Tools Used ${cases.map((testCase) => testCase.metrics?.['Tools Used']).join(' / ')} (run ${run.metrics?.['Tools Used']})`);
  });
});
