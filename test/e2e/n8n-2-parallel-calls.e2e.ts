// Issue #42 end to end in n8n 2.41: the model asks for three workflow-tool calls in one reply; Agent Core runs
// each sub-workflow, answers with all three observations in one message, and the job takes two model calls.
import { randomInt } from 'node:crypto';
import { readExampleWorkflows, type WorkflowJson } from '../../scripts/n8n-local';
import { readBatchObservations } from '../../src/agent/protocol/prompt';
import type { ScriptedReply, ScriptedRequest } from '../../src/demo/scripted-server';
import { e2eModel, lastUserMessageOf, promptOf } from './support/model-script';
import { useAgentCoreInN8n } from './support/n8n-harness';

const PATH = 'agent-core-workflow-tools-batch';
const PAIRS = 'Add each pair:';
const BROKEN = 'with a broken call';

/**
 * "Add each pair: 1+2, 3+4 …": one "actions" reply with an add_numbers call per pair (with BROKEN, the second
 * call's `b` is text), then a final answer listing the sums from the batch's observations in call order.
 */
function batchModel(request: ScriptedRequest): ScriptedReply {
	const prompt = promptOf(request);
	if (!prompt.includes(PAIRS)) return e2eModel(request);
	const last = lastUserMessageOf(request);
	const observed = readBatchObservations(last);
	if (observed)
		return JSON.stringify({
			type: 'final',
			answer: observed.map(({ call, text }) => `${call}: ${JSON.parse(text).sum}`).join(', '),
		});
	if (last.includes('None of the calls ran'))
		return JSON.stringify({ type: 'final', answer: 'repair read' });
	const pairs = [...prompt.matchAll(/(\d+)\+(\d+)/g)].map(([, a, b]) => [Number(a), Number(b)]);
	const calls = pairs.map(([a, b], index) => ({
		tool: 'add_numbers',
		args: { a, b: prompt.includes(BROKEN) && index === 1 ? 'four' : b },
	}));
	return JSON.stringify({ type: 'actions', calls });
}

/** examples/agent-core-workflow-tool.json on its own path, room for the batch's calls, add_numbers read-only. */
function batchWorkflows(): WorkflowJson[] {
	const [agent, tool] = readExampleWorkflows([
		'agent-core-workflow-tool.json',
		'agent-core-workflow-tool-add-numbers.json',
	]);
	const workflow: WorkflowJson = JSON.parse(JSON.stringify(agent));
	delete workflow.id;
	workflow.name = `${workflow.name} (batch)`;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = PATH;
			node.webhookId = 'c3d2e1f0-5a4b-4c3d-9e8f-7a6b5c4d3e21';
		}
		if (node.type.endsWith('.agentCore'))
			node.parameters.options = {
				...node.parameters.options,
				maxToolCalls: 6,
				readOnlyTools: 'add_numbers',
			};
	}
	return [workflow, tool];
}

describe('several workflow-tool calls in one reply, in n8n 2.41.1 (issue #42)', () => {
	const get = useAgentCoreInN8n(2, batchModel, { workflows: batchWorkflows(), examples: false });
	const ask = (prompt: string) => get().post(PATH, { prompt });
	const callsFor = (prompt: string) =>
		get().model.requests.filter((request) => promptOf(request) === prompt);

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

	it('one call with invalid args: nothing runs, and the repair turn names it by its number', async () => {
		const prompt = `${PAIRS} 1+2, 3+4, 5+6 ${BROKEN}`;
		const response = await ask(prompt);

		get().expectStatus(response, 200);
		expect(response.body).toMatchObject({ finish_reason: 'final', final_answer: 'repair read' });
		expect(response.body.used_tools).toEqual({});
		const [step] = response.body.trace;
		expect(step.error.message).toMatch(/^call 2 \(add_numbers\): /);
		expect(
			step.calls.every((call: { observation?: string }) => call.observation === undefined),
		).toBe(true);
		expect(lastUserMessageOf(callsFor(prompt)[1])).toContain('None of the calls ran');
	});
});
