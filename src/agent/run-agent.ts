import type { ChatMessage } from '../core/messages';
import { type TokenUsage, addUsage, estimateWhenUnreported } from '../core/usage';
import type { Tool } from '../tools/tool';
import { Redactor } from '../trace/redact';
import type { AgentResult, FinishReason, StepError, ToolUsage, TraceStep } from '../trace/types';
import { AnswerRelease, holdBackFor } from './answer/answer-release';
import type { AgentConfig } from '../settings/config';
import { actionSummary, observationSummary, tell, type AgentEvent } from './events';
import { checkToolCall, countToolUse, toolSecrets } from './execute-tool';
import { batchDecisions, callName, newBatch, runBatch, type BatchState } from './batch';
import { callTool, refusalBeforeRun } from './tool-call';
import { normaliseInput, trustedTextOf } from './input';
import { abortedReason, runLimit } from './run-deadline';
import { callWithFailover, type ModelCallOutcome } from './model-call';
import { ModelChoice } from './model-choice';
import { buildConversation, observationMessage, repairMessage } from './protocol/prompt';
import { readReply } from './protocol/protocol';
import { callArgs, type ProtocolFormat, protocolFormat } from './protocol/protocol-schema';
import { RepeatedCalls } from './repeated-calls';
import { type RunAnswer, type RunChain, runChainBase, runResult } from './run-result';
import { Spending, runCost } from './shared-budget';
import { configKeyHint, RUN_AGENT_OPTIONS, type RunAgentOptions } from './run-options';
import { checkKnownOptions } from '../core/known-options';
import { FailureStreak, type RepairReason } from './failure-streak';
import {
	pausedOutput,
	refusalObservation,
	type Resumed,
	type RunProgress,
} from './pause/paused-run';
import { DurableRun } from './pause/checkpoints';
import { interruptedDetail } from './pause/interrupted-call';
import { configureRun, noteSetUp, withMcpTools } from './configure-run';
import { afterRun } from './after-run';
import { replayHistory, splitHistory } from './memory/memory';
import { fitRunHistory, type RunMemory } from './memory/run-memory';
import {
	answered,
	failedStep,
	limitReached,
	REPLY_EXCERPT,
	type StepOutcome,
} from './step-outcome';
import {
	fileRefs,
	NO_FILES,
	reattachFiles,
	takeFiles,
	withFiles,
	filesHeldIn,
	observedFiles,
	type FilesHeld,
	type TakenFiles,
} from './input-files';
import type { FileInput, RunFile } from '../files';
import { modelMessages, partTokens } from './protocol/file-messages';

/** Runs the ReAct loop (think → act → observe, one JSON turn at a time) until a final answer or a limit; never throws for anything the model or a tool does. */
export const runAgent = async (given: RunAgentOptions): Promise<AgentResult> => {
	// Before anything is opened: an option the run does not know (`baseURL`, `promt`) is a typo, not a no-op.
	checkKnownOptions('runAgent', given, RUN_AGENT_OPTIONS, configKeyHint);
	return withMcpTools(given, async (options) => {
		const { config, allowed } = configureRun(options);
		const { history, newUserMessage } = normaliseInput(options.prompt, options.messages);
		const taken = takeFiles(options, config);
		withFiles(newUserMessage, taken.files);
		const durable = await DurableRun.open(options, config, allowed, newUserMessage);
		return (
			durable?.found.finished ??
			new AgentRun(
				options,
				config,
				allowed,
				history,
				newUserMessage,
				durable?.found.resumed,
				durable,
				taken,
			).run()
		);
	});
};

