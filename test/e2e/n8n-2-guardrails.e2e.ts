// Issue #50 end to end in n8n 2.41: a Guardrail Workflow made of n8n's own nodes denies a tool call (the run goes
// on and answers) and blocks an answer (the response carries finish_reason guardrail and never the answer).
import type { WorkflowJson } from '../../scripts/n8n-local';
import { useAgentCoreInN8n } from './support/n8n-harness';
import {
	DENIED_ANSWER,
	GUARDED_PATH,
	INTERNAL,
	UNLUCKY,
	guardedModel,
	guardedWorkflows,
} from './support/workflows/guardrail-workflows';

describe('a Guardrail Workflow in n8n 2.41.1 (issue #50)', () => {
	const workflows: WorkflowJson[] = guardedWorkflows();
	const get = useAgentCoreInN8n(2, guardedModel, { workflows, examples: false });
	const ask = (prompt: string) => get().post(GUARDED_PATH, { prompt });

	it('denies a call the judge refuses: the sub-workflow never runs, the model reads why and answers', async () => {
		const response = await ask(UNLUCKY);
		get().expectStatus(response, 200);
		expect(response.body).toMatchObject({ finish_reason: 'final', final_answer: DENIED_ANSWER });
		expect(response.body.used_tools).toEqual({});
		expect(response.body.trace[0].guardrails).toEqual([
			expect.objectContaining({
				name: 'guardrail workflow "the judge"',
				point: 'before_tool',
				decision: 'deny',
			}),
		]);
		expect(response.body.guardrails_tripped).toBe(1);
		get().report('a guardrail workflow denied add_numbers(1, 13); the run answered without it');
	});

	it('blocks an answer the judge refuses: finish_reason guardrail, and the answer is nowhere in the response', async () => {
		const response = await ask(INTERNAL);
		expect(response.body.finish_reason).toBe('guardrail');
		expect(response.body.stop_detail).toMatch(
			/guardrail workflow "the judge" blocked the run at after_run/,
		);
		expect(JSON.stringify(response.body)).not.toContain('4711');
		get().report('a guardrail workflow blocked an answer: finish_reason guardrail');
	});
});
