import { LINES } from '../../../scripts/n8n-cache';
import { toolStepThenAnswerOnSubNode } from './chat-model-scenarios';
import {
	apiHeaderRoundTrip,
	approvalRoundTrip,
	concurrentTurnsOnOneSession,
	twoTurnConversation,
	useLoopbackApi,
	workflowToolRoundTrip,
} from './conversation-scenarios';
import { SHARED_BUDGET_PERIOD_SECONDS } from './workflows/derived-workflows';
import { CHAT, chatReply, e2eModel, promptOf } from './model-script';
import {
	useAgentCoreInN8n,
	WEBHOOKS,
	type AgentCoreInN8n,
	type WebhookResponse,
} from './n8n-harness';

const WORKERS = 2;
/** Low enough that 20 simultaneous jobs cannot all fit on one worker. */
const WORKER_CONCURRENCY = 5;
/** Sequential turns sent at most, waiting for each worker to have taken one. */
const MAX_SEQUENTIAL_TURNS = 8;

/**
 * n8n's scale-out: one `n8n start` (main) that receives the production webhooks and enqueues each
 * execution in Redis (Bull), and two `n8n worker` processes that run them, all on one PostgreSQL database
 * with one encryption key. Conversation history lives in Redis, so turns of one session served by
 * different workers must share it. Which worker ran an execution comes from the worker's own log
 * ("Worker started execution <id>"); the chat example answers with its `execution_id`.
 */