export class AgentRun {
	private readonly started = performance.now();
	readonly replies = new Map<number, string>(); // each step's model reply, for the audit (see afterRun)
	private readonly trace: TraceStep[] = [];
	private readonly usedTools: Record<string, ToolUsage> = {};
	private readonly usage: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
	private readonly conversation: ChatMessage[];
	private readonly runController = new AbortController();
	readonly redactor: Redactor;
	private readonly answerHoldBack: number; // answer text held back before it is streamed, so no known secret goes out in pieces
	private toolCalls = 0;
	private openStep?: { entry: TraceStep; started: number }; // the step being taken: a run that ends inside it still records its wall time
	private readonly failures: FailureStreak;
	private readonly models: ModelChoice;
	private readonly format: ProtocolFormat; // how replies are asked for (json_mode, the compiled protocol schema) and what they may contain
	readonly repeats: RepeatedCalls;
	private readonly spending: Spending;
	private readonly trustedText: string; // what the user and the workflow wrote (see ToolContext.trustedText)
	private memory?: RunMemory; // how the history was fitted to its token budget (issue #31)
	private filesHeld?: FilesHeld; // the files the run holds, for the caps on those tools return

	constructor(
		private readonly options: RunAgentOptions,
		readonly config: AgentConfig,
		readonly tools: ReadonlyMap<string, Tool>,
		private readonly history: ChatMessage[],
		private readonly newUserMessage: ChatMessage,
		private readonly resumed?: Resumed, // a paused run continued: its state replaces a fresh start (limits carry over; the timeout restarts)
		private readonly durable?: DurableRun, // with a run key: where each completed step is checkpointed (see checkpoints.ts)
		private readonly taken: TakenFiles = NO_FILES, // the files the caller gave, checked (see input-files.ts)
	) {
		const paused = resumed?.paused;
		// Remembered text (a summary, tool results of earlier turns) goes back inside the observation wrapper.
		this.conversation =
			paused?.conversation ??
			buildConversation(
				[...tools.values()],
				replayHistory(splitHistory(history)),
				options.developerText,
				config.prompt_examples,
				config.output_schema,
				config.max_parallel_calls,
			);
		// A conversation restored from a run state holds file references: the caller's files give back their bytes.
		if (paused) reattachFiles(this.conversation, taken.files);
		this.format = protocolFormat(
			config.json_mode,
			[...tools.values()],
			config.output_schema,
			config.max_parallel_calls,
		);
		this.repeats = new RepeatedCalls(config.loop_limit, paused?.repeats);
		this.failures = new FailureStreak(paused?.failures);
		this.trustedText =
			paused?.trusted_text ?? trustedTextOf(history, newUserMessage, options.developerText);
		if (paused) {
			this.trace.push(...paused.trace);
			Object.assign(this.usage, paused.usage);
			Object.assign(this.usedTools, paused.used_tools);
			this.toolCalls = paused.tool_calls;
		}
		this.models = new ModelChoice(options.model, options.fallbackModel, config.model);
		this.spending = new Spending(config, options.budgetLedger, this.models.candidates);
		const knownSecrets = [
			...(options.secrets ?? []),
			...this.models.secrets,
			...toolSecrets(tools, config.tool_settings),
		];
		this.redactor = new Redactor(knownSecrets);
		this.answerHoldBack = options.streamAnswer === 'checked' ? Infinity : holdBackFor(knownSecrets);
	}

	async run(): Promise<AgentResult> {
		const limit = runLimit(this.runController, this.config.timeout, this.options.signal);
		try {
			const { config, models, spending, usage, trace, conversation, runController } = this;
			if (!this.resumed)
				this.memory = await fitRunHistory(
					{
						config,
						models,
						spending,
						usage,
						trace,
						conversation,
						runSignal: runController.signal,
						provider: models.answering.chat.provider,
					},
					this.history,
				);
			const result = await afterRun(await this.loop(), this, this.options);
			await this.durable?.finish(result);
			return result;
		} finally {
			limit.dispose();
		}
	}

