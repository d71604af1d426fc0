import { randomUUID } from 'node:crypto';
import type { ChatMessage } from '../core/messages';
import type { Tool } from '../tools/tool';
import { Redactor } from '../trace/redact';
import type { AgentResult, TraceStep } from '../trace/types';
import { AnswerRelease, holdBackFor } from './model/answer/answer-release';
import type { AgentConfig } from '../settings/config';
import { callEvents, planEvent, tell, type AgentEvent } from './base/events';
import type { PlanRun } from './base/plan-run';
import { planTurn, rejectedPlan, runPlanGroup, type PlanTurnContext } from './plan';
import { toolSecrets } from './calls/execute-tool';
import type { CallsRun } from './calls/calls-run';
import { newBatch, stepCalls } from './calls/step-calls';
import { resumedDecisions } from './calls/call-decisions';
import type { BatchState } from './pause/calls-state';
import { newLedger, normaliseInput } from './run-start';
import { resumedChild } from './resumed-run';
import { AGENT_RESUME } from './subagent/run-sub-agent';
import { runLimit } from './base/run-clock';
import { limitBeforeStep, modelTurn, repairOrEnd, replyTurn } from './model/model-turn';
import type { ModelTurnContext } from './model/model-turn';
import { ModelChoice } from './model/model-call';
import { type ProtocolFormat, protocolFormat } from './protocol/protocol-schema';
import { afterRun, type RunChain, runChainBase, runResult } from './result/run-result';
import { runCost, Spending } from './model/shared-budget';
import { checkRunOptions, RUN_AGENT_OPTIONS, type RunAgentOptions } from './base/run-options';
import type { Resumed } from './pause/paused-run';
import { progressOf } from './pause/progress';
import { DurableRun } from './pause/checkpoints';
import { configureRun, hasHooks, noteFirstStep, withMcpServers } from './setup/configure-run';
import { tripped } from './result/guardrails-tripped';
import { fitRunHistory, type RunMemory } from './memory/compaction';
import type { StepOutcome } from './base/step-outcome';
import type { RunLedger } from './base/run-ledger';
import { NO_FILES, takeFiles, withFiles, type TakenFiles } from './setup/input-files';
import { afterModel, afterRun as answerHooks, beforeModel, onFailure } from './hooks';
import type { HookChain } from './hooks/hook-chain';
import { checkHooks } from './hooks/check-hooks';
import { beforeRun, blockedBeforeRun, runHooks, type HooksStart } from './setup/before-run';

/** Runs the ReAct loop (think → act → observe, one JSON turn at a time) until a final answer or a limit; never throws for anything the model or a tool does. */
export const runAgent = async (given: RunAgentOptions): Promise<AgentResult> => {
	// Before anything is opened: an option the run does not know (`baseURL`, `promt`) is a typo, not a no-op.
	checkRunOptions('runAgent', given, RUN_AGENT_OPTIONS);
	if (given.hooks !== undefined) checkHooks(given.hooks);
	return withMcpServers(given, async (options) => {
		const { config, allowed } = configureRun(options);
		// A sub-agent that paused for a person goes on from its state, with the decision its parent carried down.
		const child = AGENT_RESUME in options ? resumedChild(options, config, allowed) : undefined;
		if (child)
			return new AgentRun(options, config, allowed, [], child.paused.new_user_message, child).run();
		const input = normaliseInput(options.prompt, options.messages);
		const taken = options.files?.length ? takeFiles(options, config) : NO_FILES;
		if (taken.files.length) withFiles(input.newUserMessage, taken.files);
		const durable =
			options.runKey === undefined
				? undefined
				: await DurableRun.open(options, config, input.newUserMessage);
		if (durable?.found.finished) return durable.found.finished;
		const { resumed } = durable?.found ?? {};
		// A run that goes on from a checkpoint had its input checked when it started; one with no hooks has none to check.
		const start =
			resumed || !hasHooks(options, config) ? undefined : await beforeRun(options, config, input);
		const { history, newUserMessage } = start ?? input;
		const parts = [allowed, history, newUserMessage, resumed, durable, taken, start] as const;
		return new AgentRun(options, config, ...parts).run();
	});
};

export class AgentRun {
	private readonly started = performance.now();
	readonly runId = randomUUID(); // the audit row's id, and what a sub-agent's row names as its parent
	readonly replies = new Map<number, string>(); // each step's model reply, for the audit (see afterRun)
	private readonly ledger: RunLedger; // what the run has done: what a checkpoint or a paused state keeps
	private readonly runController = new AbortController();
	readonly redactor: Redactor;
	private readonly answerHoldBack?: number; // answer text held back before it is streamed, so no known secret goes out in pieces
	private openStep?: { entry: TraceStep; started: number }; // the step being taken: a run that ends inside it still records its wall time
	private readonly models: ModelChoice;
	private readonly format: ProtocolFormat; // how replies are asked for (json_mode, the compiled protocol schema) and what they may contain
	private readonly spending: Spending;
	private readonly calls: CallsRun; // what the one call path is lent, step after step
	private memory?: RunMemory; // how the history was fitted to its token budget (issue #31)
	private readonly hooks?: HookChain; // the library hooks, then the built-in guardrails (issue #50); none, no chain

