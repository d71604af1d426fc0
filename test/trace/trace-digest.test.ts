import { configureRun } from '../../src/agent/setup/configure-run';
import { runAgent } from '../../src/agent/run-agent';
import { builtInTools } from '../../src/tools/registry';
import { chainBase, configHash, schemaHash, traceChain, traceDigest } from '../../src/trace/digest';
import { action, final, modelFor, useScriptedServer } from '../support/agent';

/** Issue #19 (first part): every output's trace_digest, the head of a hash chain anyone can recompute. */
describe('trace_digest', () => {
	const server = useScriptedServer();
	const config = { model: 'm', allowed_tools: ['json_transform'] };

	async function run() {
		server().setScript([
			action('json_transform', { data: [1, 2, 3], expression: 'length(@)' }),
			final('three'),
		]);
		const result = await runAgent({ model: modelFor(server()), config, prompt: 'count' });
		const { config: resolved, allowed } = configureRun({ config });
		return {
			result,
			base: chainBase(configHash(resolved as unknown as Record<string, unknown>), allowed.values()),
		};
	}

	it('is recomputed from the config, the tools and the output’s trace', async () => {
		const { result, base } = await run();
		expect(result.trace_digest).toMatch(/^[0-9a-f]{64}$/);
		expect(traceDigest(base, result.trace)).toBe(result.trace_digest);
	});

	it('changes with any step, and the chain names the first step that differs', async () => {
		const { result, base } = await run();
		const altered = structuredClone(result.trace);
		altered[0].observation = '4';
		expect(traceDigest(base, altered)).not.toBe(result.trace_digest);
		const original = traceChain(base, result.trace);
		const changed = traceChain(base, altered);
		const firstDiffering = changed.findIndex((link, index) => link !== original[index]);
		// Link 0 is the base; link i covers step i.
		expect(firstDiffering).toBe(1);
		expect(result.trace[firstDiffering - 1].step).toBe(1);
	});

	it('changes with the config or a tool’s schema', async () => {
		const { result, base } = await run();
		expect(
			traceDigest({ ...base, configHash: configHash({ ...config, max_steps: 9 }) }, result.trace),
		).not.toBe(result.trace_digest);
		expect(
			traceDigest({ ...base, toolSchemaHashes: { json_transform: 'other' } }, result.trace),
		).not.toBe(result.trace_digest);
	});

	it('hashes each tool’s own schema in every run, the built-ins kept from run to run', () => {
		const hashes = () => chainBase('c', builtInTools).toolSchemaHashes;
		const first = hashes();
		expect(hashes()).toEqual(first);
		expect(first).toEqual(
			Object.fromEntries(builtInTools.map((tool) => [tool.name, schemaHash(tool.parameters)])),
		);
		expect(new Set(Object.values(first)).size).toBe(builtInTools.length);
	});
});