	/** Step after step until one finishes the run, a second failure in a row ends it, or max_steps is reached. */
	private async loop(): Promise<AgentResult> {
		// With a decision the run answers its pending call first; without one it goes on after a completed step.
		// A batch part way through (paused, or a checkpoint inside it) goes on at its own step.
		const resumedAt =
			this.resumed?.decision || this.resumed?.paused.batch ? this.resumed.paused.step : undefined;
		for (
			let step = resumedAt ?? (this.resumed?.paused.step ?? 0) + 1;
			step <= this.config.max_steps;
			step++
		) {
			const outcome =
				step === resumedAt
					? await this.decided()
					: ((await this.limitBeforeStep()) ?? (await this.takeStep(step)));
			this.closeOpenStep();
			if (outcome.next === 'finish')
				return this.finish(outcome.reason, outcome.detail, outcome.answer, outcome.paused);
			if (outcome.next === 'continue') this.failures.reset();
			const ended =
				outcome.next === 'repair' ? this.repairOrEnd(outcome.error, outcome.reason) : undefined;
			if (ended) return this.finish(ended.reason, ended.detail);
			if (this.durable) await this.durable.saveStep(this.progress(step), this.redactor);
		}
		return this.finish('max_steps', `no final answer within max_steps (${this.config.max_steps})`);
	}

	/** The limits that end a run before its next model call: the token budget, the shared budget, and the run's signal. */
	private async limitBeforeStep(): Promise<StepOutcome | undefined> {
		const budget = this.config.total_token_budget;
		if (budget > 0 && this.usage.total_tokens >= budget) {
			return {
				next: 'finish',
				reason: 'token_budget',
				detail: `token usage ${this.usage.total_tokens} reached total_token_budget ${budget}`,
			};
		}
		return (
			(await this.spending.stopBeforeCall(this.trace, this.trace.length > 0)) ??
			(this.runController.signal.aborted ? this.aborted() : undefined)
		);
	}

	/** One model turn and, when it asks for one, its tool call. */
	private async takeStep(step: number): Promise<StepOutcome> {
		const entry: TraceStep = { step, repair: this.failures.repairing, elapsed_ms: 0, model_ms: 0 };
		if (step === 1) {
			noteSetUp(entry, this.format.notice, this.config, this.tools.values());
			const files = fileRefs(this.newUserMessage.files);
			if (files) entry.files = files;
			if (this.taken.notices.length)
				entry.notices = [...(entry.notices ?? []), ...this.taken.notices];
		}
		this.trace.push(entry);
		this.openStep = { entry, started: performance.now() };
		this.emit({ type: 'step_start', step });

		const sent = modelMessages(this.conversation, this.config.observation_max_len);
		const { call, release } = await this.askModel(entry, sent);
		entry.model_ms = Math.round(call.elapsedMs);
		if (!call.ok) {
			entry.error = call.error;
			if (call.runAborted) return this.aborted();
			return {
				next: 'finish',
				reason: call.error.type === 'timeout' ? 'timeout' : 'llm_error',
				detail: call.error.message,
			};
		}
		const response = call.response;
		entry.usage = estimateWhenUnreported(
			call.usage,
			response,
			sent,
			partTokens(sent, entry.provider ?? ''),
		);
		if (response.notices?.length) entry.notices = [...(entry.notices ?? []), ...response.notices];
		addUsage(this.usage, call.usage);
		const uncharged = await this.spending.record(entry, call.usage, {
			name: entry.model ?? '',
			provider: entry.provider ?? '',
		});
		this.conversation.push({ role: 'assistant', content: response.text });
		this.replies.set(step, response.text);
		if (uncharged) return limitReached(entry, uncharged.reason, uncharged.detail, release);

		const turn = readReply(response, this.config.max_output_tokens, this.format.rules);
		if (turn.reasoning) entry.reasoning = turn.reasoning;
		if (turn.kind === 'final')
			return answered(entry, turn.answer, response.text, this.format, this.config, release);
		release?.finishWithoutAnswer(
			turn.kind === 'error' ? 'the reply broke the protocol' : 'the reply was a tool call',
		);
		if (turn.kind === 'error') {
			entry.reply_excerpt = response.text.slice(0, REPLY_EXCERPT);
			if (response.finishReason === 'content_filter') {
				entry.error = {
					type: 'content_filter',
					message: `the provider withheld the reply (its safety filter)${response.finishMessage ? `: ${response.finishMessage}` : ''}`,
				};
				return { next: 'finish', reason: 'content_filter', detail: entry.error.message };
			}
			if (response.finishReason === 'length')
				return failedStep(
					entry,
					{ type: 'output_limit', message: turn.message },
					'max_output_tokens',
				);
			return failedStep(entry, { type: 'parse_error', message: turn.message }, 'parse_error');
		}
		if (turn.kind === 'actions')
			return runBatch(
				this,
				entry,
				newBatch(
					turn.calls.map(({ tool, args }) => ({
						tool,
						args: callArgs(this.format, this.tools, tool, args),
					})),
				),
			);
		const args = callArgs(this.format, this.tools, turn.tool, turn.args);
		entry.action = { tool: turn.tool, args };
		return this.act(entry, turn.tool, args);
	}

