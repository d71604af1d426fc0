// A durable run in plan mode (issue #51): killed between the plan's steps, it goes on with the next step and never
// repeats one with side effects; the checkpoint carries the plan sealed.
import { runAgent } from '../../../src/agent/run-agent';
import type { RunAgentOptions } from '../../../src/agent/base/run-options';
import { MemoryCheckpoints, type CheckpointStore } from '../../../src/run-state/checkpoint-store';
import { final, modelFor, useScriptedServer } from '../../support/agent';
import { rejectionOf } from '../../support/rejection';
import { countingTool, dyingStore, ProcessKilled } from '../../support/durable';

const SECRET = 'plan-durable-test-secret-0123456789';

const PLAN = JSON.stringify({
	type: 'plan',
	steps: [
		{ step: 1, description: 'send the first', tool: 'send_message', args: { value: 1 } },
		{ step: 2, description: 'send the second', tool: 'send_message', args: { value: 2 } },
		{
			step: 3,
			description: 'look up what the second sent',
			tool: 'lookup',
			args: { value: { $step: 2, pointer: '/value' } },
		},
	],
});

describe('plan mode in a durable run (runKey)', () => {
	const server = useScriptedServer();
	let runs = 0;

	function setUp() {
		const send = countingTool('send_message');
		const lookup = countingTool('lookup', false);
		const runKey = `plan-durable-${process.pid}-${++runs}`;
		const options = (checkpoints: CheckpointStore): RunAgentOptions => ({
			model: modelFor(server()),
			config: { model: 'm', mode: 'plan', allowed_tools: ['send_message', 'lookup'] },
			prompt: 'send both, then look',
			stateSecret: SECRET,
			runKey,
			checkpoints,
			extraTools: [send.tool, lookup.tool],
		});
		return { send, lookup, options };
	}

	it('killed after plan step 1 was recorded, it goes on with step 2: no step runs twice and the model is asked only for the answer', async () => {
		const { send, lookup, options } = setUp();
		const store = new MemoryCheckpoints();
		server().setScript([PLAN, final('never reached')]);
		// Writes: the planning step done; plan step 1 started, done — then the process dies.
		const died = await rejectionOf(runAgent(options(dyingStore(store, 3))));
		expect(died).toBeInstanceOf(ProcessKilled);
		expect(send.runs).toEqual([{ value: 1 }]);

		server().setScript([final('All sent.')]);
		const result = await runAgent(options(store));
		expect(result.finish_reason).toBe('final');
		expect(send.runs).toEqual([{ value: 1 }, { value: 2 }]);
		expect(lookup.runs).toEqual([{ value: 2 }]);
		expect(server().requests).toHaveLength(2);
		expect(result.plan?.steps.map((step) => step.status)).toEqual(['done', 'done', 'done']);
		expect(result.trace.map((step) => step.plan_steps ?? null)).toEqual([
			null,
			[1],
			[2],
			[3],
			null,
		]);
	});

	it('killed while a step with side effects ran and before its end was recorded, it is not run again: interrupted_call', async () => {
		const { send, options } = setUp();
		const store = new MemoryCheckpoints();
		server().setScript([PLAN]);
		// Writes: the planning step done; plan step 1 started; killed instead of writing its end.
		await rejectionOf(runAgent(options(dyingStore(store, 2, 'instead'))));
		expect(send.runs).toEqual([{ value: 1 }]);

		server().setScript([]);
		const result = await runAgent(options(store));
		expect(result.finish_reason).toBe('interrupted_call');
		expect(result.stop_detail).toContain(
			'the send_message call of step 2 started before the run was interrupted',
		);
		expect(send.runs).toEqual([{ value: 1 }]);
		expect(server().requests).toHaveLength(1);
	});
});
