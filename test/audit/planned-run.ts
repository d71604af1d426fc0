// A real planned run, audited (issue #51): the shop job of plan mode — find the order, refund it by the id found —
// approved by a person before it ran. Shared by the audit, replay and telemetry suites of planned runs.
import { resumeAgent } from '../../src/agent/resume';
import { runAgent } from '../../src/agent/run-agent';
import type { ScriptedServer } from '../../src/demo/scripted-server';
import type { AgentConfig } from '../../src/settings/config';
import type { Tool } from '../../src/tools/tool';
import type { AgentResult } from '../../src/trace/types';
import { final, modelFor } from '../support/agent';

export const PLAN_SECRET = 'planned-run-secret-0123456789';

export const planReply = (...steps: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'plan', steps: planSteps(...steps) });
export const planSteps = (...steps: Array<[string, Record<string, unknown>]>) =>
	steps.map(([tool, args], index) => ({
		step: index + 1,
		description: `step ${index + 1} uses ${tool}`,
		tool,
		args,
	}));

/** find_order (read-only) and refund (changes something), each call kept in `arrived`. */
export function shopTools() {
	const arrived: Array<{ tool: string; args: unknown }> = [];
	const tool = (
		name: string,
		property: string,
		sideEffects: boolean,
		answer: (value: string) => unknown,
	): Tool => ({
		name,
		description: `${name} by ${property}`,
		parameters: {
			type: 'object',
			properties: { [property]: { type: 'string', minLength: 1 } },
			required: [property],
			additionalProperties: false,
		},
		sideEffects,
		async execute(args) {
			arrived.push({ tool: name, args });
			return answer((args as Record<string, string>)[property]);
		},
	});
	const tools = [
		tool('find_order', 'customer', false, (customer) => ({
			order: { id: `o-${customer}`, total: 42 },
		})),
		tool('refund', 'order_id', true, (order) => ({ refunded: order })),
	];
	return { tools, arrived };
}

/** The plan the model sends: the order of ann, then its refund by the id step 1 found. */
export const REFUND_PLAN = planReply(
	['find_order', { customer: 'ann' }],
	['refund', { order_id: { $step: 1, pointer: '/order/id' } }],
);

export const plannedConfig = (
	extra: Partial<AgentConfig> = {},
): Partial<AgentConfig> & { model: string } => ({
	model: 'm',
	mode: 'plan',
	allowed_tools: ['find_order', 'refund'],
	max_steps: 4,
	...extra,
});

/**
 * The planned run, audited in `postgres`: with `approve` it pauses for approval and is resumed with that decision
 * (the resumed run's row is the one returned); without, it runs straight through.
 */
export async function auditedPlannedRun(
	server: ScriptedServer,
	postgres: string,
	options: {
		approve?: Record<string, unknown>;
		config?: Partial<AgentConfig>;
		tracer?: unknown;
	} = {},
): Promise<AgentResult & { audit: { run_id: string; record_digest: string } }> {
	const { tools, arrived } = shopTools();
	const config = plannedConfig({
		...(options.approve ? { approve_plan: true } : {}),
		...options.config,
	});
	const audit = { postgres, waitMs: 5_000 };
	const common = {
		model: modelFor(server),
		config,
		extraTools: tools,
		audit,
		stateSecret: PLAN_SECRET,
	};
	const tracer = options.tracer ? { tracer: options.tracer as never } : {};
	let result: AgentResult;
	if (options.approve) {
		server.setScript([REFUND_PLAN]);
		const paused = await runAgent({ ...common, prompt: 'refund ann' });
		if (paused.finish_reason !== 'awaiting_approval')
			throw new Error(`not paused: ${paused.finish_reason}`);
		server.setScript([final('Refunded o-ann.')]);
		result = await resumeAgent({
			...common,
			...tracer,
			runState: paused.run_state,
			decision: options.approve as never,
		});
	} else {
		server.setScript([REFUND_PLAN, final('Refunded o-ann.')]);
		result = await runAgent({ ...common, ...tracer, prompt: 'refund ann' });
	}
	if (!result.audit?.stored)
		throw new Error(`the audit row was not stored: ${JSON.stringify(result.audit)}`);
	return Object.assign(result, { arrived }) as never;
}
