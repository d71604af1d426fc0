import type { ChatMessage } from '../core/messages';
import type { Tool } from '../tools/tool';
import { Redactor } from '../trace/redact';
import type { AgentResult, FinishReason, StepError, TraceStep } from '../trace/types';
import { AnswerRelease, holdBackFor } from './model/answer/answer-release';
import type { AgentConfig } from '../settings/config';
import { callEvents, tell, type AgentEvent } from './base/events';
import { toolSecrets } from './calls/execute-tool';
import {
	batchDecisions,
	callName,
	newBatch,
	runCalls,
	type BatchDecisions,
	type BatchState,
	type CallsRun,
} from './calls';
import { normaliseInput } from './setup/input';
import { newLedger } from './new-ledger';
import { abortedReason, runLimit } from './base/run-deadline';
import { modelTurn, type ModelTurnContext } from './model/model-turn';
import { ModelChoice } from './model/model-choice';
import { replyTurn } from './model/reply-turn';
import { repairMessage } from './protocol/prompt';
import { type ProtocolFormat, protocolFormat } from './protocol/protocol-schema';
import { type RunAnswer, type RunChain, runChainBase, runResult } from './result/run-result';
import { Spending } from './model/shared-budget';
import { checkRunOptions, RUN_AGENT_OPTIONS, type RunAgentOptions } from './base/run-options';
import type { RepairReason } from './base/failure-streak';
import { pausedOutput, type Resumed } from './pause/paused-run';
import { progressOf } from './pause/progress';
import { DurableRun } from './pause/checkpoints';
import { configureRun, noteSetUp, withMcpTools } from './setup/configure-run';
import { afterRun } from './result/after-run';
import { fitRunHistory, type RunMemory } from './memory/run-memory';
import type { StepOutcome } from './base/step-outcome';
import type { RunLedger } from './base/run-ledger';
import { fileRefs, NO_FILES, takeFiles, withFiles, type TakenFiles } from './setup/input-files';

