// Issue #42 end to end in n8n 2.41: the model asks for three workflow-tool calls in one reply; Agent Core runs
// each sub-workflow, answers with all three observations in one message, and the job takes two model calls.
import { randomInt } from 'node:crypto';
import type { WorkflowJson } from '../../scripts/n8n-local';
import { readBatchObservations } from '../../src/agent/protocol/prompt';
import { startHoldingTarget, type HoldingTarget } from '../support/servers/holding-target';
import { lastUserMessageOf, promptOf } from './support/model-script';
import { useAgentCoreInN8n } from './support/n8n-harness';
import { executionCountOf, OwnerSession } from './support/n8n-rest';
import {
	BATCH_PATH,
	BROKEN,
	LOOKUP_WORKFLOW_ID,
	ORDERS,
	PAIRS,
	REPAIR_READ,
	batchModel,
	batchWorkflows,
} from './support/workflows/parallel-calls-workflows';

/**
 * How long the target holds a lookup before answering HTTP 504 naming how many were open: lookups run one at
 * a time then fail in 3 × 10 s, inside single_call_timeout (30 s) and the run's timeout (60 s), so the test
 * shows the 504s in the observations instead of a timeout. Three overlapping lookups are answered in well under 1 s.
 */
const HOLD_CAP_MS = 10000;

describe('several workflow-tool calls in one reply, in n8n 2.41.1 (issue #42)', () => {
	let target: HoldingTarget | undefined;
	const workflows: WorkflowJson[] = [];
	// Declared before the harness's hooks, so it runs first: lookup_order's sub-workflow gets the target's URL.
	beforeAll(async () => {
		target = await startHoldingTarget({ holdUntil: 3, capMs: HOLD_CAP_MS });
		workflows.push(...batchWorkflows(target.url));
	});
	afterAll(() => target?.close());
	const get = useAgentCoreInN8n(2, batchModel, { workflows, examples: false });
	const ask = (prompt: string) => get().post(BATCH_PATH, { prompt });
	const callsFor = (prompt: string) =>
		get().model.requests.filter((request) => promptOf(request) === prompt);
	let owner: OwnerSession | undefined;
	/** The executions of lookup_order's sub-workflow n8n lists. */
	const lookups = async () => {
		if (!owner) {
			owner = new OwnerSession(get().n8n.baseUrl);
			await owner.signIn();
		}
		return executionCountOf(owner, LOOKUP_WORKFLOW_ID);
	};

	it('runs the three calls as one step: each sub-workflow answers, in call order, and the job takes two model calls', async () => {
		const pairs = [0, 1, 2].map(() => [randomInt(10, 99), randomInt(10, 99)]);
		const prompt = `${PAIRS} ${pairs.map(([a, b]) => `${a}+${b}`).join(', ')}`;
		const response = await ask(prompt);

		get().expectStatus(response, 200);
		const sums = pairs.map(([a, b]) => a + b);
		expect(response.body).toMatchObject({
			finish_reason: 'final',
			final_answer: sums.map((sum, index) => `${index + 1}: ${sum}`).join(', '),
			used_tools: { add_numbers: { count: 3, failures: 0 } },
		});
		expect(response.body.trace).toHaveLength(2);
		const [step] = response.body.trace;
		expect(step.calls.map((call: { args: unknown }) => call.args)).toEqual(
			pairs.map(([a, b]) => ({ a, b })),
		);
		expect(
			step.calls.map((call: { observation: string }) => JSON.parse(call.observation).sum),
		).toEqual(sums);
		const calls = callsFor(prompt);
		expect(calls).toHaveLength(2);
		// The second call's last user message holds the three observations, in call order.
		expect(readBatchObservations(lastUserMessageOf(calls[1]))?.map(({ call }) => call)).toEqual([
			1, 2, 3,
		]);
		get().report(`batch of 3 workflow-tool calls: 2 model calls, sums ${sums.join(', ')}`);
	});

	it('three read-only lookups overlap in n8n: the target answers only once all three sub-workflows are asking, each call gets its own order back', async () => {
		const number = randomInt(1000, 9999);
		const orders = ['A', 'B', 'C'].map((letter) => `${letter}-${number}`);
		const prompt = `${ORDERS} ${orders.join(', ')}`;
		const seen = target!.events.length;
		const ran = await lookups();
		const response = await ask(prompt);

		get().expectStatus(response, 200);
		const answers = orders.map((order) => ({ path: `/orders/${order}`, together: 3 }));
		// A lookup run alone fails at the cap (n8n: "Gateway timed out"; its log has the target's "held … 1 of 3").
		const looked = response.body.trace[0].calls.map(
			(call: { observation?: string; error?: { message: string } }) =>
				call.observation === undefined ? call.error?.message : JSON.parse(call.observation),
		);
		expect(looked).toEqual(answers);
		expect(response.body).toMatchObject({
			finish_reason: 'final',
			final_answer: answers.map(({ path }, index) => `${index + 1}: ${path} with 3`).join(', '),
			used_tools: { lookup_order: { count: 3, failures: 0 } },
		});
		// Three requests arrived before the first answer: the three sub-workflow executions overlapped.
		const events = target!.events.slice(seen);
		expect(events.map((event) => event.split(' ')[0])).toEqual([
			...['start', 'start', 'start'],
			...['finish', 'finish', 'finish'],
		]);
		expect(await lookups()).toBe(ran + 3);
		expect(callsFor(prompt)).toHaveLength(2);
		expect(readBatchObservations(lastUserMessageOf(callsFor(prompt)[1]))).toHaveLength(3);
		get().report(
			`3 read-only workflow-tool calls held open together at the target: ${target!.mostOpen()}`,
		);
	});

	it('one call with invalid args: no sub-workflow runs, and the repair turn names the call by its number', async () => {
		const prompt = `${ORDERS} A-1, B-2, C-3 ${BROKEN}`;
		const seen = target!.events.length;
		const ran = await lookups();
		const response = await ask(prompt);

		get().expectStatus(response, 200);
		expect(response.body).toMatchObject({ finish_reason: 'final', final_answer: REPAIR_READ });
		expect(response.body.used_tools).toEqual({});
		const [step] = response.body.trace;
		expect(step.error.message).toMatch(/^call 2 \(lookup_order\): /);
		expect(
			step.calls.every((call: { observation?: string }) => call.observation === undefined),
		).toBe(true);
		expect(lastUserMessageOf(callsFor(prompt)[1])).toContain('None of the calls ran');
		// Nothing reached the target, and n8n started no execution of the lookup sub-workflow.
		expect(target!.events.length).toBe(seen);
		expect(await lookups()).toBe(ran);
	});
});
