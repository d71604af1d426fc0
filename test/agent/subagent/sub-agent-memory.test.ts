// A sub-agent's own conversation (issue #52, library side): what it loads before a call and saves after, once per
// call, in order; a memory that fails never costs the parent its budget nor leaves a session held. Without one, each
// call starts fresh.
import { resumeAgent } from '../../../src/agent/resume';
import { runAgent } from '../../../src/agent/run-agent';
import { agentTool, type SubAgentMemory } from '../../../src/agent/subagent';
import type { ChatMessage } from '../../../src/core/messages';
import { action, final, modelFor, useScriptedServer } from '../../support/agent';
import { countingTool } from '../../support/durable';

const SECRET = 'sub-agent-memory-secret-0123456789';
const actions = (...calls: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'actions', calls: calls.map(([tool, args]) => ({ tool, args })) });

/** A memory that keeps every saved turn and writes down each load and save with what it got. */
function keptMemory(overrides: Partial<SubAgentMemory> = {}) {
	const kept: ChatMessage[] = [];
	const log: string[] = [];
	const endings: Array<Record<string, unknown>> = [];
	const memory: SubAgentMemory = {
		async load(task) {
			log.push(`load ${task}`);
			return [...kept];
		},
		async save(turns, ending) {
			log.push(`save ${turns[0]?.content}`);
			endings.push(ending);
			kept.push(...turns);
		},
		...overrides,
	};
	return { memory, kept, log, endings };
}

describe("a sub-agent's own conversation (agentTool memory)", () => {
	const server = useScriptedServer();
	const lookup = countingTool('lookup', false);

	const run = (memory: SubAgentMemory, prompt = 'go', extra: Record<string, unknown> = {}) =>
		runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['helper'] },
			extraTools: [
				agentTool({
					name: 'helper',
					description: 'Remembers',
					config: { allowed_tools: ['lookup'] },
					tools: [lookup.tool],
					memory,
				}),
			],
			prompt,
			...extra,
		});

	it("keeps a conversation of its own: the second call starts from the first one's turns, each load given the task", async () => {
		const { memory, kept, log, endings } = keptMemory();
		server().setScript([
			action('helper', { task: 'remember 42' }),
			final('noted 42'),
			final('ok'),
			action('helper', { task: 'what did I ask you to remember?' }),
			final('42'),
			final('It was 42.'),
		]);
		await run(memory, 'first');
		expect(kept.map((turn) => turn.content)).toEqual(['remember 42', 'noted 42']);
		const second = await run(memory, 'second');
		expect(second.final_answer).toBe('It was 42.');
		// The sub-agent's second call carried its first call's turns, then the new task.
		const childCall = server()
			.requests[4].messages.slice(1)
			.map((message) => message.content);
		expect(childCall).toEqual([
			'remember 42',
			expect.stringContaining('noted 42'),
			'what did I ask you to remember?',
		]);
		expect(log).toEqual([
			'load remember 42',
			'save remember 42',
			'load what did I ask you to remember?',
			'save what did I ask you to remember?',
		]);
		expect(endings[1]).toMatchObject({ result: { finish_reason: 'final', final_answer: '42' } });
	});

	it('runs its calls one at a time in a batch, though its tools only read: the second call loads what the first saved', async () => {
		const { memory, log } = keptMemory();
		server().setScript([
			actions(['helper', { task: 'note a' }], ['helper', { task: 'note b' }]),
			final('noted a'),
			final('noted b'),
			final('both noted'),
		]);
		const result = await run(memory);
		expect(result.finish_reason).toBe('final');
		expect(log).toEqual(['load note a', 'save note a', 'load note b', 'save note b']);
		// The second call's model request held the first call's turns.
		expect(JSON.stringify(server().requests[2].messages)).toContain('noted a');
	});

	it('a memory that cannot load fails the call, names why and calls no model; the parent goes on', async () => {
		const { memory, log } = keptMemory({
			load: async () => {
				throw new Error('the store at 127.0.0.1:1 refused the connection');
			},
		});
		server().setScript([action('helper', { task: 'note a' }), final('The helper is down.')]);
		const result = await run(memory);
		expect(result.finish_reason).toBe('final');
		expect(result.trace[0].error?.message).toContain(
			'helper could not run: the store at 127.0.0.1:1 refused the connection',
		);
		expect(server().requests).toHaveLength(2);
		expect(log).toEqual([]);
	});

	it('a history the run refuses fails the call and is saved once with the error, so a held session is let go', async () => {
		const { memory, log, endings } = keptMemory({
			load: async (task) => {
				log.push(`load ${task}`);
				return [{ role: 'wizard', content: 'obey' } as unknown as ChatMessage];
			},
		});
		server().setScript([action('helper', { task: 'note a' }), final('It failed.')]);
		const result = await run(memory);
		expect(result.trace[0].error?.message).toContain('helper could not run');
		expect(log).toEqual(['load note a', 'save note a']);
		expect(endings).toEqual([{ error: expect.any(Error) }]);
	});

	it("a turn that cannot be saved fails the call naming the memory, and the sub-agent's tokens still count for the parent", async () => {
		const { memory } = keptMemory({
			save: async () => {
				throw new Error('the store is read-only');
			},
		});
		server().setScript([action('helper', { task: 'note a' }), final('noted a'), final('Saved?')]);
		const result = await run(memory);
		const step = result.trace[0];
		expect(step.error?.message).toContain(
			"helper ran, but its memory could not save this call's turn: the store is read-only",
		);
		expect(step.sub_run).toMatchObject({ agent: 'helper', finish_reason: 'final' });
		const own = result.trace.reduce((sum, each) => sum + (each.usage?.total_tokens ?? 0), 0);
		expect(result.usage.total_tokens).toBe(own + step.sub_run!.usage.total_tokens);
	});

	it('saves nothing while it waits for a person, then once when the resumed call ends', async () => {
		const send = countingTool('send_message');
		const { memory, log } = keptMemory();
		const sender = agentTool({
			name: 'sender',
			description: 'Sends',
			config: { allowed_tools: ['send_message'], approval_required: ['send_message'] },
			tools: [send.tool],
			memory,
		});
		const options = {
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['sender'] },
			extraTools: [sender],
			stateSecret: SECRET,
		};
		server().setScript([
			action('sender', { task: 'send 5' }),
			action('send_message', { value: 5 }),
		]);
		const paused = await runAgent({ ...options, prompt: 'send it' });
		expect(paused.finish_reason).toBe('awaiting_approval');
		expect(log).toEqual(['load send 5']);

		server().setScript([final('sent 5'), final('Sent.')]);
		const done = await resumeAgent({
			...options,
			runState: paused.run_state,
			decision: { approve: true },
		});
		expect(done.finish_reason).toBe('final');
		expect(send.runs).toEqual([{ value: 5 }]);
		expect(log).toEqual(['load send 5', 'save send 5']);
	});

	it("never keeps the run's secrets: the turns it saves hold them redacted", async () => {
		const secret = 'sk-live-4f9a8b7c6d5e4f3a2b1c';
		const { memory, kept } = keptMemory();
		server().setScript([
			action('helper', { task: `store the key ${secret}` }),
			final(`stored ${secret}`),
			final('Done.'),
		]);
		await run(memory, 'go', { secrets: [secret] });
		expect(kept.map((turn) => turn.content).join(' ')).not.toContain(secret);
		expect(kept[1].content).toContain('[REDACTED]');
	});
});

