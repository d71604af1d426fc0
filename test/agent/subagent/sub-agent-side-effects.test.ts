// A sub-agent with side effects (issue #52): a batch runs it alone, after the reads before it; a durable run killed
// while it ran never starts it again.
import { runAgent } from '../../../src/agent/run-agent';
import type { RunAgentOptions } from '../../../src/agent/base/run-options';
import { MemoryCheckpoints, type CheckpointStore } from '../../../src/run-state/checkpoint-store';
import { action, final, modelFor, useScriptedServer } from '../../support/agent';
import { countingTool, dyingStore } from '../../support/durable';
import { rejectionOf } from '../../support/rejection';

const SECRET = 'sub-agent-side-effects-secret-0123456789';
const actions = (...calls: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'actions', calls: calls.map(([tool, args]) => ({ tool, args })) });

describe('a sub-agent whose tools change things', () => {
	const server = useScriptedServer();
	let runs = 0;

	const setUp = () => {
		const send = countingTool('send_message');
		const lookup = countingTool('lookup', false);
		const config = {
			model: 'm',
			allowed_tools: ['lookup', 'sender'],
			agents: {
				sender: { description: 'Sends messages', config: { allowed_tools: ['send_message'] } },
			},
		};
		return { send, lookup, config, extraTools: [send.tool, lookup.tool] };
	};

	it('runs alone in a batch: the reads before it have ended when it starts', async () => {
		const { send, lookup, config } = setUp();
		const order: string[] = [];
		const slowLookup = {
			...lookup.tool,
			async execute(args: { value: number }) {
				await new Promise((resolve) => setTimeout(resolve, 30));
				order.push(`lookup ${args.value} ended`);
				return { value: args.value };
			},
		};
		const recordingSend = {
			...send.tool,
			async execute(args: { value: number }) {
				order.push(`send ${args.value}`);
				return { sent: args.value };
			},
		};
		server().setScript([
			actions(['lookup', { value: 1 }], ['lookup', { value: 2 }], ['sender', { task: 'send 3' }]),
			action('send_message', { value: 3 }),
			final('sent 3'),
			final('done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config,
			extraTools: [slowLookup, recordingSend],
			prompt: 'look, then send',
		});
		expect(result.finish_reason).toBe('final');
		expect(order).toEqual(['lookup 1 ended', 'lookup 2 ended', 'send 3']);
		expect(result.trace[0].calls?.[2].sub_run?.agent).toBe('sender');
	});

	it('in a durable run killed while it ran, it is not started again: interrupted_call', async () => {
		const { send, config, extraTools } = setUp();
		const runKey = `sub-agent-durable-${process.pid}-${++runs}`;
		const options = (checkpoints: CheckpointStore): RunAgentOptions => ({
			model: modelFor(server()),
			config,
			extraTools,
			prompt: 'send it',
			stateSecret: SECRET,
			runKey,
			checkpoints,
		});
		const store = new MemoryCheckpoints();
		server().setScript([
			action('sender', { task: 'send 5' }),
			action('send_message', { value: 5 }),
			final('sent'),
		]);
		// Writes: the sub-agent's call sealed as started; killed instead of writing its end.
		await rejectionOf(runAgent(options(dyingStore(store, 1, 'instead'))));
		expect(send.runs).toEqual([{ value: 5 }]);

		server().setScript([]);
		const result = await runAgent(options(store));
		expect(result.finish_reason).toBe('interrupted_call');
		expect(result.stop_detail).toContain(
			'the sender call of step 1 started before the run was interrupted',
		);
		expect(send.runs).toEqual([{ value: 5 }]);
	});
});
