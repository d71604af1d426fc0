import type { ChatMessage, ChatModel, ChatResponse, TokenUsage } from '../providers/chat-model';
import { ToolRegistry, builtInTools } from '../tools/registry';
import type { Tool } from '../tools/tool';
import { Redactor } from '../trace/redact';
import { readableStep } from '../trace/readable-step';
import type { AgentResult, FinishReason, StepError, ToolUsage, TraceStep } from '../trace/types';
import { AnswerRelease, holdBackFor } from './answer-release';
import { type AgentConfig, resolveConfig } from './config';
import { actionSummary, observationSummary, type AgentEvent, type AgentEventListener } from './events';
import { checkToolCall, describeAbort, runTool, toolSecrets } from './execute-tool';
import { normaliseInput } from './input';
import { callSignal, raceAbort, TimeLimitError } from './limits';
import { buildConversation, repairMessage } from './prompt';
import { responseFormatFor } from './protocol-schema';
import { nativeToolCallError, outputLimitError, parseTurn, type ParsedTurn } from './protocol';
import { addUsage, sanitiseUsage } from '../providers/usage';

/** Everything one run needs. `config` is checked like a config file (unknown keys and bad values throw). */
export interface RunAgentOptions {
  model: ChatModel;
  config: Partial<AgentConfig> & { model: string };
  /** Single-turn input. With `messages` too, it is appended as the newest user message. */
  prompt?: string;
  /** Conversation so far in neutral form (e.g. from the Agent Context node); must end with a user message unless `prompt` is given. */
  messages?: unknown;
  /** Extra system text from the workflow: the task, its constraints. */
  developerText?: string;
  /** Tools beyond the built-in ones (e.g. n8n sub-workflows); `allowed_tools` still decides what is offered. */
  extraTools?: readonly Tool[];
  sessionId?: string;
  /** Cancels the run (finish reason `cancelled`). */
  signal?: AbortSignal;
  /** Values never to appear in any output (e.g. the provider API key); secrets in tool settings are added. */
  secrets?: readonly string[];
  /**
   * Told what happens as it happens (steps, tool calls, the final answer's text as the model writes it).
   * With it the model is asked to stream its replies; without it no model call streams.
   */
  onEvent?: AgentEventListener;
}

const REPLY_EXCERPT = 500;

/** Runs the ReAct loop (think → act → observe, one JSON turn at a time) until a final answer or a limit; never throws for anything the model or a tool does. */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const registry = new ToolRegistry([...builtInTools, ...(options.extraTools ?? [])]);
  const config = resolveConfig(options.config, registry);
  const { history, newUserMessage } = normaliseInput(options.prompt, options.messages);
  const allowed = new Map(config.allowed_tools.map((name) => [name, registry.get(name)!]));
  return new AgentRun(options, config, allowed, history, newUserMessage).run();
}

class AgentRun {
  private readonly started = performance.now();
  private readonly trace: TraceStep[] = [];
  private readonly usedTools: Record<string, ToolUsage> = {};
  private readonly usage: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  private readonly conversation: ChatMessage[];
  private readonly runController = new AbortController();
  private readonly redactor: Redactor;
  /** How much answer text is held back before it is streamed, so that no known secret goes out in pieces. */
  private readonly answerHoldBack: number;
  /** The current reply's answer text on its way to the listener; only when there is one. */
  private answerRelease?: AnswerRelease;
  private toolCalls = 0;
  /** The step being taken, so a run that ends inside it still records the step's wall time. */
  private openStep?: { entry: TraceStep; started: number };
  private consecutiveFailures = 0;
  private lastFailureType?: StepError['type'];

  constructor(
    private readonly options: RunAgentOptions,
    private readonly config: AgentConfig,
    private readonly tools: ReadonlyMap<string, Tool>,
    history: ChatMessage[],
    private readonly newUserMessage: ChatMessage,
  ) {
    this.conversation = buildConversation([...tools.values()], history, options.developerText, config.prompt_examples);
    const knownSecrets = [...(options.secrets ?? []), ...(options.model.secrets ?? []), ...toolSecrets(tools, config.tool_settings)];
    this.redactor = new Redactor(knownSecrets);
    this.answerHoldBack = holdBackFor(knownSecrets);
  }

  async run(): Promise<AgentResult> {
    const runTimer = setTimeout(
      () => this.runController.abort(new TimeLimitError('run', `the run did not finish within timeout (${this.config.timeout} s)`)),
      this.config.timeout * 1000,
    );
    const external = this.options.signal;
    const cancel = () => this.runController.abort(new TimeLimitError('cancelled', 'the run was cancelled'));
    if (external?.aborted) cancel();
    external?.addEventListener('abort', cancel, { once: true });
    try {
      return await this.loop();
    } finally {
      clearTimeout(runTimer);
      external?.removeEventListener('abort', cancel);
    }
  }