describe('a sub-agent without memory starts fresh on each call', () => {
	const server = useScriptedServer();
	const lookup = countingTool('lookup', false);
	/** What a sub-agent's model request held after its instructions: its task alone, if it started fresh. */
	const turnsOf = (request: number) =>
		server()
			.requests[request].messages.slice(1)
			.map((message) => message.content);

	it('named in the config: its second call in one parent run holds no turn of its first', async () => {
		server().setScript([
			action('researcher', { task: 'remember 42' }),
			final('noted 42'),
			action('researcher', { task: 'what did I ask you to remember?' }),
			final('I was asked nothing before'),
			final('It does not remember.'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['researcher'],
				agents: {
					researcher: { description: 'Looks up', config: { allowed_tools: ['lookup'] } },
				},
			},
			extraTools: [lookup.tool],
			prompt: 'go',
		});
		expect(result.final_answer).toBe('It does not remember.');
		expect(turnsOf(1)).toEqual(['remember 42']);
		expect(turnsOf(3)).toEqual(['what did I ask you to remember?']);
	});

	it("agentTool() without memory: a second parent run's call holds no turn of the first run's", async () => {
		const helper = agentTool({
			name: 'helper',
			description: 'Forgets',
			config: { allowed_tools: ['lookup'] },
			tools: [lookup.tool],
		});
		const run = () =>
			runAgent({
				model: modelFor(server()),
				config: { model: 'm', allowed_tools: ['helper'] },
				extraTools: [helper],
				prompt: 'go',
			});
		server().setScript([action('helper', { task: 'remember 42' }), final('noted 42'), final('ok')]);
		await run();
		server().setScript([
			action('helper', { task: 'what did I ask you to remember?' }),
			final('nothing'),
			final('ok'),
		]);
		await run();
		expect(turnsOf(1)).toEqual(['remember 42']);
		expect(turnsOf(4)).toEqual(['what did I ask you to remember?']);
	});
});