export function describeAgentCoreInQueueMode(line: 1 | 2): void {
	describe(`Agent Core in n8n ${LINES[line].version} queue mode (main + ${WORKERS} workers, PostgreSQL, Redis)`, () => {
		const get = useAgentCoreInN8n(line, e2eModel, {
			queue: { workers: WORKERS, concurrency: WORKER_CONCURRENCY },
		});

		/** The worker that ran each response's execution, failing when no worker's log claims it. */
		const workersOf = (n8n: AgentCoreInN8n, responses: WebhookResponse[]): string[] =>
			responses.map((response) => {
				const executionId = String(response.body.execution_id);
				const worker = n8n.workerOf(executionId);
				if (!worker)
					throw new Error(
						`no worker log says it started execution ${executionId}; main log tail:\n${n8n.n8n.logTail(3000)}`,
					);
				return worker;
			});

		const distribution = (workers: string[]): string =>
			get()
				.workers.map(
					(worker) => `${worker.name} ${workers.filter((name) => name === worker.name).length}`,
				)
				.join(', ');

		it('answers a webhook on the main process with an execution that a worker ran', async () => {
			const n8n = get();
			const response = await n8n.post(WEBHOOKS.chat, {
				session_id: n8n.uniqueId('queue-single'),
				prompt: `${CHAT} hello from the queue`,
			});

			n8n.expectStatus(response, 200);
			expect(response.body.final_answer).toBe(chatReply(`${CHAT} hello from the queue`, 0));
			const [worker] = workersOf(n8n, [response]);
			expect(n8n.workers.map((candidate) => candidate.name)).toContain(worker);
			expect(n8n.n8n.logTail(200000)).not.toMatch(/Worker started execution/);
			n8n.report(`single turn: execution ${response.body.execution_id} ran on ${worker}`);
		});

		it('answers a follow-up question from the turn stored in Redis, whichever workers ran the two turns', async () => {
			const n8n = get();
			const responses = await twoTurnConversation(n8n);

			const workers = workersOf(n8n, responses);
			n8n.report(
				`two-turn conversation: ${responses.map((response, index) => `turn ${index + 1} → ${workers[index]} (execution ${response.body.execution_id})`).join(', ')}`,
			);
		});

		it('continues one conversation across both workers: every turn sees all earlier turns, whoever stored them', async () => {
			const n8n = get();
			const sessionId = n8n.uniqueId('across-workers');
			const served: string[] = [];
			for (let turn = 0; turn < MAX_SEQUENTIAL_TURNS && new Set(served).size < WORKERS; turn++) {
				const prompt = `${CHAT} turn ${turn + 1} in ${sessionId}`;
				const response = await n8n.post(WEBHOOKS.chat, { session_id: sessionId, prompt });

				n8n.expectStatus(response, 200);
				// The model saw every earlier turn (two messages each), stored by whichever worker ran it.
				expect(response.body).toMatchObject({
					final_answer: chatReply(prompt, 2 * turn),
					history_turns: turn,
					stored_turns: turn + 1,
				});
				served.push(...workersOf(n8n, [response]));
			}

			n8n.report(
				`sequential turns of one session: ${served.map((worker, index) => `${index + 1}→${worker}`).join(', ')}`,
			);
			expect(new Set(served).size).toBe(WORKERS);
			expect(await n8n.readTurns(sessionId)).toHaveLength(served.length);
		});

		it('keeps all 20 turns intact when 20 webhook calls on one session run at once on both workers', async () => {
			const n8n = get();
			const responses = await concurrentTurnsOnOneSession(n8n, 20);

			const workers = workersOf(n8n, responses);
			n8n.report(`20 concurrent turns of one session: ${distribution(workers)}`);
			expect(new Set(workers).size).toBe(WORKERS);
		});

		it("runs Agent Core on n8n's OpenAI Chat Model sub-node inside a worker's execution", async () => {
			const n8n = get();
			const response = await toolStepThenAnswerOnSubNode(n8n, 'openai', 'queue');

			const [worker] = workersOf(n8n, [response]);
			n8n.report(`chat model sub-node: execution ${response.body.execution_id} ran on ${worker}`);
		});

		it("runs a workflow tool's sub-workflow inside the worker's execution", async () => {
			const n8n = get();
			await workflowToolRoundTrip(n8n);
		});

		it('refuses In-Memory storage on Agent Context with an error that says to pick Redis', async () => {
			const n8n = get();
			const response = await n8n.post(WEBHOOKS.memoryChat, {
				session_id: n8n.uniqueId('queue-memory'),
				prompt: `${CHAT} remember me`,
			});

			n8n.expectStatus(response, 400);
			expect(response.body).toEqual({
				error: expect.stringMatching(/^In-Memory storage does not work in queue mode/),
			});
		});

		it('counts one shared token budget across both workers exactly, and stops the scope once it is spent', async () => {
			const n8n = get();
			const scope = n8n.uniqueId('queue-budget');
			const usage = { prompt_tokens: 70, completion_tokens: 30 };
			// Calls of this test's runs report 100 tokens each; everything else is the usual script.
			n8n.model.setScript((request) =>
				promptOf(request).includes(scope)
					? { text: JSON.stringify({ type: 'final', answer: 'counted' }), usage }
					: e2eModel(request),
			);
			try {
				const post = (index: number, tokens: number) =>
					n8n.post(WEBHOOKS.sharedBudget, {
						session_id: `${scope}-${index}`,
						prompt: `${CHAT} ${scope} run ${index}`,
						budget_scope: scope,
						budget_tokens: tokens,
					});
				const responses = await Promise.all(
					Array.from({ length: 12 }, (_, index) => post(index, 1_000_000)),
				);
				for (const response of responses) {
					n8n.expectStatus(response, 200);
					expect(response.body).toMatchObject({ final_answer: 'counted', finish_reason: 'final' });
				}
				const workers = workersOf(n8n, responses);
				expect(await n8n.budgetTokens(scope, SHARED_BUDGET_PERIOD_SECONDS)).toBe(12 * 100);

				// The scope now holds 1,200 tokens: with a budget of 1,200 the next run makes no model call.
				const callsBefore = n8n.model.requests.filter((request) =>
					promptOf(request).includes(scope),
				).length;
				const spent = await post(99, 1200);
				n8n.expectStatus(spent, 200);
				expect(spent.body).toMatchObject({
					finish_reason: 'budget_exhausted',
					stop_detail: `shared budget "${scope}" used 1200 of its 1200 tokens this period (${SHARED_BUDGET_PERIOD_SECONDS} s)`,
				});
				expect(
					n8n.model.requests.filter((request) => promptOf(request).includes(scope)).length,
				).toBe(callsBefore);
				n8n.report(
					`shared budget: 12 concurrent runs charged ${12 * 100} tokens exactly (${distribution(workers)}); the 13th ended budget_exhausted on ${workersOf(n8n, [spent])[0]}`,
				);
				expect(new Set(workers).size).toBe(WORKERS);
			} finally {
				n8n.model.setScript(e2eModel);
			}
		});

		it('counts one shared cost budget (version 2, Governance → Budgets, catalogue prices) across both workers, and stops the scope once it is spent', async () => {
			const n8n = get();
			const scope = n8n.uniqueId('queue-cost');
			// gpt-4o-mini in the bundled catalogue: 10,000 × 0.15 + 1,000 × 0.6 USD per million = 0.0021 USD a call.
			const usage = { prompt_tokens: 10_000, completion_tokens: 1_000 };
			n8n.model.setScript((request) =>
				promptOf(request).includes(scope)
					? { text: JSON.stringify({ type: 'final', answer: 'priced' }), usage }
					: e2eModel(request),
			);
			try {
				const post = (index: number, cost: number) =>
					n8n.post(WEBHOOKS.sharedCostBudget, {
						session_id: `${scope}-${index}`,
						prompt: `${CHAT} ${scope} run ${index}`,
						budget_scope: scope,
						budget_cost: cost,
					});
				const responses = await Promise.all(
					Array.from({ length: 12 }, (_, index) => post(index, 1_000)),
				);
				for (const response of responses) {
					n8n.expectStatus(response, 200);
					expect(response.body).toMatchObject({ final_answer: 'priced', finish_reason: 'final' });
				}
				const workers = workersOf(n8n, responses);
				expect(await n8n.budgetCost(scope, SHARED_BUDGET_PERIOD_SECONDS)).toBeCloseTo(
					12 * 0.0021,
					9,
				);
				const callsBefore = n8n.model.requests.filter((request) =>
					promptOf(request).includes(scope),
				).length;
				const spent = await post(99, 0.025);
				n8n.expectStatus(spent, 200);
				expect(spent.body).toMatchObject({
					finish_reason: 'budget_exhausted',
					stop_detail: `shared budget "${scope}" spent 0.0252 of its 0.025 USD this period (${SHARED_BUDGET_PERIOD_SECONDS} s)`,
				});
				expect(
					n8n.model.requests.filter((request) => promptOf(request).includes(scope)).length,
				).toBe(callsBefore);
				n8n.report(
					`shared cost budget: 12 concurrent runs charged ${12 * 0.0021} USD (${distribution(workers)}); the 13th ended budget_exhausted`,
				);
				expect(new Set(workers).size).toBe(WORKERS);
			} finally {
				n8n.model.setScript(e2eModel);
			}
		});

		it('pauses for approval on one worker and resumes from the Wait node’s webhook on the other, posting once', async () => {
			const n8n = get();
			// n8n's queue picks the worker of each half; approvals are repeated until one pair ran on both.
			const seen: string[] = [];
			for (let attempt = 1; attempt <= MAX_SEQUENTIAL_TURNS; attempt++) {
				const { paused } = await approvalRoundTrip(n8n, `queue-${attempt}`);
				const executionId = String(paused.body.resume_url).match(/\/(\d+)(?:[/?]|$)/)?.[1];
				// Each half is a job; a worker logs every job it starts with the execution's id.
				const workers = n8n.workers
					.filter((worker) =>
						new RegExp(`Worker started execution ${executionId} \\(`).test(worker.log()),
					)
					.map((worker) => worker.name);
				seen.push(`execution ${executionId} on ${workers.join(' + ') || 'no named worker'}`);
				if (workers.length === WORKERS) break;
			}
			n8n.report(`approval: ${seen.join(', ')}`);
			expect(seen[seen.length - 1]).toMatch(/ on worker-\d \+ worker-\d$/);
		});

		it('keeps the runs of both workers in the audit database, each with its execution id and the digest its answer carried', async () => {
			const n8n = get();
			const tag = n8n.uniqueId('queue-audit');
			const responses = await Promise.all(
				Array.from({ length: 12 }, (_, index) =>
					n8n.post(WEBHOOKS.audit, {
						session_id: `${tag}-${index}`,
						prompt: `${CHAT} ${tag} run ${index}`,
					}),
				),
			);
			for (const response of responses) {
				n8n.expectStatus(response, 200);
				expect(response.body).toMatchObject({
					finish_reason: 'final',
					audit: { run_id: expect.any(String), stored: true },
				});
			}
			const workers = workersOf(n8n, responses);
			const rows = new Map((await n8n.auditRuns()).map((row) => [row.run_id, row]));
			for (const response of responses) {
				const audit = response.body.audit as { run_id: string };
				expect(rows.get(audit.run_id)).toMatchObject({
					execution_id: String(response.body.execution_id),
					workflow_id: expect.stringMatching(/\S/),
					node_name: 'Agent Core',
					session_id: response.body.session_id,
					finish_reason: 'final',
					final_answer: response.body.final_answer,
					trace_digest: response.body.trace_digest,
				});
			}
			n8n.report(
				`audit: 12 concurrent runs stored with their execution ids (${distribution(workers)})`,
			);
			expect(new Set(workers).size).toBe(WORKERS);
		});

		const api = useLoopbackApi();
		it("decrypts the API header credential on the worker and sends the header to the credential's host", async () => {
			await apiHeaderRoundTrip(get(), api(), 'queue');
		});
	});
}
