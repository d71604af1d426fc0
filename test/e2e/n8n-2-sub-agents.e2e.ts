// Issue #52 end to end in n8n 2.41: the Agent Core Tool node, with its own OpenAI Chat Model and n8n's Calculator, as a
// tool of n8n's own AI Agent (n8n's engine runs its calls, its Logs show the sub-agent's model and Calculator under the
// tool) and of Agent Core (sub_run; the Calculator's runs logged with the tool as their source).
import { randomInt } from 'node:crypto';
import { useAgentCoreInN8n } from './support/n8n-harness';
import { unflatten } from './support/n8n-executions';
import { OwnerSession } from './support/n8n-rest';
import { lastUserMessageOf } from './support/model-script';
import {
	AGENT_CORE_PATH,
	AI_AGENT_2_PATH,
	AI_AGENT_PATH,
	CALCULATOR,
	CHILD,
	CHILD_MODEL,
	OLD_COPY_PATH,
	FACTOR,
	childAnswer,
	subAgentModel,
	subAgentWorkflows,
	taskFor,
} from './support/workflows/sub-agent-workflows';
import {
	ARCHIVIST,
	NOTHING_KEPT,
	RECALL,
	UNDER_AGENT_CORE_CHAT,
	UNDER_AI_AGENT_CHAT,
	keep,
	recalled,
} from './support/workflows/sub-agent-memory-workflows';
import { waitForChat } from './support/files-scenarios';
import { chatPath } from './support/workflows/files-workflows';

/**
 * The Calculator's runs in `runData`, each as n8n logged it: the node and run it ran under (`source`, which n8n's Logs
 * view nests it by), the expression it was given (`query`) and its result (`response`).
 */
const calculatorRuns = (runData: any) =>
	(runData[CALCULATOR] ?? []).map((run: any) => ({
		source: run.source?.map((from: any) => `${from?.previousNode} run ${from?.previousNodeRun}`),
		query: run.inputOverride?.ai_tool?.[0]?.[0]?.json?.query,
		response: run.data?.ai_tool?.[0]?.[0]?.json?.response,
	}));