	constructor(
		private readonly options: RunAgentOptions,
		readonly config: AgentConfig,
		readonly tools: ReadonlyMap<string, Tool>,
		private readonly history: ChatMessage[],
		newUserMessage: ChatMessage,
		private readonly resumed?: Resumed, // a paused run continued: its state replaces a fresh start (limits carry over; the timeout restarts)
		private readonly durable?: DurableRun, // with a run key: where each completed step is checkpointed (see checkpoints.ts)
		private readonly taken: TakenFiles = NO_FILES, // the files the caller gave, checked (see input-files.ts)
		private readonly begun?: HooksStart, // before_run's decisions, or its block (a resumed run has none)
	) {
		const toolList = [...tools.values()];
		const { developerText } = options;
		const start = { config, tools: toolList, history, newUserMessage, developerText };
		this.ledger = newLedger({ ...start, files: taken.files }, resumed?.paused);
		const { json_mode: json, output_schema: schema, max_parallel_calls: most } = config;
		this.format = protocolFormat(json, toolList, schema, most, config.mode === 'plan');
		this.models = new ModelChoice(options.model, options.fallbackModel, config.model);
		this.spending = new Spending(config, options.budgetLedger, this.models.candidates);
		const knownSecrets = [
			...(options.secrets ?? []),
			...this.models.secrets,
			...toolSecrets(tools, config.tool_settings),
		];
		this.redactor = new Redactor(knownSecrets);
		const runSignal = this.runController.signal;
		if (hasHooks(options, config))
			this.hooks = (begun?.chain ?? runHooks(options, config)).under(runSignal);
		// An answer that after_run may block or change is held until it is checked (the checked-stream mode).
		const checked = options.streamAnswer === 'checked' || this.hooks?.has('after_run') === true;
		if (options.onEvent !== undefined)
			this.answerHoldBack = checked ? Infinity : holdBackFor(knownSecrets);
		const { redactor, ledger } = this;
		const spent = () => runCost(ledger.trace)?.total ?? 0;
		const deadline = this.started + config.timeout * 1000;
		const { sessionId } = options;
		const context = { tools, config, redactor, trustedText: ledger.trustedText, sessionId };
		this.calls = {
			context: { ...context, runSignal },
			ledger,
			durable,
			tell: callEvents(options.onEvent, redactor),
			givenFiles: taken.files,
			hooks: this.hooks,
			// Sub-agents (issue #52) run inside this run's time and cost: its deadline, what it spent so far.
			agents: { options, deadline, spent, start: runAgent, runId: this.runId },
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
			const stop = this.begun && blockedBeforeRun(trace, this.begun); // before_run's block, if it blocked
			if (!this.resumed && !stop) this.memory = await fitRunHistory(fit, this.history);
			const ended = stop?.next === 'finish' ? this.finish(stop) : await this.loop();
			const result = await afterRun(ended, this, this.options);
			if (this.hooks) await onFailure(this.hooks, result);
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
		const { ledger, config, spending, runController } = this;
		const { failures } = ledger;
		const last = () => this.config.max_steps + (ledger.plan?.entries ?? 0); // a plan's steps are no model turns
		for (let step = resumedAt ?? (paused?.step ?? 0) + 1; step <= last(); step++) {
			const outcome =
				step === resumedAt
					? await this.decided(paused!.batch!)
					: ledger.plan?.phase === 'running' || ledger.plan?.phase === 'rejected'
						? (rejectedPlan(ledger.plan) ?? (await this.planStep(step)))
						: ((await limitBeforeStep(config, ledger, spending, runController.signal)) ??
							(await this.takeStep(step)));
			this.closeOpenStep();
			if (outcome.next === 'finish') return this.finish(outcome);
			if (outcome.next === 'continue') failures.reset();
			const examples = this.config.prompt_examples; // a failed step: one repair turn, unless the streak ends the run
			const ended = outcome.next === 'repair' && repairOrEnd(ledger, outcome, examples);
			if (ended) return this.finish(ended);
			await this.durable?.saveStep(progressOf(this.ledger, step), this.redactor);
		}
		const detail = `no final answer within max_steps (${this.config.max_steps})`;
		return this.finish({ reason: 'max_steps', detail });
	}

	/** One model turn and, when it asks for them, its tool calls. */
	private async takeStep(step: number): Promise<StepOutcome> {
		const { ledger, config } = this;
		const entry = this.openEntry(step, ledger.failures.repairing);
		const start = { files: ledger.newUserMessage.files, taken: this.taken, begun: this.begun };
		if (step === 1) noteFirstStep(entry, this.format.notice, config, this.tools.values(), start);

		const { hooks, runController } = this;
		const signal = runController.signal;
		const hooked = { beforeModel: hooks && beforeModel(hooks, entry, signal) };
		const asked = await modelTurn(entry, { ...this.modelTurnContext, ...hooked });
		if ('next' in asked) return asked;
		const { response, release } = asked;
		this.replies.set(step, response.text);
		const blocked = hooks && (await afterModel(hooks, entry, response.text, signal));
		if (blocked) release?.finishWithoutAnswer('a guardrail stopped the reply');
		if (blocked) return blocked;
		const { format, tools } = this;
		// An answer after_run checks is released (or called off) there, not as the reply is read.
		const checks = hooks?.has('after_run') ? hooks : undefined;
		const reading = { config, format, tools, release: checks ? undefined : release };
		const read = replyTurn(entry, response, reading);
		const inPlan = 'planned' in read || config.mode === 'plan';
		const turn = inPlan ? planTurn(entry, read, this.planContext) : read;
		if ('calls' in turn) {
			const secret = this.options.stateSecret;
			return stepCalls(this.calls, entry, newBatch(turn.calls, turn.form), secret);
		}
		if (turn.next !== 'finish' || turn.reason !== 'final' || !turn.answer || !checks) {
			if (checks) release?.finishWithoutAnswer('the reply was not an answer');
			return turn;
		}
		const answer = { ...turn, answer: turn.answer };
		return answerHooks(checks, entry, answer, config.output_schema, signal, release);
	}

	/** A new step of the trace, open from now: the listener hears it start. */
	private openEntry(step: number, repair: boolean): TraceStep {
		const entry: TraceStep = { step, repair, elapsed_ms: 0, model_ms: 0 };
		this.ledger.trace.push(entry);
		this.openStep = { entry, started: performance.now() };
		this.emit({ type: 'step_start', step });
		return entry;
	}

	/** What each step's model call needs: answers stream to the listener, when there is one (a hold-back is set). */
	private get modelTurnContext(): ModelTurnContext {
		const { config, models, spending, ledger, redactor, answerHoldBack } = this;
		const emit = (event: AgentEvent) => this.emit(event);
		const release = () =>
			answerHoldBack === undefined ? undefined : new AnswerRelease(redactor, answerHoldBack, emit);
		const runSignal = this.runController.signal;
		return { config, models, spending, ledger, format: this.format.format, runSignal, release };
	}

	/** A resumed run's step: its calls go on, with the person's decisions when it paused for them. */
	private decided(batch: BatchState): Promise<StepOutcome> {
		const { trace } = this.ledger;
		const entry = trace[trace.length - 1];
		this.openStep = { entry, started: performance.now() };
		const decisions = resumedDecisions(entry, batch, this.resumed!.decision);
		const secret = this.options.stateSecret;
		if (batch.plan) return runPlanGroup(this.calls, entry, secret, { batch, decisions });
		return stepCalls(this.calls, entry, batch, secret, decisions);
	}

	/** The plan's next group of steps as one trace step, with no model call (see plan/plan-group.ts). */
	private planStep(step: number): Promise<StepOutcome> {
		this.ledger.plan!.entries++;
		return runPlanGroup(this.calls, this.openEntry(step, false), this.options.stateSecret);
	}

	/** What a reply in plan mode is read against; the listener hears of a plan that passed. */
	private get planContext(): PlanTurnContext {
		const { config, tools, ledger, redactor } = this;
		const onPlan = (plan: PlanRun, step: number) => this.emit(planEvent(plan, step, redactor));
		return { config, tools, ledger, onPlan, redactor, stateSecret: this.options.stateSecret };
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

	/** The run's result: how it ended (a step's `finish`), with everything it did. */
	private finish(end: Omit<Extract<StepOutcome, { next: 'finish' }>, 'next'>): AgentResult {
		const { reason: finishReason, detail: stopDetail, answer, paused } = end;
		this.closeOpenStep();
		const { name: model, chat } = this.models.answering; // who answered last: the fallback, once it took over
		const { started, chain, memory } = this;
		const record = { ...this.ledger, started, model, provider: chat.provider, chain, memory };
		const ending = { finishReason, stopDetail, answer };
		const result = runResult(ending, record, this.redactor, paused);
		if (this.hooks?.active)
			result.guardrails_tripped = tripped(this.ledger.trace, this.begun?.decisions);
		this.emit({ type: 'done', finish_reason: finishReason });
		return result;
	}

	/** `event` for the listener, if there is one. */
	private emit(event: AgentEvent): void {
		if (this.options.onEvent) tell(this.options.onEvent, event);
	}
}
