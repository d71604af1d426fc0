// The run's hook chain (issue #50): at each point the library hooks in order, then the built-in guardrails.
import type { ChatMessage } from '../../core/messages';
import type { Guardrail, GuardrailPoint } from '../../guardrails';
import { POINT_OF_TARGET, runGuardrails, valueHash } from './built-in';
import { askHook, MODIFIED_FIELD } from './hook-reply';
import {
	HOOK_METHODS,
	type AgentHook,
	type GuardrailDecision,
	type HookData,
	type HookPoint,
} from '../base/hook-types';

/** The content each point's built-in guardrails check (`on`), where the point has one. */
const TARGET_OF_POINT: Partial<Record<HookPoint, GuardrailPoint>> = {
	before_run: 'input',
	before_tool: 'tool_call',
	after_tool: 'observation',
	after_run: 'answer',
};

/**
 * What a point came to: go on with the value (as changed), deny the call (before_tool), end the run
 * `guardrail` (`detail` names who and where, never what was found), or the run's signal fired meanwhile.
 */
export type ChainOutcome =
	| { next: 'go'; value: unknown }
	| { next: 'deny'; value: unknown; reason: string }
	| { next: 'block'; detail: string }
	| { next: 'stopped' };

/** Where a point is met: the step, and for a call its tool and (in a batch) its number. */
export interface HookPlace {
	step: number;
	tool?: string;
	call?: number;
	args?: Record<string, unknown>;
}

export class HookChain {
	private readonly named: ReadonlyArray<{ hook: AgentHook; name: string }>;

	constructor(
		hooks: readonly AgentHook[],
		private readonly guardrails: readonly Guardrail[],
		private readonly runId?: string,
		private readonly signal?: AbortSignal,
	) {
		this.named = hooks.map((hook, index) => ({ hook, name: hook.name ?? `hook ${index + 1}` }));
	}

	/** The same hooks and guardrails under the run's own signal (its timeout and cancel). */
	under(signal: AbortSignal): HookChain {
		const hooks = this.named.map(({ hook }) => hook);
		const chain = new HookChain(hooks, this.guardrails, this.runId, signal);
		return chain;
	}

	/** Whether the run has any hook or guardrail: the output then counts their decisions (`guardrails_tripped`). */
	get active(): boolean {
		return this.named.length > 0 || this.guardrails.length > 0;
	}

	/** Whether anything runs at `point`: with nothing configured a point costs one lookup. */
	has(point: HookPoint): boolean {
		const target = TARGET_OF_POINT[point];
		return (
			this.named.some(({ hook }) => typeof hook[HOOK_METHODS[point]] === 'function') ||
			(target !== undefined && this.guardrails.some((guardrail) => guardrail.on.includes(target)))
		);
	}

	/**
	 * `value` (the point's content: input, messages, args, observation or answer) through the hooks in order,
	 * then the built-in guardrails. The first deny or block ends the chain; a hook that fails, hangs or replies
	 * with anything but a decision fitting the point blocks (fails closed). Decisions other than allow are
	 * pushed to `decisions`.
	 */
	async run(
		point: HookPoint,
		place: HookPlace,
		start: unknown,
		decisions: GuardrailDecision[],
	): Promise<ChainOutcome> {
		if (!this.has(point)) return { next: 'go', value: start };
		const where = {
			...(place.tool !== undefined ? { tool: place.tool } : {}),
			...(place.call !== undefined ? { call: place.call } : {}),
		};
		const field = MODIFIED_FIELD[point];
		let value = start;
		for (const { hook, name } of this.named) {
			const data: HookData = { point, step: place.step, ...this.ran(), ...where };
			if (place.args !== undefined) data.args = place.args;
			if (field !== undefined) (data as unknown as Record<string, unknown>)[field] = value;
			else if (point === 'after_model') data.reply = value as string;
			const outcome = await askHook(hook, name, data, this.signal);
			if ('stopped' in outcome) return { next: 'stopped' };
			const seen = value; // hashed only when a decision other than allow is recorded
			const record = (
				decision: GuardrailDecision['decision'],
				reason?: string,
				changed?: unknown,
			) =>
				decisions.push({
					name,
					by: 'hook',
					point,
					decision,
					...where,
					...(reason !== undefined ? { reason } : {}),
					seen_sha256: valueHash(seen),
					...(changed !== undefined ? { changed_sha256: valueHash(changed) } : {}),
				});
			if ('failed' in outcome) {
				record('block', outcome.failed);
				return { next: 'block', detail: `${outcome.failed} (a hook that fails blocks the run)` };
			}
			if (outcome.decision === 'allow') continue;
			if (outcome.decision === 'modify') {
				const changed =
					point === 'before_model'
						? keepSystemMessage(start as ChatMessage[], outcome.value as ChatMessage[])
						: outcome.value;
				record('modify', undefined, changed);
				value = changed;
				continue;
			}
			record(outcome.decision, outcome.reason);
			const why = outcome.reason ? `: ${outcome.reason}` : '';
			if (outcome.decision === 'deny')
				return { next: 'deny', value, reason: `${name} denied the call${why}` };
			return { next: 'block', detail: `${name} blocked the run at ${point}${why}` };
		}
		const target = TARGET_OF_POINT[point];
		if (target === undefined) return { next: 'go', value };
		return this.builtIns(target, value, decisions, where);
	}

	/**
	 * The built-in guardrails alone on `value` at `target`: what `run` applies after the hooks, and what a file
	 * sent with the input (its text) goes through.
	 */
	builtIns(
		target: GuardrailPoint,
		value: unknown,
		decisions: GuardrailDecision[],
		where: Pick<GuardrailDecision, 'tool' | 'call' | 'file'>,
	): ChainOutcome {
		const checked = runGuardrails(this.guardrails, target, value, decisions, where);
		if (checked.next === 'go') return { next: 'go', value: checked.value };
		if (checked.next === 'deny') return { next: 'deny', value, reason: checked.reason };
		const point = POINT_OF_TARGET[target];
		return {
			next: 'block',
			detail: `${checked.by} blocked the run at ${point}: ${checked.reason}`,
		};
	}

	/** on_failure: the hooks see how the run ended; they observe only, and what they return or throw changes nothing. */
	async failed(step: number, finishReason: string, stopDetail?: string): Promise<void> {
		for (const { hook, name } of this.named) {
			const data: HookData = {
				point: 'on_failure',
				step,
				...this.ran(),
				finish_reason: finishReason,
			};
			if (stopDetail !== undefined) data.stop_detail = stopDetail;
			await askHook(hook, name, data, undefined);
		}
	}

	private ran(): Pick<HookData, 'run_id'> {
		return this.runId !== undefined ? { run_id: this.runId } : {};
	}
}

/** The protocol's system message stays first and as it was: a hook may add messages, never remove or change it. */
function keepSystemMessage(
	original: readonly ChatMessage[],
	changed: ChatMessage[],
): ChatMessage[] {
	const system = original[0];
	if (system?.role !== 'system') return changed;
	const rest =
		changed[0]?.role === 'system' && changed[0].content === system.content
			? changed.slice(1)
			: changed;
	return [system, ...rest];
}