/** The execution's run data once n8n has saved it: Respond to Webhook answers before the execution ends. */
async function storedRun(owner: OwnerSession, executionId: string): Promise<any> {
	for (let attempt = 0; ; attempt++) {
		const stored = await owner.request('GET', `/rest/executions/${executionId}`);
		const execution = stored.body?.data;
		if (execution?.stoppedAt && typeof execution.data === 'string')
			return unflatten(execution.data);
		if (attempt === 50)
			throw new Error(
				`execution ${executionId} was not saved: HTTP ${stored.status} ${stored.text.slice(0, 300)}`,
			);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

describe('Agent Core Tool in n8n 2.41.1 (issue #52)', () => {
	const get = useAgentCoreInN8n(2, subAgentModel, {
		workflows: subAgentWorkflows(),
		examples: false,
	});
	const list = () => JSON.stringify(Array.from({ length: randomInt(2, 9) }, (_, index) => index));
	const childRequestsFor = (items: string) =>
		get().model.requests.filter(
			(request) =>
				request.model === CHILD_MODEL && lastUserMessageOf(request).includes(taskFor(items)),
		);

	it("is a tool of n8n's AI Agent 3.1: its own model, json_transform and Calculator answer, and n8n's Logs show its model and Calculator under it", async () => {
		const items = list();
		const response = await get().post(AI_AGENT_PATH, { prompt: `[delegate] ${items}` });
		get().expectStatus(response, 200);
		const count = JSON.parse(items).length;
		// The product is in the answer only when the Calculator ran: the child's model reads it from its observation.
		const answer = childAnswer(count);
		expect(response.body.output).toContain(answer);
		expect(response.body.steps[0].action.tool).toBe(CHILD);
		expect(JSON.stringify(response.body.steps[0].observation)).toContain(answer);
		expect(childRequestsFor(items).length).toBeGreaterThan(0);
		const owner = new OwnerSession(get().n8n.baseUrl);
		await owner.signIn();
		const runData = (await storedRun(owner, response.body.execution_id)).resultData.runData;
		expect(Object.keys(runData)).toEqual(expect.arrayContaining([CHILD, 'Child Model']));
		expect(runData['Child Model'][0].source).toEqual([
			expect.objectContaining({ previousNode: CHILD }),
		]);
		expect(calculatorRuns(runData)).toEqual([
			{
				source: [`${CHILD} run 0`],
				query: `${count} * ${FACTOR}`,
				response: String(count * FACTOR),
			},
		]);
		// n8n 2 ran the node itself for the call (an engine request), its answer as `response` logged on the tool.
		const requested = runData['AI Agent'].at(-1).metadata.subNodeExecutionData.actions;
		expect(requested).toEqual([expect.objectContaining({ nodeName: CHILD })]);
		const answered = runData[CHILD].map((run: any) => run.data?.ai_tool?.[0]?.[0]?.json?.response);
		expect(answered).toEqual([answer]);
		get().report(
			`n8n's AI Agent called ${CHILD}, which answered "${answer}" on its own model and ${CALCULATOR}`,
		);
	});

	it("is a tool of n8n's AI Agent 2.2 too, which calls the supplied tool: the call logged on the node, its model and Calculator under it", async () => {
		const items = list();
		const response = await get().post(AI_AGENT_2_PATH, { prompt: `[delegate] ${items}` });
		get().expectStatus(response, 200);
		const answer = childAnswer(JSON.parse(items).length);
		expect(response.body.output).toBe(`The researcher says: ${answer}`);
		expect(response.body.steps[0]).toMatchObject({ action: { tool: CHILD }, observation: answer });
		const owner = new OwnerSession(get().n8n.baseUrl);
		await owner.signIn();
		const runData = (await storedRun(owner, response.body.execution_id)).resultData.runData;
		expect(runData[CHILD].map((run: any) => run.inputOverride?.ai_tool?.[0]?.[0]?.json)).toEqual([
			{ task: taskFor(items) },
		]);
		expect(runData[CHILD].map((run: any) => run.data?.ai_tool?.[0]?.[0]?.json?.response)).toEqual([
			answer,
		]);
		expect(runData['Child Model'][0].source).toEqual([
			expect.objectContaining({ previousNode: CHILD }),
		]);
		const count = JSON.parse(items).length;
		expect(calculatorRuns(runData)).toEqual([
			{
				source: [`${CHILD} run 0`],
				query: `${count} * ${FACTOR}`,
				response: String(count * FACTOR),
			},
		]);
		get().report(`n8n's AI Agent 2.2 invoked ${CHILD}'s supplied tool: "${answer}"`);
	});

	it("is a sub-agent of Agent Core: its steps as sub_run under the call, its call a run of its own in the Logs view with its Calculator's runs under it, its tokens in the parent's usage", async () => {
		const items = list();
		const response = await get().post(AGENT_CORE_PATH, { prompt: `[delegate] ${items}` });
		get().expectStatus(response, 200);
		const { body } = response;
		const count = JSON.parse(items).length;
		expect(body).toMatchObject({
			finish_reason: 'final',
			final_answer: `${CHILD} says: ${childAnswer(count)}`,
		});
		const sub = body.trace[0].sub_run;
		expect(sub).toMatchObject({ agent: CHILD, finish_reason: 'final', depth: 1 });
		expect(sub.steps.map((step: any) => step.model)).toEqual([
			CHILD_MODEL,
			CHILD_MODEL,
			CHILD_MODEL,
		]);
		expect(sub.steps.map((step: any) => step.action?.tool)).toEqual([
			'json_transform',
			CALCULATOR,
			undefined,
		]);
		expect(body.trace[0].observation).toBe(childAnswer(count));
		const owner = new OwnerSession(get().n8n.baseUrl);
		await owner.signIn();
		// n8n's Logs view: the call as a run of the Researcher (Agent Core runs its agent, and the node logs the call),
		// its task in and its answer out, the child's model and Calculator runs naming it as their source.
		const runData = (await storedRun(owner, body.execution_id)).resultData.runData;
		expect(
			runData[CHILD].map((run: any) => ({
				status: run.executionStatus,
				source: run.source,
				task: run.inputOverride?.ai_tool?.[0]?.[0]?.json?.task,
				response: run.data?.ai_tool?.[0]?.[0]?.json?.response,
			})),
		).toEqual([
			{
				status: 'success',
				source: [expect.objectContaining({ previousNode: 'Agent Core', previousNodeRun: 0 })],
				task: body.trace[0].action.args.task,
				response: childAnswer(count),
			},
		]);
		expect(runData['Child Model'].map((run: any) => run.source)).toEqual(
			Array(3).fill([expect.objectContaining({ previousNode: CHILD })]),
		);
		expect(calculatorRuns(runData)).toEqual([
			{
				source: [`${CHILD} run 0`],
				query: `${count} * ${FACTOR}`,
				response: String(count * FACTOR),
			},
		]);
		const own = body.trace.reduce(
			(sum: number, step: any) => sum + (step.usage?.total_tokens ?? 0),
			0,
		);
		expect(body.usage.total_tokens).toBe(own + sub.usage.total_tokens);
		get().report(
			`Agent Core ran ${CHILD} as its sub-agent: sub_run of ${sub.steps.length} steps, one budget`,
		);
	});

	it("keeps running a workflow saved with Agent Core's old tool copy: n8n loads it as Agent Core Tool version 2", async () => {
		const question = `What is ${get().uniqueId('copy')}?`;
		const response = await get().post(OLD_COPY_PATH, { prompt: `[old-copy] ${question}` });
		get().expectStatus(response, 200);
		expect(response.body).toMatchObject({
			finish_reason: 'final',
			final_answer: 'The old copy answered.',
		});
		expect(JSON.parse(response.body.trace[0].observation)).toEqual([
			expect.objectContaining({ final_answer: `Old copy: ${question}`, finish_reason: 'final' }),
		]);
		get().report("a workflow with Agent Core's old tool copy ran: its $fromAI question answered");
	});

	describe("with a memory of its own on its Memory input, at the memory's default Session ID", () => {
		const chat = (webhookId: string, sessionId: string, chatInput: string) =>
			get().post(chatPath(webhookId), { action: 'sendMessage', sessionId, chatInput });
		/** The messages n8n's Redis Chat Memory keeps under `key` (its list, newest first), as their text. */
		const stored = async (key: string) =>
			(await get().redis.client.lrange(key, 0, -1)).map(
				(entry) => JSON.parse(entry).data.content as string,
			);

		it("under Agent Core, each keeps its own conversation in Redis: the Archivist's under <session>:Archivist", async () => {
			await waitForChat(get(), UNDER_AGENT_CORE_CHAT);
			const sessionId = get().uniqueId('archivist');
			const fact = `locker ${randomInt(100, 1000)}`;
			const first = await chat(UNDER_AGENT_CORE_CHAT, sessionId, keep(fact));
			get().expectStatus(first, 200);
			const second = await chat(UNDER_AGENT_CORE_CHAT, sessionId, RECALL);
			get().expectStatus(second, 200);
			expect(second.body).toMatchObject({
				output: `${ARCHIVIST} says: ${recalled(fact)}`,
				finish_reason: 'final',
			});
			expect(second.body.trace[0].sub_run).toMatchObject({
				agent: ARCHIVIST,
				finish_reason: 'final',
			});
			// n8n's Redis Chat Memory lists, newest first: the Archivist's two turns under its own key, the parent's apart.
			expect(await stored(`${sessionId}:${ARCHIVIST}`)).toEqual([
				recalled(fact),
				'What did I ask you to remember?',
				'Noted.',
				`Remember: ${fact}`,
			]);
			const parent = await stored(sessionId);
			expect(parent).toHaveLength(4);
			expect(parent).toEqual(expect.arrayContaining([keep(fact), RECALL]));
			expect(parent).not.toContain(`Remember: ${fact}`);
			get().report(
				`Agent Core's Archivist kept its turns under ${sessionId}:${ARCHIVIST} in Redis`,
			);
		});

		it("under n8n's AI Agent, Simple Memory on the Archivist remembers across chat messages, per session", async () => {
			await waitForChat(get(), UNDER_AI_AGENT_CHAT);
			const sessionId = get().uniqueId('archivist-simple');
			const fact = `bike ${randomInt(100, 1000)}`;
			get().expectStatus(await chat(UNDER_AI_AGENT_CHAT, sessionId, keep(fact)), 200);
			const second = await chat(UNDER_AI_AGENT_CHAT, sessionId, RECALL);
			get().expectStatus(second, 200);
			expect(second.body.output).toBe(`${ARCHIVIST} says: ${recalled(fact)}`);
			const other = await chat(UNDER_AI_AGENT_CHAT, get().uniqueId('archivist-other'), RECALL);
			get().expectStatus(other, 200);
			expect(other.body.output).toBe(`${ARCHIVIST} says: ${NOTHING_KEPT}`);
			get().report("n8n's AI Agent's Archivist recalled the fact from its Simple Memory");
		});
	});
});
