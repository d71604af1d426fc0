// One library hook called at one point: its time limit, and its reply read strictly (anything else fails closed).
import { isPlainObject } from '../../settings/setting-checks';
import type { ChatMessage } from '../../core/messages';
import { HOOK_METHODS, type AgentHook, type HookData, type HookPoint } from '../base/hook-types';

/** How long one hook may take before the run ends `guardrail` (a hung hook never hangs the run). */
export const HOOK_TIMEOUT_MS = 10_000;
/** The most characters a value a hook returns may have, as JSON (a 10 MB rewrite fails closed). */
export const MAX_HOOK_VALUE_CHARS = 1_000_000;
const MAX_REASON_CHARS = 500;

/** The field a `modify` carries at each point; points without one take no `modify`. */
export const MODIFIED_FIELD = {
	before_run: 'input',
	before_model: 'messages',
	after_model: undefined,
	before_tool: 'args',
	after_tool: 'observation',
	after_run: 'answer',
	on_failure: undefined,
} as const satisfies Record<HookPoint, keyof HookData | undefined>;

/** What one hook decided, read: or `failed`, a sentence saying what was wrong (the run then ends `guardrail`). */
export type HookOutcome =
	| { decision: 'allow' }
	| { decision: 'modify'; value: unknown }
	| { decision: 'deny' | 'block'; reason?: string }
	| { failed: string }
	| { stopped: true };

/** Calls `hook` at `data.point` under its time limit and the run's signal, and reads its reply. */
export async function askHook(
	hook: AgentHook,
	name: string,
	data: HookData,
	signal?: AbortSignal,
): Promise<HookOutcome> {
	const method = hook[HOOK_METHODS[data.point]];
	if (typeof method !== 'function') return { decision: 'allow' };
	let timer: NodeJS.Timeout | undefined;
	let onAbort: (() => void) | undefined;
	try {
		const stopped = new Promise<'timeout' | 'stopped'>((resolve) => {
			timer = setTimeout(() => resolve('timeout'), HOOK_TIMEOUT_MS);
			onAbort = () => resolve('stopped');
			if (signal?.aborted) onAbort();
			else signal?.addEventListener('abort', onAbort, { once: true });
		});
		// The hook gets a copy: what it changes in place changes nothing (only what it returns counts).
		const reply = await Promise.race([
			Promise.resolve().then(() => method.call(hook, structuredClone(data))),
			stopped,
		]);
		if (reply === 'stopped') return { stopped: true };
		if (reply === 'timeout')
			return {
				failed: `${name} did not answer at ${data.point} within ${HOOK_TIMEOUT_MS / 1000} s`,
			};
		return readReply(reply, name, data.point);
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		return { failed: `${name} failed at ${data.point}: ${message.slice(0, MAX_REASON_CHARS)}` };
	} finally {
		clearTimeout(timer);
		if (onAbort) signal?.removeEventListener('abort', onAbort);
	}
}

const DECISIONS: Record<HookPoint, readonly string[]> = {
	before_run: ['allow', 'modify', 'block'],
	before_model: ['allow', 'modify', 'block'],
	after_model: ['allow', 'block'],
	before_tool: ['allow', 'deny', 'modify', 'block'],
	after_tool: ['allow', 'modify', 'block'],
	after_run: ['allow', 'modify', 'block'],
	on_failure: ['allow'],
};

/** A hook's reply read: nothing is allow; anything that is not a decision fitting the point fails closed. */
export function readReply(reply: unknown, name: string, point: HookPoint): HookOutcome {
	if (reply === undefined || reply === null) return { decision: 'allow' };
	const takes = DECISIONS[point];
	const expected = `expected nothing or {decision: ${takes.map((d) => `"${d}"`).join(' | ')}, …}`;
	if (!isPlainObject(reply) || !takes.includes(reply.decision as string))
		return { failed: `${name} returned ${describe(reply)} at ${point}; ${expected}` };
	const { decision, reason } = reply;
	if (reason !== undefined && typeof reason !== 'string')
		return { failed: `${name} returned a reason that is not text at ${point}` };
	const said = reason === undefined ? undefined : reason.slice(0, MAX_REASON_CHARS);
	if (decision === 'allow') return { decision };
	if (decision === 'deny' || decision === 'block') return { decision, reason: said };
	const field = MODIFIED_FIELD[point]!;
	const value = reply[field];
	const problem = modifiedProblem(field, value);
	if (problem) return { failed: `${name} modified ${field} at ${point}, but ${problem}` };
	return { decision: 'modify', value };
}

function describe(value: unknown): string {
	if (isPlainObject(value)) {
		const decision = value.decision;
		return decision === undefined
			? 'an object without a decision'
			: `decision ${JSON.stringify(String(decision)).slice(0, 40)}`;
	}
	return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/** What is wrong with a modified value: its type for the field, or its size. */
function modifiedProblem(field: string, value: unknown): string | undefined {
	let json: string | undefined;
	try {
		json = JSON.stringify(value);
	} catch {
		return 'the value is not JSON (a cycle, or a BigInt)';
	}
	if (json === undefined) return `no ${field} was given`;
	if (json.length > MAX_HOOK_VALUE_CHARS)
		return `the value has ${json.length} characters as JSON, more than ${MAX_HOOK_VALUE_CHARS}`;
	if ((field === 'input' || field === 'observation') && typeof value !== 'string')
		return `${field} must be text`;
	if (field === 'args' && !isPlainObject(value)) return 'args must be an object';
	if (field === 'messages' && !isMessages(value))
		return 'messages must be a list of {role: "system" | "user" | "assistant", content: text}';
	return undefined;
}

function isMessages(value: unknown): value is ChatMessage[] {
	return (
		Array.isArray(value) &&
		value.every(
			(message) =>
				isPlainObject(message) &&
				['system', 'user', 'assistant'].includes(message.role as string) &&
				typeof message.content === 'string',
		)
	);
}
