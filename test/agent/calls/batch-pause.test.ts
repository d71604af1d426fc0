// Issue #42: a batch with a call that needs approval pauses before that call, lists the whole batch, and goes on
// in order once a person decided; a durable run checkpoints each call of a batch and never runs one twice.
import { resumeAgent } from '../../../src/agent/resume';
import { runAgent } from '../../../src/agent/run-agent';
import type { RunAgentOptions } from '../../../src/agent/base/run-options';
import { MemoryCheckpoints } from '../../../src/run-state/checkpoint-store';
import { MemoryUsedStates } from '../../../src/run-state/used-states';
import type { AgentResult } from '../../../src/trace/types';
import {
	final,
	lastUserMessage,
	modelFor,
	useScriptedServer,
	withoutInput,
} from '../../support/agent';
import { countingTool, dyingStore, ProcessKilled } from '../../support/durable';
import { rejectionOf } from '../../support/rejection';

const SECRET = 'batch-pause-test-secret-0123456789';
const actions = (...calls: Array<[string, number]>) =>
	JSON.stringify({
		type: 'actions',
		calls: calls.map(([tool, value]) => ({ tool, args: { value } })),
	});

describe('a batch with a call that needs approval', () => {
	const server = useScriptedServer();
	let lookup: ReturnType<typeof countingTool>;
	let pay: ReturnType<typeof countingTool>;
	let send: ReturnType<typeof countingTool>;
	beforeEach(() => {
		lookup = countingTool('lookup', false);
		pay = countingTool('pay');
		send = countingTool('send');
	});
	const options = (extra: Partial<RunAgentOptions> = {}): RunAgentOptions => ({
		model: modelFor(server()),
		config: {
			model: 'm',
			allowed_tools: ['lookup', 'pay', 'send'],
			approval_required: ['pay'],
		},
		extraTools: [lookup.tool, pay.tool, send.tool],
		prompt: 'Look up order 1, pay invoice 2, send receipt 3, look up order 4.',
		stateSecret: SECRET,
		...extra,
	});
	/** Resumes with a run's options less its input (resumeAgent goes on with the paused run's). */
	const resume = (paused: AgentResult, decision: unknown, extra: Partial<RunAgentOptions> = {}) => {
		const resuming = withoutInput(options(extra));
		return resumeAgent({ ...resuming, runState: paused.run_state, decision } as never);
	};

	async function pausedBatch(): Promise<AgentResult> {
		server().setScript([actions(['lookup', 1], ['pay', 2], ['send', 3], ['lookup', 4])]);
		return runAgent(options());
	}

	it('pauses before it: the read before it ran, nothing with side effects ran, the pause lists every call', async () => {
		const paused = await pausedBatch();
		expect(paused.finish_reason).toBe('awaiting_approval');
		expect(lookup.runs).toEqual([{ value: 1 }]);
		expect([pay.runs, send.runs]).toEqual([[], []]);
		expect(paused.pending_action).toEqual({
			tool: 'pay',
			args: { value: 2 },
			call: 2,
			batch: [
				{ call: 1, tool: 'lookup', args: { value: 1 }, status: 'ran' },
				{ call: 2, tool: 'pay', args: { value: 2 }, status: 'needs_approval' },
				{ call: 3, tool: 'send', args: { value: 3 }, status: 'waiting' },
				{ call: 4, tool: 'lookup', args: { value: 4 }, status: 'waiting' },
			],
		});
		expect(paused.stop_detail).toBe("call 2 (pay) waits for a person's approval");
		expect(paused.used_tools).toEqual({ lookup: expect.objectContaining({ count: 1 }) });
	});

	it('approved, the batch goes on in order from the paused call: no call runs twice, one observation message', async () => {
		const paused = await pausedBatch();
		server().setScript([final('Paid and sent.')]);
		const result = await resume(paused, { approve: true });
		expect(result.finish_reason).toBe('final');
		expect([lookup.runs, pay.runs, send.runs]).toEqual([
			[{ value: 1 }, { value: 4 }],
			[{ value: 2 }],
			[{ value: 3 }],
		]);
		expect(result.trace).toHaveLength(2);
		expect(result.trace[0].calls?.map((call) => call.observation)).toEqual([
			expect.stringContaining('"value":1'),
			expect.stringContaining('"value":2'),
			expect.stringContaining('"value":3'),
			expect.stringContaining('"value":4'),
		]);
		expect(result.used_tools).toMatchObject({
			lookup: { count: 2 },
			pay: { count: 1 },
			send: { count: 1 },
		});
		const message = lastUserMessage(server(), 1);
		expect(message.match(/^call \d \(\w+\):$/gm)).toEqual([
			'call 1 (lookup):',
			'call 2 (pay):',
			'call 3 (send):',
			'call 4 (lookup):',
		]);
	});

	it('decided call by call: a denied call is not run and the model reads why; the others run', async () => {
		const paused = await pausedBatch();
		server().setScript([final('Not paid.')]);
		const result = await resume(paused, { calls: { '2': { deny: 'over budget' } } });
		expect(result.finish_reason).toBe('final');
		expect(pay.runs).toEqual([]);
		expect(send.runs).toEqual([{ value: 3 }]);
		expect(result.trace[0].calls![1].observation).toContain('Their reason: over budget');
		expect(result.used_tools.pay).toBeUndefined();
	});

	it('an edit runs the call with the new arguments; arguments the schema refuses fail naming the field and leave the state usable', async () => {
		const paused = await pausedBatch();
		const usedStates = new MemoryUsedStates();
		const refused = await rejectionOf(
			resume(paused, { calls: { '2': { edit: { value: 'two' } } } }, { usedStates } as never),
		);
		expect(refused).toMatchObject({ field: 'decision.calls.2.edit' });
		expect(pay.runs).toEqual([]);
		server().setScript([final('Paid 20.')]);
		const result = await resume(paused, { calls: { '2': { edit: { value: 20 } } } }, {
			usedStates,
		} as never);
		expect(result.finish_reason).toBe('final');
		expect(pay.runs).toEqual([{ value: 20 }]);
		expect(result.trace[0].notices).toContain(
			'a person edited the arguments of a call before it ran',
		);
	});

	it.each([
		[
			'a call number the batch does not have',
			{ calls: { '2': { approve: true }, '9': { approve: true } } },
			'decision.calls.9',
		],
		[
			'a call that already ran',
			{ calls: { '1': { approve: true }, '2': { approve: true } } },
			'decision.calls.1',
		],
		[
			'no decision for the call the run waits at',
			{ calls: { '3': { approve: true } } },
			'decision.calls',
		],
		[
			'a decision that is none of the three',
			{ calls: { '2': { approve: 'yes' } } },
			'decision.calls.2',
		],
		['calls that is not an object', { calls: [{ approve: true }] }, 'decision.calls'],
		[
			'an edit of a call that needs no approval',
			{ calls: { '2': { approve: true }, '3': { edit: { value: 300 } } } },
			'decision.calls.3',
		],
	])('refuses %s, naming the field, before anything runs', async (_case, decision, field) => {
		const paused = await pausedBatch();
		expect(await rejectionOf(resume(paused, decision))).toMatchObject({ field });
		expect([pay.runs, send.runs]).toEqual([[], []]);
	});

	it('two calls that need approval: both decided at once run without a second pause; one decided pauses again at the other', async () => {
		const both = (extra = {}) =>
			options({
				config: {
					model: 'm',
					allowed_tools: ['lookup', 'pay', 'send'],
					approval_required: ['pay', 'send'],
				},
				...extra,
			});
		server().setScript([actions(['pay', 2], ['send', 3])]);
		const paused = await runAgent(both());
		server().setScript([final('done')]);
		const once = await resumeAgent({
			...withoutInput(both()),
			runState: paused.run_state,
			decision: { calls: { '1': { approve: true }, '2': { approve: true } } },
		});
		expect(once.finish_reason).toBe('final');
		expect([pay.runs, send.runs]).toEqual([[{ value: 2 }], [{ value: 3 }]]);

		server().setScript([actions(['pay', 5], ['send', 6])]);
		const again = await runAgent(both());
		const second = await resumeAgent({
			...withoutInput(both()),
			runState: again.run_state,
			decision: { approve: true },
		});
		expect(second).toMatchObject({
			finish_reason: 'awaiting_approval',
			pending_action: { tool: 'send', call: 2 },
		});
		expect(send.runs).toEqual([{ value: 3 }]);
		expect(second.pending_action!.batch![0]).toMatchObject({
			status: 'ran',
		});
	});

	it('a state resumed twice is refused the second time; a forged batch (edited state) is refused', async () => {
		const paused = await pausedBatch();
		const usedStates = new MemoryUsedStates();
		server().setScript([final('done')]);
		await resume(paused, { approve: true }, { usedStates } as never);
		expect(
			await rejectionOf(resume(paused, { approve: true }, { usedStates } as never)),
		).toMatchObject({
			message: expect.stringContaining('already used'),
		});
		const forged = JSON.parse(JSON.stringify(paused.run_state));
		forged.payload.pending.args.value = 999;
		expect(
			await rejectionOf(resume(paused && { ...paused, run_state: forged }, { approve: true })),
		).toBeInstanceOf(Error);
		expect(pay.runs).toEqual([{ value: 2 }]);
	});

	it('a decision by call numbers for a run paused on one call is refused, naming decision.calls', async () => {
		server().setScript([JSON.stringify({ type: 'action', tool: 'pay', args: { value: 7 } })]);
		const paused = await runAgent(options());
		expect(await rejectionOf(resume(paused, { calls: { '1': { approve: true } } }))).toMatchObject({
			field: 'decision.calls',
		});
	});
});