	/** A durable run's checkpoint of a batch as it stands, sealed now (see DurableRun.beforeCall). */
	sealBatch(step: number, batch: BatchState) {
		return this.durable?.beforeCall(this.progress(step, undefined, batch), this.redactor);
	}

	/** Pauses the run at call `at` of the batch, which the state keeps to go on with. */
	pauseBatch(entry: TraceStep, batch: BatchState, at: number, detail?: string): StepOutcome {
		batch.waiting = at;
		const { tool, args } = batch.calls[at];
		const why = detail ?? `${callName(batch, at)} waits for a person's approval`;
		return this.pause(entry, tool, args, why, batch);
	}

	get givenFiles() {
		return this.taken.files;
	}

	refusalBeforeRun(tool: Tool, name: string, args: Record<string, unknown>) {
		const { config, trustedText } = this;
		return refusalBeforeRun({ config, trustedText }, tool, name, args);
	}

	/** Takes one of max_tool_calls' slots for a call of a batch; false when none is left. */
	takeToolCall(): boolean {
		return this.toolCalls < this.config.max_tool_calls && ++this.toolCalls > 0;
	}

	countUse(name: string, ms: number, ok: boolean): void {
		countToolUse(this.usedTools, name, ms, ok);
	}

	/** Files a tool returned, under the run's caps: those that do not pass become notes inside the observation. */
	takeFiles(observation: string, returned: readonly FileInput[]) {
		const held = (this.filesHeld ??= filesHeldIn(this.conversation));
		return observedFiles(observation, returned, this.config, held, this.redactor);
	}

	pushObservations(content: string, files: RunFile[]): void {
		this.conversation.push({ role: 'user', content, ...(files.length ? { files } : {}) });
	}

	/** The step's model call, on the fallback model from the step where the primary failed (see callWithFailover). */
	private askModel(
		entry: TraceStep,
		messages: ChatMessage[],
	): Promise<{ call: ModelCallOutcome; release?: AnswerRelease }> {
		// The reply's answer text on its way to the listener, when there is one.
		const release = () =>
			this.options.onEvent
				? new AnswerRelease(this.redactor, this.answerHoldBack, (event) => this.emit(event))
				: undefined;
		return callWithFailover(this.models, entry, release, {
			config: this.config,
			format: this.format.format,
			messages,
			runSignal: this.runController.signal,
		});
	}

	/** A resumed run's first step: the person's decision on the call the run paused at. */
	private async decided(): Promise<StepOutcome> {
		const { paused, decision } = this.resumed as Resumed;
		const entry = this.trace[this.trace.length - 1];
		this.openStep = { entry, started: performance.now() };
		if (paused.batch) {
			const decisions = batchDecisions(paused.batch, decision);
			if ([...decisions.values()].some((one) => 'edit' in one))
				(entry.notices ??= []).push('a person edited the arguments of a call before it ran');
			return runBatch(this, entry, paused.batch, decisions);
		}
		const { tool, args } = paused.pending!;
		if (decision === 'interrupted') return this.interrupted(entry, tool, args);
		// resumeAgent refuses a decision by call numbers for a run paused on one call.
		if (decision === undefined || 'calls' in decision)
			throw new Error('a paused single call resumed without its decision');
		if ('deny' in decision)
			return this.observed(entry, tool, refusalObservation(tool, decision.deny));
		if ('edit' in decision)
			(entry.notices ??= []).push('a person edited the arguments before the call ran');
		entry.action = { tool, args: 'edit' in decision ? decision.edit : args };
		return this.act(entry, tool, entry.action.args, true);
	}