  private async loop(): Promise<AgentResult> {
    for (let step = 1; step <= this.config.max_steps; step++) {
      const budget = this.config.total_token_budget;
      if (budget > 0 && this.usage.total_tokens >= budget) {
        return this.finish('token_budget', `token usage ${this.usage.total_tokens} reached total_token_budget ${budget}`);
      }
      if (this.runController.signal.aborted) return this.finishAborted();

      const entry: TraceStep = { step, repair: this.consecutiveFailures > 0, elapsed_ms: 0, model_ms: 0 };
      this.trace.push(entry);
      this.openStep = { entry, started: performance.now() };
      this.emit({ type: 'step_start', step });
      const ended = await this.takeStep(entry);
      this.closeOpenStep();
      if (ended) return ended;
    }
    return this.finish('max_steps', `no final answer within max_steps (${this.config.max_steps})`);
  }

  /** One model turn and its tool call; returns the result when the run ends here. */
  private async takeStep(entry: TraceStep): Promise<AgentResult | undefined> {
    const response = await this.callModel(entry);
    if ('finish' in response) return response.finish;

    const turn = this.readTurn(response);
    if (turn.reasoning) entry.reasoning = turn.reasoning;
    if (turn.kind === 'final') this.answerRelease?.finishWithAnswer(turn.answer);
    else this.answerRelease?.finishWithoutAnswer(turn.kind === 'action' ? 'the reply was a tool call' : 'the reply broke the protocol');
    if (turn.kind === 'error') {
      entry.reply_excerpt = response.text.slice(0, REPLY_EXCERPT);
      if (response.finishReason === 'content_filter') {
        entry.error = { type: 'content_filter', message: 'the provider withheld the reply (its safety filter)' };
        return this.finish('content_filter', entry.error.message);
      }
      if (response.finishReason === 'length') {
        return this.fail(entry, { type: 'output_limit', message: turn.message }, 'max_output_tokens');
      }
      return this.fail(entry, { type: 'parse_error', message: turn.message }, 'parse_error');
    }
    if (turn.kind === 'final') {
      entry.final = { answer: turn.answer };
      return this.finish('final', undefined, turn.answer);
    }

    entry.action = { tool: turn.tool, args: turn.args };
    this.emit({ type: 'action', step: entry.step, tool: turn.tool, summary: actionSummary(turn.tool, turn.args, this.redactor) });
    const checked = checkToolCall(this.tools, turn.tool, turn.args);
    if ('error' in checked) {
      this.emit({ type: 'observation', step: entry.step, tool: turn.tool, ok: false, summary: observationSummary(checked.error.message, this.redactor) });
      return this.fail(entry, checked.error, 'tool_error');
    }
    if (this.toolCalls >= this.config.max_tool_calls) {
      entry.error = { type: 'limit', message: `max_tool_calls (${this.config.max_tool_calls}) reached; ${turn.tool} was not run` };
      return this.finish('max_tool_calls', entry.error.message);
    }

    this.toolCalls++;
    const outcome = await runTool(checked.tool, {
      tools: this.tools,
      name: turn.tool,
      args: turn.args,
      settings: Object.prototype.hasOwnProperty.call(this.config.tool_settings, turn.tool) ? this.config.tool_settings[turn.tool] : {},
      redactor: this.redactor,
      runSignal: this.runController.signal,
      singleCallTimeout: this.config.single_call_timeout,
      observationMaxLength: this.config.observation_max_len,
      sessionId: this.options.sessionId,
    });
    entry.tool_ms = Math.round(outcome.elapsedMs);
    const usage = (this.usedTools[turn.tool] ??= { count: 0, total_ms: 0 });
    usage.count++;
    usage.total_ms += entry.tool_ms;
    const summary = observationSummary(outcome.ok ? outcome.observation : outcome.error.message, this.redactor);
    this.emit({ type: 'observation', step: entry.step, tool: turn.tool, ok: outcome.ok, summary });

    if (!outcome.ok) {
      if (outcome.runAborted) {
        entry.error = outcome.error;
        return this.finishAborted();
      }
      return this.fail(entry, outcome.error, 'tool_error');
    }
    this.consecutiveFailures = 0;
    this.lastFailureType = undefined;
    entry.observation = outcome.observation;
    this.conversation.push({ role: 'user', content: `Observation from ${turn.tool}:\n${outcome.observation}` });
    return undefined;
  }