/** Runs the ReAct loop (think → act → observe, one JSON turn at a time) until a final answer or a limit; never throws for anything the model or a tool does. */
export const runAgent = async (given: RunAgentOptions): Promise<AgentResult> => {
	// Before anything is opened: an option the run does not know (`baseURL`, `promt`) is a typo, not a no-op.
	checkRunOptions('runAgent', given, RUN_AGENT_OPTIONS);
	return withMcpTools(given, async (options) => {
		const { config, allowed } = configureRun(options);
		const { history, newUserMessage } = normaliseInput(options.prompt, options.messages);
		const taken = takeFiles(options, config);
		withFiles(newUserMessage, taken.files);
		const durable = await DurableRun.open(options, config, newUserMessage);
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
	private readonly ledger: RunLedger; // what the run has done: what a checkpoint or a paused state keeps
	private readonly runController = new AbortController();
	readonly redactor: Redactor;
	private readonly answerHoldBack: number; // answer text held back before it is streamed, so no known secret goes out in pieces
	private openStep?: { entry: TraceStep; started: number }; // the step being taken: a run that ends inside it still records its wall time
	private readonly models: ModelChoice;
	private readonly format: ProtocolFormat; // how replies are asked for (json_mode, the compiled protocol schema) and what they may contain
	private readonly spending: Spending;
	private readonly calls: CallsRun; // what the one call path is lent, step after step
	private memory?: RunMemory; // how the history was fitted to its token budget (issue #31)

	constructor(
		private readonly options: RunAgentOptions,
		readonly config: AgentConfig,
		readonly tools: ReadonlyMap<string, Tool>,
		private readonly history: ChatMessage[],
		newUserMessage: ChatMessage,
		private readonly resumed?: Resumed, // a paused run continued: its state replaces a fresh start (limits carry over; the timeout restarts)
		private readonly durable?: DurableRun, // with a run key: where each completed step is checkpointed (see checkpoints.ts)
		private readonly taken: TakenFiles = NO_FILES, // the files the caller gave, checked (see input-files.ts)
	) {
		const toolList = [...tools.values()];
		const { developerText } = options;
		const start = { config, tools: toolList, history, newUserMessage, developerText };
		this.ledger = newLedger({ ...start, files: taken.files }, resumed?.paused);
		const { json_mode, output_schema, max_parallel_calls } = config;
		this.format = protocolFormat(json_mode, toolList, output_schema, max_parallel_calls);
		this.models = new ModelChoice(options.model, options.fallbackModel, config.model);
		this.spending = new Spending(config, options.budgetLedger, this.models.candidates);
		const knownSecrets = [
			...(options.secrets ?? []),
			...this.models.secrets,
			...toolSecrets(tools, config.tool_settings),
		];
		this.redactor = new Redactor(knownSecrets);
		this.answerHoldBack = options.streamAnswer === 'checked' ? Infinity : holdBackFor(knownSecrets);
		const { redactor, ledger } = this;
		const { trustedText } = ledger;
		const context = { tools, config, redactor, trustedText, sessionId: options.sessionId };
		this.calls = {
			context: { ...context, runSignal: this.runController.signal },
			ledger,
			durable,
			tell: callEvents(options.onEvent, redactor),
			givenFiles: taken.files,
		};
	}

	async run(): Promise<AgentResult> {
		const limit = runLimit(this.runController, this.config.timeout, this.options.signal);
		try {
			const { config, models, spending } = this;
			const { usage, trace, conversation } = this.ledger;
			const runSignal = this.runController.signal;
			const provider = models.answering.chat.provider;
			const fit = { config, models, spending, usage, trace, conversation, runSignal, provider };
			if (!this.resumed) this.memory = await fitRunHistory(fit, this.history);
			const result = await afterRun(await this.loop(), this, this.options);
			await this.durable?.finish(result);
			return result;
		} finally {
			limit.dispose();
		}
	}

	/** Step after step until one finishes the run, a second failure in a row ends it, or max_steps is reached. */
	private async loop(): Promise<AgentResult> {
		// A step's calls part way through (paused for a person, or checkpointed inside them) go on at their step.
		const paused = this.resumed?.paused;
		const resumedAt = paused?.batch ? paused.step : undefined;
		const { failures } = this.ledger;
		for (let step = resumedAt ?? (paused?.step ?? 0) + 1; step <= this.config.max_steps; step++) {
			const outcome =
				step === resumedAt
					? await this.decided(paused!.batch!)
					: ((await this.limitBeforeStep()) ?? (await this.takeStep(step)));
			this.closeOpenStep();
			if (outcome.next === 'finish')
				return this.finish(outcome.reason, outcome.detail, outcome.answer, outcome.paused);
			if (outcome.next === 'continue') failures.reset();
			const ended =
				outcome.next === 'repair' ? this.repairOrEnd(outcome.error, outcome.reason) : undefined;
			if (ended) return this.finish(ended.reason, ended.detail);
			await this.durable?.saveStep(progressOf(this.ledger, step), this.redactor);
		}
		return this.finish('max_steps', `no final answer within max_steps (${this.config.max_steps})`);
	}

	/** The limits that end a run before its next model call: the token budget, the shared budget, and the run's signal. */
	private async limitBeforeStep(): Promise<StepOutcome | undefined> {
		const budget = this.config.total_token_budget;
		const { usage, trace } = this.ledger;
		if (budget > 0 && usage.total_tokens >= budget) {
			return {
				next: 'finish',
				reason: 'token_budget',
				detail: `token usage ${usage.total_tokens} reached total_token_budget ${budget}`,
			};
		}
		const signal = this.runController.signal;
		return (
			(await this.spending.stopBeforeCall(trace, trace.length > 0)) ??
			(signal.aborted ? { next: 'finish', ...abortedReason(signal.reason) } : undefined)
		);
	}

	/** One model turn and, when it asks for them, its tool calls. */
	private async takeStep(step: number): Promise<StepOutcome> {
		const { ledger, config } = this;
		const entry: TraceStep = {
			step,
			repair: ledger.failures.repairing,
			elapsed_ms: 0,
			model_ms: 0,
		};
		if (step === 1) {
			noteSetUp(entry, this.format.notice, config, this.tools.values());
			const files = fileRefs(ledger.newUserMessage.files);
			if (files) entry.files = files;
			if (this.taken.notices.length)
				entry.notices = [...(entry.notices ?? []), ...this.taken.notices];
		}
		ledger.trace.push(entry);
		this.openStep = { entry, started: performance.now() };
		this.emit({ type: 'step_start', step });

		const asked = await modelTurn(entry, this.modelTurnContext);
		if ('next' in asked) return asked;
		const { response, release } = asked;
		this.replies.set(step, response.text);
		const { format, tools } = this;
		const turn = replyTurn(entry, response, { config, format, tools, release });
		return 'calls' in turn ? this.act(entry, newBatch(turn.calls, turn.form)) : turn;
	}

	/** The step's calls through the one call path; a pause there ends the run awaiting a person. */
	private async act(
		entry: TraceStep,
		batch: BatchState,
		decisions?: BatchDecisions,
	): Promise<StepOutcome> {
		const outcome = await runCalls(this.calls, entry, batch, decisions);
		if (outcome.next !== 'pause') return outcome;
		batch.waiting = outcome.at;
		const { tool, args } = batch.calls[outcome.at];
		const name = batch.form === 'action' ? tool : callName(batch, outcome.at);
		const detail = outcome.detail ?? `${name} waits for a person's approval`;
		const pending = { tool, args };
		const progress = { ...progressOf(this.ledger, entry.step, batch), pending, batch };
		const { stateSecret } = this.options;
		const paused = pausedOutput(progress, this.redactor, stateSecret!, this.config);
		return { next: 'finish', reason: 'awaiting_approval', detail, paused };
	}

	/** What each step's model call needs: answers stream to the listener, when there is one. */
	private get modelTurnContext(): ModelTurnContext {
		const { config, models, spending, ledger, redactor, answerHoldBack } = this;
		const emit = (event: AgentEvent) => this.emit(event);
		const listening = this.options.onEvent !== undefined;
		const release = () =>
			listening ? new AnswerRelease(redactor, answerHoldBack, emit) : undefined;
		const runSignal = this.runController.signal;
		return { config, models, spending, ledger, format: this.format.format, runSignal, release };
	}

	/** A resumed run's step: its calls go on, with the person's decisions when it paused for them. */
	private decided(batch: BatchState): Promise<StepOutcome> {
		const { trace } = this.ledger;
		const entry = trace[trace.length - 1];
		this.openStep = { entry, started: performance.now() };
		const decisions = batchDecisions(batch, this.resumed!.decision);
		const single = batch.form === 'action';
		if ([...decisions.values()].some((one) => 'edit' in one))
			(entry.notices ??= []).push(
				`a person edited the arguments ${single ? 'before the call' : 'of a call before it'} ran`,
			);
		// One call runs exactly as asked for (or edited): the trace's copy was redacted in the state.
		if (single && !('deny' in (decisions.get(0) ?? {}))) entry.action = { ...batch.calls[0] };
		return this.act(entry, batch, decisions);
	}

	/** After a failed step the model sees the error and gets one repair turn, unless the streak ends the run. */
	private repairOrEnd(
		error: StepError,
		reason: RepairReason,
	): { reason: FinishReason; detail: string } | undefined {
		const ended = this.ledger.failures.fail(error, reason);
		if (!ended)
			this.ledger.conversation.push({
				role: 'user',
				content: repairMessage(error.message, reason !== 'tool_error', this.config.prompt_examples),
			});
		return ended;
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
		// Who answered last: the fallback, once it took over.
		const { name: model, chat } = this.models.answering;
		const { started, chain, memory } = this;
		const record = { ...this.ledger, started, model, provider: chat.provider, chain, memory };
		const ending = { finishReason, stopDetail, answer };
		const result = runResult(ending, record, this.redactor, paused);
		this.emit({ type: 'done', finish_reason: finishReason });
		return result;
	}

	/** `event` for the listener, if there is one. */
	private emit(event: AgentEvent): void {
		if (this.options.onEvent) tell(this.options.onEvent, event);
	}
}
