// A real run with a sub-agent, audited (issue #52): the parent asks `researcher`, which looks the value up with its own
// tool and answers. Shared by the audit, replay and telemetry suites of sub-agents.
import { runAgent } from '../../src/agent/run-agent';
import type { ScriptedServer } from '../../src/demo/scripted-server';
import type { AgentConfig } from '../../src/settings/config';
import type { AgentResult } from '../../src/trace/types';
import { action, final, modelFor } from '../support/agent';
import { countingTool } from '../support/durable';

export const ask = (task: string) => action('researcher', { task });
export const actions = (...calls: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'actions', calls: calls.map(([tool, args]) => ({ tool, args })) });

/** The parent's config: `researcher` may call `lookup` (or what `child` says), and the parent may call researcher. */
export const subAgentConfig = (
	extra: Partial<AgentConfig> = {},
	child: Record<string, unknown> = {},
): Partial<AgentConfig> & { model: string } => ({
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

/** The parent's one call, the child's lookup and answer, the parent's answer. */
export const ONE_CALL = [
	ask('find the value'),
	action('lookup', { value: 7 }),
	final('the value is 7'),
	final('Researcher says 7.'),
];

/**
 * Two sub-agent calls in one "actions" step; the child's lookup changes things, so the calls run one after the other
 * (the script's order is theirs).
 */
export const TWO_CALLS = [
	actions(['researcher', { task: 'find a' }], ['researcher', { task: 'find b' }]),
	action('lookup', { value: 1 }),
	final('a is 1'),
	action('lookup', { value: 2 }),
	final('b is 2'),
	final('a is 1, b is 2.'),
];

/** The run, audited in `postgres` (its rows waited for); `lookup` counts its calls in `runs`. */
export async function auditedSubAgentRun(
	server: ScriptedServer,
	postgres: string,
	options: {
		script?: string[];
		config?: Partial<AgentConfig> & { model: string };
		sideEffects?: boolean;
		tracer?: unknown;
	} = {},
): Promise<AgentResult & { audit: { run_id: string; record_digest: string }; runs: unknown[] }> {
	const lookup = countingTool('lookup', options.sideEffects ?? false);
	server.setScript(options.script ?? ONE_CALL);
	const result = await runAgent({
		model: modelFor(server),
		config: options.config ?? subAgentConfig(),
		extraTools: [lookup.tool],
		prompt: 'what is the value?',
		audit: { postgres, waitMs: 5_000 },
		...(options.tracer ? { tracer: options.tracer as never } : {}),
	});
	if (!result.audit?.stored)
		throw new Error(`the audit row was not stored: ${JSON.stringify(result.audit)}`);
	return Object.assign(result, { runs: lookup.runs }) as never;
}
