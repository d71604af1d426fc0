import { runAgent } from '../../src/agent/run-agent';
import { action, final, modelFor, probeTool, useScriptedServer } from '../support/agent';

/** Issue #19 (design §12): every output carries per-tool figures and the run's own. */
describe('run metrics in every output', () => {
	const server = useScriptedServer();

	it('counts each tool’s runs, time and failures, and the run’s model calls, repairs and failure rate', async () => {
		let attempts = 0;
		const { tool } = probeTool('lookup', async () => {
			if (++attempts === 1) throw new Error('busy');
			return 'found';
		});
		server().setScript([
			action('lookup', { value: 1 }),
			action('lookup', { value: 2 }),
			final('done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['lookup'] },
			extraTools: [tool],
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.used_tools.lookup).toEqual({
			count: 2,
			total_ms: expect.any(Number),
			avg_ms: Math.round(result.used_tools.lookup.total_ms / 2),
			failures: 1,
		});
		expect(result.metrics).toEqual({
			model_calls: 3,
			repairs: 1,
			failed_steps: 1,
			failure_rate: 0.333,
		});
	});

	it('counts a refused call as a failed step, not as a run of the tool', async () => {
		server().setScript([action('not_a_tool', {}), final('ok')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm' },
			prompt: 'q',
		});
		expect(result.used_tools).toEqual({});
		expect(result.metrics).toEqual({
			model_calls: 2,
			repairs: 1,
			failed_steps: 1,
			failure_rate: 0.5,
		});
	});

	it('reports zeros for a run that made no step', async () => {
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', max_steps: 1, total_token_budget: 1 },
			prompt: 'q',
			signal: AbortSignal.abort(),
		});
		expect(result.metrics).toEqual({
			model_calls: 0,
			repairs: 0,
			failed_steps: 0,
			failure_rate: 0,
		});
	});
});
