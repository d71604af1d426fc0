// Sub-agents through the library (issue #52): a named agent in the config, and agentTool(), each a run of its own
// under the parent's call, inside the parent's budget, its answer the parent's observation.
import { runAgent } from '../../../src/agent/run-agent';
import { agentTool } from '../../../src/agent/subagent';
import { configureRun } from '../../../src/agent/setup/configure-run';
import { ConfigError } from '../../../src/core/config-error';
import type { AgentConfig } from '../../../src/settings/config';
import type { TraceStep } from '../../../src/trace/types';
import type { AgentEvent } from '../../../src/agent/base/events';
import { action, final, lastUserMessage, modelFor, useScriptedServer } from '../../support/agent';
import { countingTool } from '../../support/durable';
import { MemoryBudgetLedger } from '../../../src/budget/ledger';
import { rejectionOf } from '../../support/rejection';

const task = (text: string) => action('researcher', { task: text });
const totalOf = (steps: readonly TraceStep[]) =>
	steps.reduce((sum, step) => sum + (step.usage?.total_tokens ?? 0), 0);

describe('a sub-agent named in the config (runAgent)', () => {
	const server = useScriptedServer();
	// The timeout scenario's own model: a request it abandons mid-run must not take a later scenario's script turn.
	const slowServer = useScriptedServer();

	const config = (extra: Partial<AgentConfig> = {}, child: Record<string, unknown> = {}) => ({
		model: 'gpt-4o-mini',
		allowed_tools: ['researcher'],
		agents: {
			researcher: {
				description: 'Looks things up',
				system: 'You research.',
				config: { allowed_tools: ['lookup'], ...child },
			},
		},
		...extra,
	});

	it("answers through the parent: its own loop and tools, its answer the parent's observation, its steps under the call", async () => {
		const lookup = countingTool('lookup', false);
		server().setScript([
			task('find the value'),
			action('lookup', { value: 7 }),
			final('the value is 7'),
			final('Researcher says 7.'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools: [lookup.tool],
			prompt: 'what is the value?',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe('Researcher says 7.');
		expect(lookup.runs).toEqual([{ value: 7 }]);
		// The child saw only its task and its own instructions; the parent saw its answer as an observation.
		const childFirst = server().requests[1].messages;
		expect(childFirst.at(-1)).toMatchObject({ role: 'user', content: 'find the value' });
		expect(childFirst[0].content).toContain('You research.');
		expect(childFirst[0].content).toContain('- lookup:');
		expect(lastUserMessage(server(), 3)).toContain('the value is 7');
		const sub = result.trace[0].sub_run!;
		expect(sub).toMatchObject({ agent: 'researcher', finish_reason: 'final', depth: 1 });
		expect(sub.steps.map((step) => step.action?.tool ?? step.final?.answer)).toEqual([
			'lookup',
			'the value is 7',
		]);
		// One budget: the parent's usage and cost hold the child's, exactly.
		expect(sub.usage.total_tokens).toBe(totalOf(sub.steps));
		expect(result.usage.total_tokens).toBe(totalOf(result.trace) + sub.usage.total_tokens);
		expect(sub.cost).toBeGreaterThan(0);
		const ownCost = result.trace.reduce((sum, step) => sum + (step.cost?.total ?? 0), 0);
		expect(result.cost).toBeCloseTo(ownCost + sub.cost!, 6);
		// The child's tool call counts in the parent's; the sub-agent call itself too.
		expect(result.used_tools.researcher.count).toBe(1);
	});

	it("counts the sub-agent's model calls in the parent's shared budget scope, and stops it when the scope is spent", async () => {
		const lookup = countingTool('lookup', false);
		const usage = { prompt_tokens: 80, completion_tokens: 20 };
		const ledger = new MemoryBudgetLedger();
		const shared = { scope: 'team-sub', tokens: 300, period_seconds: 3600 };
		server().setScript([
			{ text: task('look twice'), usage },
			{ text: action('lookup', { value: 1 }), usage },
			{ text: action('lookup', { value: 2 }), usage },
			{ text: final('never reached'), usage },
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ shared_budget: shared }),
			extraTools: [lookup.tool],
			budgetLedger: ledger,
			prompt: 'look',
		});
		// 100 tokens for the parent's call, 200 for the child's two: the scope's 300 are spent before a fourth call.
		expect(server().requests).toHaveLength(3);
		expect(result.trace[0].sub_run).toMatchObject({ finish_reason: 'budget_exhausted' });
		expect(result.finish_reason).toBe('budget_exhausted');
		const totals = await ledger.totals('team-sub', 3600);
		expect(totals.tokens).toBe(300);
		expect(totals.cost).toBeCloseTo(result.cost!, 9);
		expect(result.usage.total_tokens).toBe(300);
	});

	it("tells the parent's listener of the sub-agent's calls by their path at the parent's step, and nothing else of its run", async () => {
		const lookup = countingTool('lookup', false);
		const events: AgentEvent[] = [];
		server().setScript([
			task('find the value'),
			action('lookup', { value: 7 }),
			final('the value is 7'),
			final('Researcher says 7.'),
		]);
		await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools: [lookup.tool],
			prompt: 'what is the value?',
			onEvent: (event) => events.push(event),
		});
		const calls = events
			.filter((event) => event.type === 'action' || event.type === 'observation')
			.map(
				(event) =>
					`${event.type} ${'tool' in event ? event.tool : ''} @${'step' in event ? event.step : ''}`,
			);
		expect(calls).toEqual([
			'action researcher @1',
			'action researcher › lookup @1',
			'observation researcher › lookup @1',
			'observation researcher @1',
		]);
		// One run's ending and one answer: the sub-agent's own stay inside.
		expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
		const answer = events.flatMap((event) => (event.type === 'answer_delta' ? [event.text] : []));
		expect(answer.join('')).toBe('Researcher says 7.');
	});

	it("a sub-agent on a model without a price makes the run's cost null, and the notice names it", async () => {
		const lookup = countingTool('lookup', false);
		server().setScript([task('look'), final('nothing to look at'), final('ok')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config({}, { model: 'house-model-without-price' }),
			extraTools: [lookup.tool],
			prompt: 'go',
		});
		expect(result.trace[0].sub_run?.cost).toBeNull();
		expect(result.cost).toBeNull();
		expect(result.cost_notice).toMatch(/^the sub-agent researcher ran a model without a price/);
		expect(result.cost_notice).toContain('house-model-without-price');
	});

	it("a secret the parent knows never leaves through the sub-agent's steps or answer", async () => {
		const SECRET = 'sk-sub-agent-secret-abcdef0123456789';
		const leaky = {
			...countingTool('lookup', false).tool,
			async execute() {
				return { token: SECRET };
			},
		};
		server().setScript([
			task('leak'),
			action('lookup', { value: 1 }),
			final(`the token is ${SECRET}`),
			final('ok'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools: [leaky],
			prompt: 'go',
			secrets: [SECRET],
		});
		expect(JSON.stringify(result)).not.toContain(SECRET);
		expect(result.trace[0].observation).toContain('[REDACTED');
	});

	it("the parent's timeout stops the sub-agent's running tool through its signal", async () => {
		const stopped: string[] = [];
		const hanging = {
			...countingTool('lookup', false).tool,
			execute: (_args: unknown, context: { signal: AbortSignal }) =>
				new Promise((_, reject) =>
					context.signal.addEventListener('abort', () => {
						stopped.push("the sub-agent's tool saw its signal abort");
						reject(new Error('aborted'));
					}),
				),
		};
		slowServer().setScript([task('wait'), action('lookup', { value: 1 }), final('late')]);
		const timed = await runAgent({
			model: modelFor(slowServer()),
			config: config({ timeout: 3 }, { single_call_timeout: 60 }),
			extraTools: [hanging],
			prompt: 'go',
		});
		expect(timed.finish_reason).toBe('timeout');
		// Stopped by the parent's signal, not by a clock of its own (single_call_timeout is 60 s): no bound on time here.
		expect(stopped).toEqual(["the sub-agent's tool saw its signal abort"]);
	});

	it("stops at the parent's remaining tool calls: the child ends max_tool_calls and the parent is told it did not answer", async () => {
		const lookup = countingTool('lookup', false);
		server().setScript([
			task('look twice'),
			action('lookup', { value: 1 }),
			action('lookup', { value: 2 }),
			final('gave up'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ max_tool_calls: 2 }),
			extraTools: [lookup.tool],
			prompt: 'go',
		});
		expect(lookup.runs).toEqual([{ value: 1 }]);
		expect(result.trace[0].sub_run?.finish_reason).toBe('max_tool_calls');
		expect(result.trace[0].error?.message).toMatch(
			/^researcher did not answer \(finish_reason max_tool_calls\)/,
		);
	});

	it("stops at the parent's remaining token budget: the child gets what is left, and none once it is used up", async () => {
		const lookup = countingTool('lookup', false);
		server().setScript([task('look'), action('lookup', { value: 1 }), final('late'), final('p')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ total_token_budget: 1 }),
			extraTools: [lookup.tool],
			prompt: 'go',
		});
		// The parent's first call used the budget up: the sub-agent is not started.
		expect(result.trace[0].error?.message).toContain(
			"researcher was not run: the run's total_token_budget (1) is used up",
		);
		expect(lookup.runs).toEqual([]);
	});

	it('a sub-agent that calls itself stops at max_agent_depth with an observation that says so, never a hang', async () => {
		server().setScript([
			task('level 1'),
			task('level 2'),
			task('level 3'),
			final('level 2 answers'),
			final('level 1 answers'),
			final('top answers'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ max_agent_depth: 2 }, { allowed_tools: ['researcher'] }),
			prompt: 'go deep',
		});
		expect(result.final_answer).toBe('top answers');
		const level1 = result.trace[0].sub_run!;
		const level2 = level1.steps[0].sub_run!;
		expect([level1.depth, level2.depth]).toEqual([1, 2]);
		expect(level2.steps[0].error?.message).toBe(
			'researcher was not run: it would run 3 levels below the run that started it, past max_agent_depth (2)',
		);
		expect(server().requests).toHaveLength(6);
	});

	it("is checked with the parent's config, naming the agent's key; a name that is already a tool's is refused", async () => {
		const bad = await rejectionOf(
			runAgent({
				model: modelFor(server()),
				config: config({}, { max_steps: 0 }),
				extraTools: [countingTool('lookup', false).tool],
				prompt: 'go',
			}),
		);
		expect(bad).toBeInstanceOf(ConfigError);
		expect(bad.field).toBe('agents.researcher.config.max_steps');
		const clash = await rejectionOf(
			runAgent({
				model: modelFor(server()),
				config: { model: 'm', agents: { http_request: { description: 'x' } } },
				prompt: 'go',
			}),
		);
		expect(clash.field).toBe('agents.http_request');
		expect(server().requests).toHaveLength(0);
	});

	it('counts as read-only only when every tool it may call is', () => {
		const { tool: send } = countingTool('send_message');
		const { tool: lookup } = countingTool('lookup', false);
		const { allowed } = configureRun({
			config: {
				model: 'm',
				allowed_tools: ['reader', 'writer'],
				agents: {
					reader: { description: 'reads', config: { allowed_tools: ['lookup'] } },
					writer: { description: 'writes', config: { allowed_tools: ['lookup', 'send_message'] } },
				},
			},
			extraTools: [send, lookup],
		});
		expect(allowed.get('reader')?.sideEffects).toBe(false);
		expect(allowed.get('writer')?.sideEffects).toBe(true);
	});
});

describe('agentTool() from the library', () => {
	const server = useScriptedServer();

	it("runs with its own tools, unknown to the parent, and only when the parent's allowed_tools names it", async () => {
		const probe = countingTool('probe', false);
		const helper = agentTool({
			name: 'helper',
			description: 'Probes things',
			config: { allowed_tools: ['probe'] },
			tools: [probe.tool],
		});
		server().setScript([
			action('helper', { task: 'probe 3' }),
			action('probe', { value: 3 }),
			final('probed 3'),
			final('done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['helper'] },
			extraTools: [helper],
			prompt: 'go',
		});
		expect(result.finish_reason).toBe('final');
		expect(probe.runs).toEqual([{ value: 3 }]);
		expect(result.trace[0].observation).toContain('probed 3');
		// Not allowed: the parent's model cannot call it.
		server().setScript([action('helper', { task: 'x' }), final('refused')]);
		const refused = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: [] },
			extraTools: [helper],
			prompt: 'go',
		});
		expect(refused.trace[0].error?.type).toBe('tool_not_allowed');
		expect(probe.runs).toHaveLength(1);
	});
});
