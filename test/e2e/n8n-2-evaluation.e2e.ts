// Issue #33: n8n 2.41.1's Evaluations run Agent Core unchanged — a Data Table dataset, n8n's test runner, Tools Used and Correctness.
import { useAgentCoreInN8n } from './support/n8n-harness';
import { EVALUATION_ROWS, evaluationModel, runEvaluation } from './support/evaluation-scenarios';

describe('Agent Core in n8n 2.41.1 Evaluations', () => {
	// No example workflows: the evaluation workflow is saved through the REST API once its Data Table exists.
	const n8n = useAgentCoreInN8n(2, evaluationModel, { workflows: [], examples: false });

	it("scores each dataset row with the Evaluation node's Tools Used metric from Agent Core's intermediateSteps (1 where the model called json_transform, 0 where it answered directly) and its LLM-judged Correctness from Agent Core's output", async () => {
		const { run, cases } = await runEvaluation(n8n());

		expect(run).toMatchObject({ status: 'completed' });
		expect(
			cases.map((testCase) => [
				testCase.runIndex,
				testCase.status,
				testCase.metrics?.['Tools Used'],
				testCase.metrics?.Correctness,
			]),
		).toEqual([
			[0, 'success', 1, 5],
			[1, 'success', 0, 1],
		]);
		// n8n's own figures for the run: the average of the rows.
		expect(run.metrics).toMatchObject({ 'Tools Used': 0.5, Correctness: 3 });
		// The model saw each row's prompt: two turns for the tool row (call, answer), one for the direct answer.
		const prompts = n8n().model.requests.map(
			(request) => request.messages.find((message) => message.role === 'user')?.content,
		);
		expect(prompts.filter((prompt) => prompt === EVALUATION_ROWS[0].prompt)).toHaveLength(2);
		expect(prompts.filter((prompt) => prompt === EVALUATION_ROWS[1].prompt)).toHaveLength(1);
		n8n().report(
			`evaluation: test run ${run.id} completed, Tools Used ${cases.map((testCase) => testCase.metrics?.['Tools Used']).join(' / ')} (run ${run.metrics?.['Tools Used']}), ` +
				`Correctness ${cases.map((testCase) => testCase.metrics?.Correctness).join(' / ')} (run ${run.metrics?.Correctness})`,
		);
	});
});
