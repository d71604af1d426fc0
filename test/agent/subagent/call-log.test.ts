// A sub-agent's per-call log (agentTool({ onCall }), issue #52): told of each call as it starts and ends, never in its way.
import { runAgent } from '../../../src/agent/run-agent';
import { agentTool } from '../../../src/agent/subagent';
import { action, final, modelFor, useScriptedServer } from '../../support/agent';
import { countingTool } from '../../support/durable';

describe("a sub-agent's call log (onCall)", () => {
	const server = useScriptedServer();

	/** The researcher, its log of calls as [event, value] pairs, and a lookup tool it may call. */
	function researcher(
		config: Record<string, unknown> = {},
		onCall?: Parameters<typeof agentTool>[0]['onCall'],
	) {
		const log: unknown[][] = [];
		const lookup = countingTool('lookup', false);
		const tool = agentTool({
			name: 'researcher',
			description: 'Looks things up',
			config: { allowed_tools: ['lookup'], ...config },
			tools: [lookup.tool],
			onCall:
				onCall ??
				((task) => {
					log.push(['start', task]);
					return { end: (ending) => log.push(['end', ending]) };
				}),
		});
		return { tool, log, lookup };
	}

	const parent = (tool: ReturnType<typeof agentTool>, extra: Record<string, unknown> = {}) =>
		runAgent({
			model: modelFor(server()),
			config: { model: 'gpt-4o-mini', allowed_tools: ['researcher'], ...extra },
			extraTools: [tool],
			prompt: 'what are the values?',
		});

	it('tells each call as it starts (the task) and ends (what the parent reads), one start and one end per call', async () => {
		const { tool, log } = researcher();
		server().setScript([
			action('researcher', { task: 'find a' }),
			final('a is 1'),
			action('researcher', { task: 'find b' }),
			final('b is 2'),
			final('1 and 2'),
		]);
		const result = await parent(tool);
		expect(result.final_answer).toBe('1 and 2');
		expect(log).toEqual([
			['start', 'find a'],
			['end', { response: 'a is 1' }],
			['start', 'find b'],
			['end', { response: 'b is 2' }],
		]);
	});

	it("ends a call that did not answer with the parent's error, and a call that waits for a person with that it waits", async () => {
		const stopped = researcher({ max_tool_calls: 1 });
		server().setScript([
			action('researcher', { task: 'look twice' }),
			action('lookup', { value: 1 }),
			action('lookup', { value: 2 }),
			final('It could not.'),
		]);
		await parent(stopped.tool);
		expect(stopped.log[1]).toEqual([
			'end',
			{
				error: expect.stringMatching(/^researcher did not answer \(finish_reason max_tool_calls\)/),
			},
		]);

		const waiting = researcher({ approval_required: ['lookup'] });
		server().setScript([action('researcher', { task: 'look' }), action('lookup', { value: 1 })]);
		const paused = await runAgent({
			model: modelFor(server()),
			config: { model: 'gpt-4o-mini', allowed_tools: ['researcher'] },
			extraTools: [waiting.tool],
			prompt: 'look',
			stateSecret: 'call-log-secret-0123456789abcdef0123456789',
		});
		expect(paused.finish_reason).toBe('awaiting_approval');
		expect(waiting.lookup.runs).toEqual([]);
		expect(waiting.log).toEqual([
			['start', 'look'],
			['end', { response: "researcher waits for a person's approval" }],
		]);
	});

	it('leaves the call as it is when the log throws', async () => {
		const { tool } = researcher({}, () => {
			throw new Error('log down');
		});
		server().setScript([action('researcher', { task: 'find a' }), final('a is 1'), final('1')]);
		const result = await parent(tool);
		expect(result.trace[0].observation).toBe('a is 1');
		expect(result.final_answer).toBe('1');
	});
});
