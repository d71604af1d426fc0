// Durable runs in real n8n queue mode (issue #30): a worker SIGKILLed while its run waits on the model after a POST step.
import { randomUUID } from 'node:crypto';
import { DEFAULT_CHECKPOINT_PREFIX } from '../../../src/run-state/checkpoint-store';
import { LINES } from '../../../scripts/n8n-cache';
import { e2eModel, promptOf } from './model-script';
import {
	latestExecutionOf,
	nodeOutputOf,
	readStoredExecution,
	retriesOf,
	type StoredExecution,
} from './n8n-executions';
import { useAgentCoreInN8n, type AgentCoreInN8n } from './n8n-harness';
import { OwnerSession } from './n8n-rest';
import {
	CRASH_WEBHOOKS,
	CrashRunModel,
	finalAnswer,
	useOrderTarget,
	workerCrashWorkflows,
	type CrashWebhook,
	type CrashWorkflows,
	type OrderTarget,
} from './workflows/worker-crash-fixtures';

/**
 * What n8n does when a queue-mode worker dies mid-execution, read in the installed packages
 * (node_modules/n8n/dist/…, sources packages/cli/src/…):
 *
 * n8n 1.123.81 — the job is re-processed under the same execution id. Bull keeps a lock per active job that
 * its worker renews every QUEUE_WORKER_LOCK_RENEW_TIME (10 s); a SIGKILLed worker stops renewing, the lock
 * expires after QUEUE_WORKER_LOCK_DURATION (60 s), and the next stalled-job check of a live worker (every
 * QUEUE_WORKER_STALLED_INTERVAL, 30 s) moves the job back to the wait list while it stalled at most
 * QUEUE_WORKER_MAX_STALLED_COUNT (1) times (@n8n/config scaling-mode.config.ts; Bull's moveStalledJobsToWait).
 * A worker then takes it: scaling/job-processor.ts processJob loads the execution by id (skipping it only
 * when it is marked `crashed`), logs "Worker started execution <id>" and runs it again from the data the
 * main stored when it enqueued it (no progress is saved unless EXECUTIONS_DATA_SAVE_ON_PROGRESS): same
 * execution id, same input, so the default run key `<execution id>:<run index>:<item index>` finds the
 * checkpoint. The main's webhook request keeps waiting on the same Bull job (workflow-runner.ts
 * enqueueExecution: job.finished()), so the caller gets the answer of the second attempt. Queue recovery
 * (scaling.service.ts recoverFromQueue: running executions without a job are marked crashed) runs on the
 * leader at start and then every 180 minutes, so it does not race this.
 *
 * n8n 2.41.1 — the execution fails, and n8n's own retry of it runs nothing. scaling/scaling.service.ts setupQueue
 * forces Bull's maxStalledCount to 0, so once the dead worker's lock expired (the same settings as 1.x) a live
 * worker's stalled check fails the job ("job stalled more than maxStalledCount") instead of re-queueing it.
 * The main's job.finished() rejects (workflow-runner.ts enqueueExecution) and processError looks for up to
 * 30 s (MAX_STALLED_COUNT_GRACE_WINDOW_MS, every second) whether the execution succeeded after all (a false
 * stall); then it saves the execution as status `error`, its data only that error — `resultData.runData`
 * empty and nothing left in `executionData.nodeExecutionStack` — over what the main had stored at enqueue
 * (the Webhook's output, Agent Core waiting to run), and answers the waiting caller HTTP 500 ("Error in
 * workflow"). It is never marked `crashed` while the main lives. A retry by the owner (POST
 * /rest/executions/:id/retry, executions.controller.ts → execution.service.ts retry) is accepted and creates a
 * new execution (`retryOf`, mode `retry`) from that data, which ends `error` at once without running a node:
 * the request is gone, so a run key read from it could not help either. What gets the run going again is the
 * caller sending the same request again: a new execution, whose Run Key from the request's Idempotency-Key
 * header finds the checkpoint. (Had the main died too, queue recovery at its next start would mark the
 * execution `crashed` — status only, its data kept — and n8n's retry would run Agent Core again from the
 * Webhook's stored output; read in scaling.service.ts recoverFromQueue, not tested here.)
 */