  /** The reply as a protocol turn; a native function call or a reply cut at the output limit gets its own repair text. */
  private readTurn(response: ChatResponse): ParsedTurn {
    const turn = parseTurn(response.text);
    if (turn.kind !== 'error') return turn;
    if (response.text.trim() === '' && response.nativeToolCalls?.length) return nativeToolCallError(response.nativeToolCalls);
    if (response.finishReason === 'length') return { ...outputLimitError(this.config.max_output_tokens), reasoning: turn.reasoning };
    return turn;
  }

  private async callModel(entry: TraceStep): Promise<ChatResponse | { finish: AgentResult }> {
    const call = callSignal(this.runController.signal, this.config.single_call_timeout);
    const started = performance.now();
    const release = this.options.onEvent ? new AnswerRelease(this.redactor, this.answerHoldBack, (event) => this.emit(event)) : undefined;
    this.answerRelease = release;
    try {
      const work = this.options.model.generate({
        model: this.config.model,
        messages: this.conversation,
        temperature: this.config.temperature,
        maxOutputTokens: this.config.max_output_tokens,
        reasoningEffort: this.config.reasoning_effort,
        responseFormat: responseFormatFor(this.config.json_mode),
        signal: call.signal,
        ...(release ? { onTextDelta: (piece: string) => release.text(piece), onTextReset: () => release.reset('the model call was retried') } : {}),
      });
      const response = await raceAbort(work, call.signal);
      const usage = sanitiseUsage(response.usage);
      entry.usage = usage;
      if (response.notices?.length) entry.notices = response.notices;
      addUsage(this.usage, usage);
      this.conversation.push({ role: 'assistant', content: response.text });
      return response;
    } catch (error) {
      release?.finishWithoutAnswer('the model call failed');
      if (this.runController.signal.aborted) {
        entry.error = { type: 'timeout', message: describeAbort(this.runController.signal.reason) };
        return { finish: this.finishAborted() };
      }
      if (call.timedOut()) {
        entry.error = { type: 'timeout', message: `model call: ${describeAbort(call.signal.reason)}` };
        return { finish: this.finish('timeout', entry.error.message) };
      }
      const message = error instanceof Error ? error.message : String(error);
      // openai-node's APIError and @google/genai's ApiError both carry the HTTP status as `status`.
      const status = (error as { status?: unknown } | null)?.status;
      entry.error = { type: 'llm_error', message: `model call failed: ${message}`, ...(typeof status === 'number' ? { status } : {}) };
      return { finish: this.finish('llm_error', entry.error.message) };
    } finally {
      entry.model_ms = Math.round(performance.now() - started);
      call.dispose();
    }
  }

  /**
   * A failed step: the model sees the error and gets one repair turn; a second failure in a row ends the
   * run, with `max_output_tokens` only when both replies were cut at the output limit.
   */
  private fail(entry: TraceStep, error: StepError, reason: 'parse_error' | 'tool_error' | 'max_output_tokens'): AgentResult | undefined {
    entry.error = error;
    this.consecutiveFailures++;
    const previousCut = this.lastFailureType === 'output_limit';
    this.lastFailureType = error.type;
    if (this.consecutiveFailures >= 2) {
      const finishReason = reason === 'max_output_tokens' && !previousCut ? 'parse_error' : reason;
      return this.finish(finishReason, `two failed turns in a row; last: ${error.message}`);
    }
    this.conversation.push({ role: 'user', content: repairMessage(error.message, reason !== 'tool_error', this.config.prompt_examples) });
    return undefined;
  }

  private finishAborted(): AgentResult {
    const reason = this.runController.signal.reason;
    const cancelled = reason instanceof TimeLimitError && reason.scope === 'cancelled';
    return this.finish(cancelled ? 'cancelled' : 'timeout', describeAbort(reason));
  }

  private closeOpenStep(): void {
    if (!this.openStep) return;
    this.openStep.entry.elapsed_ms = Math.round(performance.now() - this.openStep.started);
    this.openStep = undefined;
  }

  private finish(finishReason: FinishReason, stopDetail?: string, answer = ''): AgentResult {
    this.closeOpenStep();
    const messages = [this.newUserMessage];
    if (finishReason === 'final') messages.push({ role: 'assistant', content: answer });
    // Everything the run writes goes through the redactor; the model saw the real values where calls needed them.
    const result = this.redactor.value({
      final_answer: answer,
      finish_reason: finishReason,
      trace: this.trace.map(readableStep),
      used_tools: this.usedTools,
      usage: this.usage,
      messages,
      ...(stopDetail ? { stop_detail: stopDetail } : {}),
      elapsed_ms: Math.round(performance.now() - this.started),
      model: this.config.model,
      provider: this.options.model.provider,
    });
    this.emit({ type: 'done', finish_reason: finishReason });
    return result;
  }

  private emit(event: AgentEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // The listener only watches: its failure must not change the run or its result.
    }
  }
}
