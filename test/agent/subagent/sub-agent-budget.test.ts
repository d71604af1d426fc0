// One budget (issue #52): a sub-agent whose own token or cost limit is larger than what its parent has left runs on
// what is left, stops there with its own finish reason, and the parent's usage and cost hold it exactly.
import { runAgent } from '../../../src/agent/run-agent';
import type { AgentConfig } from '../../../src/settings/config';
import type { TraceStep } from '../../../src/trace/types';
import { action, final, modelFor, useScriptedServer } from '../../support/agent';
import { countingTool } from '../../support/durable';

const totalOf = (steps: readonly TraceStep[]) =>
	steps.reduce((sum, step) => sum + (step.usage?.total_tokens ?? 0), 0);
const costOf = (steps: readonly TraceStep[]) =>
	steps.reduce((sum, step) => sum + (step.cost?.total ?? 0), 0);

describe("a sub-agent's limits narrowed to what the parent has left (runAgent)", () => {
	const server = useScriptedServer();

	const config = (parent: Partial<AgentConfig>, child: Record<string, unknown>) => ({
		model: 'gpt-4o-mini',
		allowed_tools: ['researcher'],
		agents: {
			researcher: {
				description: 'Looks things up',
				config: { allowed_tools: ['lookup'], ...child },
			},
		},
		...parent,
	});
	/** The parent hands over the task, then the child looks up again and again; every call costs `usage`. */
	const script = (usage: { prompt_tokens: number; completion_tokens: number }) =>
		server().setScript(
			[
				action('researcher', { task: 'look it up' }),
				action('lookup', { value: 1 }),
				action('lookup', { value: 2 }),
				action('lookup', { value: 3 }),
				final('the child answered: its own larger limit was used'),
				final('the parent answered'),
			].map((text) => ({ text, usage })),
		);

	it("tokens: a child with a larger total_token_budget gets the parent's remainder, stops there, and the parent's usage adds up", async () => {
		const lookup = countingTool('lookup', false);
		// 300 tokens a call: the parent's first leaves 700 of its 1,000; the child's own 5,000 is larger.
		script({ prompt_tokens: 200, completion_tokens: 100 });
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ total_token_budget: 1000 }, { total_token_budget: 5000 }),
			extraTools: [lookup.tool],
			prompt: 'go',
		});
		const sub = result.trace[0].sub_run!;
		// 300, 600, 900: the third call reaches the 700 left, and the child stops before a fourth.
		expect(sub).toMatchObject({
			finish_reason: 'token_budget',
			stop_detail: 'token usage 900 reached total_token_budget 700',
		});
		expect(lookup.runs).toEqual([{ value: 1 }, { value: 2 }, { value: 3 }]);
		expect(result.trace[0].error?.message).toBe(
			'researcher did not answer (finish_reason token_budget): token usage 900 reached total_token_budget 700',
		);
		// One budget: the parent's 300 and the child's 900, exactly; the parent then stops too, with nothing left.
		expect(sub.usage.total_tokens).toBe(totalOf(sub.steps));
		expect(sub.usage.total_tokens).toBe(900);
		expect(result.usage.total_tokens).toBe(totalOf(result.trace) + sub.usage.total_tokens);
		expect(result.usage.total_tokens).toBe(1200);
		expect(result.finish_reason).toBe('token_budget');
		expect(result.stop_detail).toBe('token usage 1200 reached total_token_budget 1000');
		expect(server().requests).toHaveLength(4);
	});

	it("cost: a child with a larger max_cost gets what the parent has left to spend, stops there, and the parent's cost adds up", async () => {
		const lookup = countingTool('lookup', false);
		// 125 input tokens at 1,000 USD per million: 0.125 USD a call. The parent's first leaves 0.375 of its 0.5.
		const prices = { 'gpt-4o-mini': { input_per_million: 1000, output_per_million: 0 } };
		script({ prompt_tokens: 125, completion_tokens: 10 });
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ max_cost: 0.5, prices }, { max_cost: 10 }),
			extraTools: [lookup.tool],
			prompt: 'go',
		});
		const sub = result.trace[0].sub_run!;
		expect(sub).toMatchObject({
			finish_reason: 'cost_limit',
			stop_detail: "the run's cost 0.375 USD reached max_cost 0.375 USD",
		});
		expect(lookup.runs).toHaveLength(3);
		expect(sub.cost).toBeCloseTo(0.375, 9);
		expect(sub.cost).toBeCloseTo(costOf(sub.steps), 9);
		// One budget: the parent's own call and the child's three; then the parent stops at its own max_cost.
		expect(result.cost).toBeCloseTo(costOf(result.trace) + sub.cost!, 9);
		expect(result.cost).toBeCloseTo(0.5, 9);
		expect(result.finish_reason).toBe('cost_limit');
		expect(result.stop_detail).toBe("the run's cost 0.5 USD reached max_cost 0.5 USD");
		expect(server().requests).toHaveLength(4);
	});

	it('cost: what the parent has left is named to the millionth, as costs are, not as the float subtraction leaves it', async () => {
		const lookup = countingTool('lookup', false);
		// 20 input tokens at 1,000 USD per million: 0.02 USD a call. 0.05 - 0.02 is 0.030000000000000002 in floats.
		const prices = { 'gpt-4o-mini': { input_per_million: 1000, output_per_million: 0 } };
		script({ prompt_tokens: 20, completion_tokens: 0 });
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ max_cost: 0.05, prices }, {}),
			extraTools: [lookup.tool],
			prompt: 'go',
		});
		expect(result.trace[0].sub_run).toMatchObject({
			finish_reason: 'cost_limit',
			stop_detail: "the run's cost 0.04 USD reached max_cost 0.03 USD",
		});
		// Two child calls (0.04 USD), each an action whose lookup ran; the third is not made.
		expect(lookup.runs).toHaveLength(2);
	});

	it("a child with no token limit of its own (0) gets the parent's remainder too", async () => {
		const lookup = countingTool('lookup', false);
		script({ prompt_tokens: 200, completion_tokens: 100 });
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ total_token_budget: 1000 }, {}),
			extraTools: [lookup.tool],
			prompt: 'go',
		});
		expect(result.trace[0].sub_run?.stop_detail).toBe(
			'token usage 900 reached total_token_budget 700',
		);
	});
});