/** Polls `probe` every 250 ms until it gives a value; fails after `timeoutMs` saying what it waited for. */
async function waitFor<Value>(
	what: string,
	timeoutMs: number,
	probe: () => Promise<Value | undefined> | Value | undefined,
): Promise<Value> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline)
			throw new Error(`gave up after ${timeoutMs / 1000} s waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** The workers whose log says they started this execution, in the order they were started. */
function workersThatStarted(n8n: AgentCoreInN8n, executionId: string): string[] {
	return n8n.workers
		.filter((worker) => worker.log().includes(`Worker started execution ${executionId} (`))
		.map((worker) => worker.name);
}

const seconds = (milliseconds: number) => `${(milliseconds / 1000).toFixed(1)} s`;

type CallerAnswer = { status: number; body: any } | { error: string };

/** The run's request to its webhook, as its caller sends it (again, for a retry, with the same headers). */
function callWebhook(
	n8n: AgentCoreInN8n,
	kind: CrashWebhook,
	model: CrashRunModel,
	headers: Record<string, string>,
	signal: AbortSignal,
): Promise<CallerAnswer> {
	return fetch(n8n.n8n.webhookUrl(CRASH_WEBHOOKS[kind]), {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: JSON.stringify({ prompt: model.prompt }),
		signal: AbortSignal.any([signal, AbortSignal.timeout(150000)]),
	}).then(
		async (response) => ({
			status: response.status,
			body: await response.json().catch(() => undefined),
		}),
		(error: Error) => ({ error: error.message }),
	);
}

/** What one crash left behind. */
interface Crash {
	tag: string;
	model: CrashRunModel;
	executionId: string;
	killedWorker: string;
	killedAt: number;
	/** The first request's answer (or why it got none), once it came. */
	caller: Promise<CallerAnswer>;
	/** The caller gives up waiting for the first request's answer. */
	hangUp(): void;
	/** The caller sends the same request again, with the same headers. */
	sendAgain(): Promise<CallerAnswer>;
	/** The replacement worker started after the kill (with `replaceWorker`), so that the next test has two again. */
	replacement: Promise<unknown>;
}

/**
 * Posts the run's request, waits until its step-2 model call arrived (the POST happened, and step 1 is
 * checkpointed before that call is made), SIGKILLs the worker running the execution, starts a replacement
 * (unless `replaceWorker` is false: a suite's last test leaves it out), and from then on lets step-2 calls
 * be answered.
 */
async function crashDuringStepTwo(
	n8n: AgentCoreInN8n,
	workflows: CrashWorkflows,
	target: OrderTarget,
	kind: CrashWebhook,
	{
		headers = {},
		replaceWorker = true,
	}: { headers?: Record<string, string>; replaceWorker?: boolean } = {},
): Promise<Crash> {
	const tag = n8n.uniqueId(`crash-${kind}`);
	const model = new CrashRunModel(tag, `${target.url}/orders?run=${tag}`);
	n8n.model.setScript((request) =>
		promptOf(request) === model.prompt ? model.reply(request) : e2eModel(request),
	);
	const firstRequest = new AbortController();
	const caller = callWebhook(n8n, kind, model, headers, firstRequest.signal);
	// The test can only kill a run that waits: one that ended before its step-2 call fails the test, saying how.
	let answered: CallerAnswer | undefined;
	void caller.then((answer) => (answered = answer));
	await waitFor(`the step-2 model call of ${tag}`, 60000, () =>
		model.callsForStep(n8n, 2) > 0 || answered ? true : undefined,
	);
	const executionId = await waitFor(`the execution of ${workflows.idOf[kind]}`, 10000, () =>
		n8n.n8nDatabase((client) => latestExecutionOf(client, workflows.idOf[kind])),
	);
	if (model.callsForStep(n8n, 2) === 0) {
		const error = (await n8n.n8nDatabase((client) => readStoredExecution(client, executionId)))
			?.data?.resultData?.error;
		throw new Error(
			`the run ended before its step-2 model call (${model.callsForStep(n8n, 1)} step-1 calls, ${target.of(tag).length} POSTs), answering ${JSON.stringify(answered).slice(0, 1000)}; ` +
				`execution ${executionId}: ${error ? `${error.message} ${error.description ?? ''}` : '(no error stored)'}`,
		);
	}
	const [killedWorker, ...others] = workersThatStarted(n8n, executionId);
	if (!killedWorker || others.length > 0)
		throw new Error(
			`expected one worker to have started execution ${executionId}, found [${[killedWorker, ...others].join(', ')}]`,
		);
	await n8n.killWorker(killedWorker);
	const killedAt = Date.now();
	const replacement = replaceWorker
		? n8n.n8n.startWorker({ name: `worker-${n8n.workers.length + 1}`, concurrency: 5 })
		: Promise.resolve();
	replacement.catch(() => undefined); // awaited, and its failure reported, by the scenario
	model.release();
	return {
		tag,
		model,
		executionId,
		killedWorker,
		killedAt,
		caller,
		replacement,
		hangUp: () => firstRequest.abort(),
		sendAgain: () => callWebhook(n8n, kind, model, headers, new AbortController().signal),
	};
}

/** Waits until the execution reached one of `statuses`; fails at once on another final status. */
async function executionReaching(
	n8n: AgentCoreInN8n,
	executionId: string,
	statuses: string[],
	timeoutMs: number,
): Promise<StoredExecution> {
	return waitFor(
		`execution ${executionId} to become ${statuses.join(' or ')}`,
		timeoutMs,
		async () => {
			const execution = await n8n.n8nDatabase((client) => readStoredExecution(client, executionId));
			if (execution && statuses.includes(execution.status)) return execution;
			if (execution && ['success', 'error', 'crashed', 'canceled'].includes(execution.status)) {
				throw new Error(
					`execution ${executionId} ended ${execution.status}, not ${statuses.join(' or ')}: ${JSON.stringify(execution.data?.resultData?.error ?? null).slice(0, 1000)}`,
				);
			}
			return undefined;
		},
	);
}

/** What the POST target and the model saw of a durable run that was killed once and went on. */
function expectWentOnAfterItsCheckpoint(
	n8n: AgentCoreInN8n,
	target: OrderTarget,
	crash: Crash,
	output: any,
): void {
	const requests = target.of(crash.tag);
	// One POST; or, had the kill come while it ran, a second one with the same Idempotency-Key, which the target answered without carrying it out.
	expect(requests.length).toBeGreaterThanOrEqual(1);
	expect(requests.length).toBeLessThanOrEqual(2);
	expect(new Set(requests.map((request) => request.idempotencyKey))).toEqual(
		new Set([
			expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
		]),
	);
	expect(requests.filter((request) => request.carriedOut)).toHaveLength(1);
	expect(output).toMatchObject({
		finish_reason: 'final',
		final_answer: finalAnswer(JSON.stringify(requests[0].answer)),
	});
	expect(output.trace.map((step: { step: number }) => step.step)).toEqual([1, 2]);
	expect(output.trace[0]).toMatchObject({
		action: { tool: 'http_request', args: { method: 'POST' } },
	});
	// Step 1 was asked once in all; step 2 by the killed attempt (held) and again by the one that finished.
	expect(crash.model.callsForStep(n8n, 1)).toBe(1);
	expect(crash.model.callsForStep(n8n, 2)).toBe(2);
}

/** n8n 1.x: the stalled job is run again under the same execution id, by the other worker or the replacement. */
async function reprocessedUnderTheSameId(
	n8n: AgentCoreInN8n,
	crash: Crash,
): Promise<{ output: any; pickedUpAfterMs: number; finishedAfterMs: number; worker: string }> {
	const worker = await waitFor(
		`another worker to start execution ${crash.executionId} again`,
		90000,
		() => workersThatStarted(n8n, crash.executionId).find((name) => name !== crash.killedWorker),
	);
	const pickedUpAfterMs = Date.now() - crash.killedAt;
	const execution = await executionReaching(n8n, crash.executionId, ['success'], 60000);
	return {
		output: nodeOutputOf(execution, 'Agent Core'),
		pickedUpAfterMs,
		finishedAfterMs: Date.now() - crash.killedAt,
		worker,
	};
}

/**
 * n8n 2.41: once Bull reports the job stalled, the main fails the execution (status error) and answers
 * the waiting caller HTTP 500; resolves with that, and when it came.
 */
async function failedAfterTheStall(
	n8n: AgentCoreInN8n,
	crash: Crash,
): Promise<{ execution: StoredExecution; failedAfterMs: number; caller: CallerAnswer }> {
	const execution = await executionReaching(n8n, crash.executionId, ['error', 'crashed'], 120000);
	const failedAfterMs = Date.now() - crash.killedAt;
	return { execution, failedAfterMs, caller: await crash.caller };
}

/**
 * n8n 2.41's own retry of that execution, as the owner through the REST API (POST /rest/executions/:id/retry,
 * executions.controller.ts → execution.service.ts retry): it is accepted and creates a new execution
 * (`retryOf` the failed one), which runs from the failed execution's stored data — and that data holds no
 * node's output and nothing to execute any more (see the top of this file), so the retry ends at once
 * without running a node. Resolves with the retry's execution.
 */
async function retriedByTheOwner(
	n8n: AgentCoreInN8n,
	executionId: string,
): Promise<StoredExecution> {
	const owner = new OwnerSession(n8n.n8n.baseUrl);
	await owner.signIn();
	const retry = await owner.request('POST', `/rest/executions/${executionId}/retry`, {
		loadWorkflow: false,
	});
	if (retry.status !== 200)
		throw new Error(
			`n8n refused to retry execution ${executionId}: HTTP ${retry.status} ${retry.text.slice(0, 1000)}`,
		);
	const [retryId] = await waitFor(`a retry of execution ${executionId}`, 10000, async () => {
		const ids = await n8n.n8nDatabase((client) => retriesOf(client, executionId));
		return ids.length ? ids : undefined;
	});
	return executionReaching(n8n, retryId, ['error', 'crashed', 'success'], 60000);
}

/** Registers the crash scenarios of `line` in the enclosing describe, whose harness imported workerCrashWorkflows(line). */
export function workerCrashScenarios(
	get: () => AgentCoreInN8n,
	line: 1 | 2,
	workflows: CrashWorkflows,
): void {
	const orders = useOrderTarget();
	// The checkpoints live outside the harness's run tag (agent_core:checkpoint:{<workflow id>:…}), so each
	// test removes its own (afterEach: the harness's afterAll closes Redis before a later afterAll here would run).
	afterEach(async () => {
		get().model.setScript(e2eModel);
		for (const id of Object.values(workflows.idOf))
			await get().redis.deleteKeys(`${DEFAULT_CHECKPOINT_PREFIX}{${id}:`);
	});

	if (line === 1) {
		it('n8n 1.x re-runs a stalled job under its execution id after its worker was SIGKILLed mid-run: the run goes on from its checkpoint, POSTs once and answers', async () => {
			const n8n = get();
			const crash = await crashDuringStepTwo(n8n, workflows, orders(), 'durable');
			const { output, pickedUpAfterMs, finishedAfterMs, worker } = await reprocessedUnderTheSameId(
				n8n,
				crash,
			);

			expectWentOnAfterItsCheckpoint(n8n, orders(), crash, output);
			// The main's webhook request waited on the same job: the caller gets the second attempt's answer.
			expect(await crash.caller).toMatchObject({
				status: 200,
				body: { finish_reason: 'final', final_answer: output.final_answer },
			});
			await crash.replacement;
			n8n.report(
				`worker crash, durable: execution ${crash.executionId} killed on ${crash.killedWorker}, started again on ${worker} ${seconds(pickedUpAfterMs)} after the kill, ` +
					`finished ${seconds(finishedAfterMs)} after it; ${orders().of(crash.tag).length} POST, step 1 asked once`,
			);
		});

		it('without Durable Runs, the re-run stalled job starts over: the model is asked for step 1 again and the POST is sent twice, with no Idempotency-Key', async () => {
			const n8n = get();
			// The suite's last test: the surviving worker re-runs the job, no replacement needed.
			const crash = await crashDuringStepTwo(n8n, workflows, orders(), 'plain', {
				replaceWorker: false,
			});
			const { output, pickedUpAfterMs } = await reprocessedUnderTheSameId(n8n, crash);

			expect(output).toMatchObject({ finish_reason: 'final' });
			expect(
				orders()
					.of(crash.tag)
					.map((request) => request.idempotencyKey),
			).toEqual([undefined, undefined]);
			expect(crash.model.callsForStep(n8n, 1)).toBe(2);
			n8n.report(
				`worker crash, control without Durable Runs: started again ${seconds(pickedUpAfterMs)} after the kill; 2 POSTs, step 1 asked twice`,
			);
		});
		return;
	}

	it("n8n 2.x fails the execution whose worker was SIGKILLed and its own retry runs nothing; the caller's retry with the same Idempotency-Key goes on from the checkpoint, POSTs once and answers", async () => {
		const n8n = get();
		const crash = await crashDuringStepTwo(n8n, workflows, orders(), 'durableByRequestKey', {
			headers: { 'idempotency-key': randomUUID() },
		});
		const { execution, failedAfterMs, caller } = await failedAfterTheStall(n8n, crash);

		expect(caller).toMatchObject({ status: 500 });
		// The failed execution keeps nothing of the run: no node's output, nothing left to execute.
		expect(execution.data.resultData.runData).toEqual({});
		const retry = await retriedByTheOwner(n8n, crash.executionId);
		expect(retry).toMatchObject({ mode: 'retry', retryOf: crash.executionId, status: 'error' });
		expect(nodeOutputOf(retry, 'Agent Core')).toBeUndefined();
		expect(crash.model.callsForStep(n8n, 2)).toBe(1);
		expect(orders().of(crash.tag)).toHaveLength(1);
		const sentAgainAt = Date.now();
		const again = await crash.sendAgain();
		expect(again).toMatchObject({ status: 200 });
		expectWentOnAfterItsCheckpoint(n8n, orders(), crash, (again as { body: any }).body);
		await crash.replacement;
		n8n.report(
			`worker crash, durable: execution ${crash.executionId} killed on ${crash.killedWorker}; n8n failed it and answered the caller HTTP ${(caller as { status: number }).status} ` +
				`${seconds(failedAfterMs)} after the kill; the owner's retry (execution ${retry.id}) ran no node; the caller's retry with the same Idempotency-Key answered ` +
				`${seconds(Date.now() - sentAgainAt)} after it was sent; ${orders().of(crash.tag).length} POST, step 1 asked once`,
		);
	});

	it('without Durable Runs, a caller that retries with the same Idempotency-Key starts the run over: the model is asked for step 1 again and the POST is sent twice', async () => {
		const n8n = get();
		// The suite's last test: the surviving worker runs the retry, no replacement needed.
		const crash = await crashDuringStepTwo(n8n, workflows, orders(), 'plain', {
			headers: { 'idempotency-key': randomUUID() },
			replaceWorker: false,
		});
		// A caller that gave up waiting sends the request again at once (n8n's own failing of the first execution takes half a minute).
		crash.hangUp();
		const again = await crash.sendAgain();

		expect(again).toMatchObject({ status: 200, body: { finish_reason: 'final' } });
		expect(
			orders()
				.of(crash.tag)
				.map((request) => request.idempotencyKey),
		).toEqual([undefined, undefined]);
		expect(crash.model.callsForStep(n8n, 1)).toBe(2);
		n8n.report(
			"worker crash, control without Durable Runs: the caller's retry POSTed again, step 1 asked twice",
		);
	});
}

/**
 * Bull's timings lowered so that a stalled job is found within seconds instead of a minute or two: the lock
 * a worker holds on its job lasts 6 s and is renewed every 1.5 s (the renewal must come well within the
 * lock, or a busy worker's job would look stalled), and live workers look for stalled jobs every 2 s.
 */
export const SHORT_STALL_DETECTION: Record<string, string> = {
	QUEUE_WORKER_LOCK_DURATION: '6000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '1500',
	QUEUE_WORKER_STALLED_INTERVAL: '2000',
};

/**
 * One n8n line in queue mode with only the crash workflows (the queue suite with the examples runs on 2.x
 * alone): main + two workers on PostgreSQL and Redis, stalled jobs found within seconds (SHORT_STALL_DETECTION;
 * on 2.x that only brings n8n's failing of the execution forward).
 */
export function describeWorkerCrashInQueueMode(line: 1 | 2): void {
	describe(`Durable runs in n8n ${LINES[line].version} queue mode: a worker SIGKILLed mid-run (main + 2 workers, PostgreSQL, Redis)`, () => {
		const crashWorkflows = workerCrashWorkflows(line);
		const get = useAgentCoreInN8n(line, e2eModel, {
			queue: { workers: 2, concurrency: 5 },
			examples: false,
			workflows: crashWorkflows.workflows,
			env: SHORT_STALL_DETECTION,
		});
		workerCrashScenarios(get, line, crashWorkflows);
	});
}
