// Issue #51 end to end in n8n 2.41: Agent Core version 2 in plan mode. With Require Approval of the Plan the webhook
// answers with the plan (pending_plan, and `output` as a numbered list) and nothing posted; the Wait node's resume URL
// takes the approval, the node's Resume runs exactly that plan and the answer comes back. Streamed, the plan is listed first.
import type { WorkflowJson } from '../../scripts/n8n-local';
import { useAgentCoreInN8n } from './support/n8n-harness';
import { promptOf } from './support/model-script';
import { postAndRead } from './support/streaming-scenarios';
import {
	PLAN_APPROVAL_PATH,
	PLAN_STREAM_PATH,
	STEP_WORDS,
	planModel,
	planWorkflows,
} from './support/workflows/plan-workflows';

/** POSTs the decision to the Wait node's resume URL; n8n answers 409 until the Wait node has put the execution to sleep. */
async function decide(resumeUrl: string, decision: Record<string, unknown>) {
	const send = () =>
		fetch(resumeUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(decision),
			signal: AbortSignal.timeout(90000),
		});
	let response = await send();
	for (let attempt = 0; response.status === 409 && attempt < 50; attempt++) {
		await new Promise((resolve) => setTimeout(resolve, 200));
		response = await send();
	}
	return { status: response.status, body: (await response.json().catch(() => undefined)) as any };
}

describe('plan mode in n8n 2.41.1 (issue #51)', () => {
	const workflows: WorkflowJson[] = planWorkflows();
	const get = useAgentCoreInN8n(2, planModel, { workflows, examples: false });

	it('waits with the plan before posting; approved through Resume, exactly that plan runs and the answer comes back', async () => {
		const text = `Release ${get().uniqueId('plan')} approved`;
		const prompt = `[plan] Tell the team: ${text}`;
		const paused = await get().post(PLAN_APPROVAL_PATH, { prompt });
		get().expectStatus(paused, 202);
		expect(paused.body).toEqual({
			finish_reason: 'awaiting_approval',
			pending_plan: {
				steps: [{ step: 1, description: STEP_WORDS.post, tool: 'feishu_bot', args: { text } }],
			},
			output: `No answer: the plan of 1 step waits for approval:\n1. ${STEP_WORDS.post} (feishu_bot)`,
			resume_url: expect.stringMatching(/^http/),
		});
		const posted = () => get().feishu.bodies.filter((body) => body.content?.text === text);
		expect(posted()).toHaveLength(0);

		const resumed = await decide(paused.body.resume_url, { decision: 'approve' });
		expect(resumed.status).toBe(200);
		expect(resumed.body).toMatchObject({
			finish_reason: 'final',
			final_answer: `Sent to the team: ${text}`,
			used_tools: { feishu_bot: { count: 1 } },
			plan: { steps: [{ step: 1, tool: 'feishu_bot', status: 'done' }] },
		});
		expect(resumed.body.trace.map((step: { plan_steps?: number[] }) => step.plan_steps)).toEqual([
			undefined,
			[1],
			undefined,
		]);
		expect(posted()).toHaveLength(1);
		// Two model calls for the whole job: the plan, and the answer after the approved plan ran.
		expect(get().model.requests.filter((request) => promptOf(request) === prompt)).toHaveLength(2);
		get().report('a plan waited for approval, was approved through Resume and posted once');
	});

	it('streamed, the plan comes as a numbered list before its steps, then the answer', async () => {
		const { status, arrivals } = await postAndRead(
			get().n8n,
			PLAN_STREAM_PATH,
			{ prompt: '[plan] Count: ["a","b","c"]' },
			() => undefined,
		);
		expect(status).toBe(200);
		const items = arrivals.flatMap((arrival) =>
			arrival.kind === 'chunk' &&
			arrival.chunk.type === 'item' &&
			arrival.chunk.metadata.nodeName === 'Agent Core'
				? [arrival.chunk.content ?? '']
				: [],
		);
		expect(items[0]).toBe(
			`\n[plan]\n1. ${STEP_WORDS.list} (json_transform)\n2. ${STEP_WORDS.count} (json_transform)\n\n`,
		);
		expect(items.slice(1, -1).some((item) => item.startsWith('\n[json_transform'))).toBe(true);
		expect(items.join('').endsWith('3 items')).toBe(true);
		get().report('a streamed plan: the numbered list first, then the steps and the answer');
	});
});
