// The run's hooks made from its options and config, and before_run (issue #50) on the user's message.
import type { ChatMessage, FileRef } from '../../core/messages';
import { RunFile } from '../../files';
import { checkGuardrails } from '../../guardrails';
import type { AgentConfig } from '../../settings/config';
import type { GuardrailDecision, TraceStep } from '../../trace/types';
import { blockedBy, checkHooks, HookChain } from '../hooks';
import type { StepOutcome } from '../base/step-outcome';
import type { RunAgentOptions } from '../base/run-options';

/** What a run starts with from its hooks: the chain, before_run's decisions, and a block that ends it at once. */
export interface HooksStart {
	chain: HookChain;
	decisions: GuardrailDecision[];
	blocked?: string;
	stopped?: true;
}

/** The library hooks in their order, then the built-in guardrails of the config (hosts normalised as checked). */
export function runHooks(
	options: Pick<RunAgentOptions, 'hooks' | 'runKey'>,
	config: AgentConfig,
): HookChain {
	return new HookChain(
		checkHooks(options.hooks),
		checkGuardrails(config.guardrails),
		options.runKey,
	);
}

/**
 * before_run on the user's message, before anything else sees it: a change replaces the message in the
 * history (the caller's objects are left as they were), so the conversation, the trusted text and the memory
 * all hold what the hooks left. The text files sent with it pass the built-in `input` guardrails too.
 */
export async function beforeRun(
	options: Pick<RunAgentOptions, 'hooks' | 'runKey' | 'signal'>,
	config: AgentConfig,
	input: { history: ChatMessage[]; newUserMessage: ChatMessage },
): Promise<HooksStart & { history: ChatMessage[]; newUserMessage: ChatMessage }> {
	const chain = runHooks(options, config);
	const decisions: GuardrailDecision[] = [];
	const start = { chain, decisions, ...input };
	if (!chain.has('before_run')) return start;
	const under = options.signal ? chain.under(options.signal) : chain;
	const given = input.newUserMessage.content;
	const outcome = await under.run('before_run', { step: 0 }, given, decisions);
	if (outcome.next === 'block') return { ...start, blocked: outcome.detail };
	if (outcome.next === 'stopped') return { ...start, stopped: true };
	if (outcome.next !== 'go') return start;
	const files = checkFiles(under, input.newUserMessage.files, decisions);
	if ('blocked' in files) return { ...start, blocked: files.blocked };
	if (outcome.value === given && files.same) return start;
	const newUserMessage: ChatMessage = {
		...input.newUserMessage,
		content: outcome.value as string,
		...(files.same ? {} : { files: files.files }),
	};
	const history = input.history.map((message) =>
		message === input.newUserMessage ? newUserMessage : message,
	);
	return { ...start, history, newUserMessage };
}

/**
 * The input's text files through the built-in `input` guardrails: a block ends the run; a redaction replaces the
 * file with its redacted text (a new file: its hash is the redacted text's).
 */
function checkFiles(
	chain: HookChain,
	given: ChatMessage['files'],
	decisions: GuardrailDecision[],
): { files: FileRef[]; same: boolean } | { blocked: string } {
	const files = [...(given ?? [])];
	let same = true;
	for (const [index, file] of files.entries()) {
		if (!(file instanceof RunFile) || file.kind !== 'text') continue;
		const text = file.text();
		const outcome = chain.builtIns('input', text, decisions, { file: file.name });
		if (outcome.next === 'block') return { blocked: outcome.detail };
		if (outcome.next !== 'go' || outcome.value === text) continue;
		files[index] = RunFile.of(
			file.name,
			file.type,
			file.kind,
			Buffer.from(outcome.value as string),
		);
		same = false;
	}
	return { files, same };
}

/**
 * A run that before_run blocked: its decisions on a step 0 (as a compaction's step is, before the first model
 * call), so the trace, the spans and the audit's record chain hold them; the run ends `guardrail`. Undefined
 * when before_run did not block.
 */
export function blockedBeforeRun(
	trace: TraceStep[],
	begun: HooksStart | undefined,
): StepOutcome | undefined {
	if (begun?.blocked === undefined) return undefined;
	const entry: TraceStep = { step: 0, repair: false, elapsed_ms: 0, model_ms: 0 };
	if (begun.decisions.length) entry.guardrails = [...begun.decisions];
	trace.push(entry);
	return blockedBy(entry, begun.blocked);
}