describe('a durable run interrupted inside a batch', () => {
	const server = useScriptedServer();
	let runKeys = 0;
	const options = (
		store: MemoryCheckpoints | ReturnType<typeof dyingStore>,
		runKey: string,
		tool: ReturnType<typeof countingTool>,
	): RunAgentOptions => ({
		model: modelFor(server()),
		config: { model: 'm', allowed_tools: ['send'] },
		extraTools: [tool.tool],
		prompt: 'Send the three messages.',
		stateSecret: SECRET,
		runKey,
		checkpoints: store,
	});

	it('killed after the second of three calls, it goes on with the third: no call runs twice, the model is not asked again for the batch', async () => {
		const send = countingTool('send');
		const store = new MemoryCheckpoints();
		const runKey = `batch-durable-${process.pid}-${++runKeys}`;
		server().setScript([actions(['send', 1], ['send', 2], ['send', 3])]);
		// Writes: call 1 started, call 1 done, call 2 started, call 2 done — then the process dies.
		const died = await rejectionOf(runAgent(options(dyingStore(store, 4), runKey, send)));
		expect(died).toBeInstanceOf(ProcessKilled);
		expect(send.runs).toEqual([{ value: 1 }, { value: 2 }]);

		server().setScript([final('All three sent.')]);
		const result = await runAgent(options(store, runKey, send));
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'All three sent.' });
		expect(send.runs).toEqual([{ value: 1 }, { value: 2 }, { value: 3 }]);
		expect(server().requests).toHaveLength(2);
		expect(result.trace[0].calls?.map((call) => call.observation)).toEqual([
			expect.stringContaining('"value":1'),
			expect.stringContaining('"value":2'),
			expect.stringContaining('"value":3'),
		]);
		expect(result.used_tools.send.count).toBe(3);
	});

	it('killed while the second call ran (started, never recorded): it is not sent again; the run ends interrupted_call naming it', async () => {
		const send = countingTool('send');
		const store = new MemoryCheckpoints();
		const runKey = `batch-durable-${process.pid}-${++runKeys}`;
		server().setScript([actions(['send', 1], ['send', 2], ['send', 3])]);
		await rejectionOf(runAgent(options(dyingStore(store, 3), runKey, send)));
		expect(send.runs).toEqual([{ value: 1 }]);

		server().setScript([]);
		const result = await runAgent(options(store, runKey, send));
		expect(result.finish_reason).toBe('interrupted_call');
		expect(result.stop_detail).toMatch(
			/^the send call of step 1 started before the run was interrupted/,
		);
		expect(send.runs).toEqual([{ value: 1 }]);
	});

	it('a read-only call that ended is kept while others of its group still ran: killed then, only the unfinished ones run again', async () => {
		let release!: () => void;
		const gate = new Promise<void>((resolve) => (release = resolve));
		const runs: number[] = [];
		const lookup = countingTool('lookup', false);
		lookup.tool.execute = async (args: { value: number }) => {
			runs.push(args.value);
			if (args.value !== 1) await gate;
			return { found: args.value };
		};
		const store = new MemoryCheckpoints();
		const runKey = `batch-durable-${process.pid}-${++runKeys}`;
		const readOptions = (checkpoints: MemoryCheckpoints | ReturnType<typeof dyingStore>) => ({
			...options(checkpoints, runKey, lookup),
			config: { model: 'm', allowed_tools: ['lookup'] },
		});
		server().setScript([actions(['lookup', 1], ['lookup', 2], ['lookup', 3])]);
		const dying = dyingStore(store, 1);
		const first = rejectionOf(runAgent(readOptions(dying)));
		// Call 1 ended and was checkpointed (the process dies at that write) while calls 2 and 3 still ran.
		while (dying.writes < 1) await new Promise((resolve) => setImmediate(resolve));
		release();
		expect(await first).toBeInstanceOf(ProcessKilled);

		server().setScript([final('Found all three.')]);
		const result = await runAgent(readOptions(store));
		expect(result.finish_reason).toBe('final');
		expect(runs.filter((value) => value === 1)).toHaveLength(1);
		expect(runs.filter((value) => value !== 1).sort()).toEqual([2, 2, 3, 3]);
		expect(result.used_tools.lookup.count).toBe(3);
		expect(server().requests).toHaveLength(2);
	});
});