	/** The requested tool call: checked against the whitelist, its schema and max_tool_calls, then run (or paused for approval). */
	private async act(
		entry: TraceStep,
		name: string,
		args: Record<string, unknown>,
		approved = false,
	): Promise<StepOutcome> {
		this.tellAction(entry.step, name, args);
		const checked = checkToolCall(this.tools, name, args);
		if ('error' in checked) {
			this.tellObservation(entry.step, name, false, checked.error.message);
			return failedStep(entry, checked.error, 'tool_error');
		}
		if (!approved && this.config.approval_required.includes(name))
			return this.pause(entry, name, args);
		const recordStart = this.durable?.beforeCall(
			this.progress(entry.step, { tool: name, args }),
			this.redactor,
		);
		const repeat = this.repeats.decide(checked.tool, args, entry.step);
		if (repeat.next === 'loop') return limitReached(entry, 'loop', repeat.detail);
		if (repeat.next === 'answer') {
			entry.repeat_of = repeat.ofStep;
			return this.observed(entry, name, repeat.observation);
		}
		if (this.toolCalls >= this.config.max_tool_calls)
			return limitReached(
				entry,
				'max_tool_calls',
				`max_tool_calls (${this.config.max_tool_calls}) reached; ${name} was not run`,
			);

		if (recordStart) await recordStart();
		this.toolCalls++;
		const outcome = await this.callTool(checked.tool, name, args, entry.step);
		entry.tool_ms = Math.round(outcome.elapsedMs);
		countToolUse(this.usedTools, name, entry.tool_ms, outcome.ok);
		this.repeats.record(
			repeat.key,
			entry.step,
			outcome.ok ? outcome : { ok: false, message: outcome.error.message },
		);
		if (!outcome.ok) {
			this.tellObservation(entry.step, name, false, outcome.error.message);
			if (!outcome.runAborted) return failedStep(entry, outcome.error, 'tool_error');
			entry.error = outcome.error;
			return this.aborted();
		}
		return this.observed(entry, name, outcome.observation, outcome.files);
	}

	/** One checked call, under its own timeout and the run's signal (see tool-call.ts). */
	callTool(tool: Tool, name: string, args: Record<string, unknown>, step: number) {
		const { tools, redactor, trustedText, config, options, durable } = this;
		const { signal: runSignal } = this.runController;
		const context = {
			tools,
			redactor,
			trustedText,
			config,
			sessionId: options.sessionId,
			runSignal,
		};
		return callTool(context, tool, name, args, durable?.idempotencyKey(step, name, args));
	}

	/** The step's observation, in the trace, for the model and for the listener. */
	private observed(
		entry: TraceStep,
		name: string,
		observation: string,
		returned?: readonly FileInput[],
	): StepOutcome {
		let files: RunFile[] = [];
		if (returned) ({ observation, files } = this.takeFiles(observation, returned));
		if (files.length) entry.observation_files = fileRefs(files);
		this.tellObservation(entry.step, name, true, observation);
		entry.observation = observation;
		this.pushObservations(observationMessage(name, observation), files);
		return { next: 'continue' };
	}

	/** Ends the run `awaiting_approval`, with the call it waits for and a signed state to resume it with. */
	private pause(
		entry: TraceStep,
		tool: string,
		args: Record<string, unknown>,
		detail = `${tool} waits for a person's approval`,
		batch?: BatchState,
	): StepOutcome {
		return {
			next: 'finish',
			reason: 'awaiting_approval',
			detail,
			paused: pausedOutput(
				{ ...this.progress(entry.step, undefined, batch), pending: { tool, args } },
				this.redactor,
				this.options.stateSecret!,
				this.config,
			),
		};
	}

	/** Where the run stands at `step`, with the call it asked for and has not run (`pending`): for a paused run's state or a checkpoint. */
	private progress(
		step: number,
		pending?: RunProgress['pending'],
		batch?: BatchState,
	): RunProgress {
		const {
			conversation,
			newUserMessage: new_user_message,
			trace,
			usage,
			usedTools: used_tools,
			toolCalls: tool_calls,
			trustedText: trusted_text,
		} = this;
		const more = {
			cost: runCost(trace)?.total ?? 0,
			failures: this.failures.length,
			repeats: this.repeats.snapshot(),
		};
		return {
			step,
			...(pending ? { pending } : {}),
			...(batch ? { batch } : {}),
			conversation,
			new_user_message,
			trace,
			usage,
			used_tools,
			tool_calls,
			trusted_text,
			...more,
		};
	}

	/** A durable run's call that started before an interruption and was never recorded as done, with side effects: a person decides, or the run ends. */
	private interrupted(entry: TraceStep, tool: string, args: Record<string, unknown>): StepOutcome {
		const asks = this.config.approval_required.length > 0;
		const detail = interruptedDetail(tool, entry.step, asks);
		return asks
			? this.pause(entry, tool, args, detail)
			: { next: 'finish', reason: 'interrupted_call', detail };
	}

	/** After a failed step the model sees the error and gets one repair turn, unless the streak ends the run. */
	private repairOrEnd(
		error: StepError,
		reason: RepairReason,
	): { reason: FinishReason; detail: string } | undefined {
		const ended = this.failures.fail(error, reason);
		if (!ended)
			this.conversation.push({
				role: 'user',
				content: repairMessage(error.message, reason !== 'tool_error', this.config.prompt_examples),
			});
		return ended;
	}

	/** The run's signal fired: cancelled from outside, or the run's timeout. */
	aborted(): StepOutcome {
		return { next: 'finish', ...abortedReason(this.runController.signal.reason) };
	}

	private closeOpenStep(): void {
		if (this.openStep)
			this.openStep.entry.elapsed_ms = Math.round(performance.now() - this.openStep.started);
		this.openStep = undefined;
	}

	private chainOnce?: RunChain;
	/** Where the run's hash chain starts: made once, for the output's trace digest and the audit row alike. */
	get chain(): RunChain {
		this.chainOnce ??= runChainBase(this.config, this.tools.values(), this.redactor);
		return this.chainOnce;
	}

	private finish(
		finishReason: FinishReason,
		stopDetail?: string,
		answer?: RunAnswer,
		paused?: Record<string, unknown>,
	): AgentResult {
		this.closeOpenStep();
		const { trace, usedTools, usage, newUserMessage, redactor, started } = this;
		// Who answered last: the fallback, once it took over.
		const { name: model, chat } = this.models.answering;
		const result = runResult(
			{ finishReason, stopDetail, answer },
			{
				trace,
				usedTools,
				usage,
				newUserMessage,
				started,
				model,
				provider: chat.provider,
				chain: this.chain,
				memory: this.memory,
			},
			redactor,
			paused,
		);
		this.emit({ type: 'done', finish_reason: finishReason });
		return result;
	}

	/** A tool call on its way, for the listener (args redacted and summarised). */
	tellAction(step: number, tool: string, args: Record<string, unknown>): void {
		this.emit(() => ({
			type: 'action',
			step,
			tool,
			summary: actionSummary(tool, args, this.redactor),
		}));
	}

	/** What a tool call came to, for the listener. */
	tellObservation(step: number, tool: string, ok: boolean, text: string): void {
		const summary = () => observationSummary(text, this.redactor);
		this.emit(() => ({ type: 'observation', step, tool, ok, summary: summary() }));
	}

	/** `event` as a function where making it costs work (a redacted summary): a run nobody listens to skips it. */
	private emit(event: AgentEvent | (() => AgentEvent)): void {
		if (this.options.onEvent)
			tell(this.options.onEvent, typeof event === 'function' ? event() : event);
	}
}
