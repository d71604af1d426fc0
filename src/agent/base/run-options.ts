import type { Tracer } from '@opentelemetry/api';
import type { AuditOrigin, ForkedFrom } from '../../audit/record';
import type { PostgresTarget } from '../../audit/postgres-sink';
import type { BudgetLedger } from '../../budget/ledger';
import type { CheckpointStore } from '../../run-state/checkpoint-store';
import type { ChatModel } from '../../providers/chat-model';
import type { Tool } from '../../tools/tool';
import type { McpPinStore } from '../../tools/mcp';
import type { AgentConfig } from '../../settings/config';
import type { AgentEventListener } from './events';
import type { AgentHook } from './hook-types';
import type { FileInput } from '../../files';
import { checkKnownOptions, type OptionNames } from '../../core/known-options';
import { checkPostgresTarget } from '../../audit/postgres-connection';
import { SETTINGS } from '../../settings/settings';

/** Everything one run needs. `config` is checked like a config file (unknown keys and bad values throw). */
export interface RunAgentOptions {
	model: ChatModel;
	config: Partial<AgentConfig> & { model: string };
	/** Single-turn input. With `messages` too, it is appended as the newest user message. */
	prompt?: string;
	/** Conversation so far in neutral form (e.g. from the Agent Context node); must end with a user message unless `prompt` is given. */
	messages?: unknown;
	/**
	 * Files sent with the user's message (an invoice PDF, a photo, a CSV): checked before any model call — type
	 * read from the bytes, size and count against `max_file_bytes`, `max_files_bytes` and `max_files` — then
	 * images and PDFs go to the model as parts (when `pass_images` / `pass_pdfs`), text files as text inside the
	 * data wrapper. Only their references (name, type, bytes, sha256) reach the trace, memory and the audit.
	 */
	files?: readonly FileInput[];
	/** Extra system text from the workflow: the task, its constraints. */
	developerText?: string;
	/** Tools beyond the built-in ones (e.g. n8n sub-workflows); `allowed_tools` still decides what is offered. */
	extraTools?: readonly Tool[];
	sessionId?: string;
	/** Cancels the run (finish reason `cancelled`). */
	signal?: AbortSignal;
	/**
	 * Takes over when a model call fails after its retries (`llm_error`) or times out: for that step and the
	 * rest of the run, with the same conversation; no tool call is made again. Its `modelName`, or else
	 * `config.model`, is the model it is asked for.
	 */
	fallbackModel?: ChatModel;
	/**
	 * Where `shared_budget` is counted; required with it. RedisBudgetLedger shares it across processes and n8n
	 * workers; MemoryBudgetLedger only within this process.
	 */
	budgetLedger?: BudgetLedger;
	/**
	 * The key run states are signed (HMAC-SHA256) and sealed (AES-256-GCM) under, at least 16 characters with 8
	 * of them different; required when the config has `approval_required`, and to resume. Every process that resumes a run needs the same key.
	 */
	stateSecret?: string;
	/**
	 * Makes the run durable (README "Durable runs"): each completed step is checkpointed under this key in
	 * `checkpoints`, sealed and signed with `stateSecret` (required with it), and a run started again with the
	 * key, the same config and the same request (new user message) goes on after its last completed step — no completed model call
	 * or tool call is made again. A call that started and was never recorded as done runs again when it only
	 * reads, or is http_request (with the same Idempotency-Key); any other ends the run `interrupted_call`, or
	 * with `approval_required` in the config pauses it `awaiting_approval`. Once the run has finished, the key
	 * returns its result (until the checkpoint's TTL), except after `llm_error`, `timeout`, `cancelled`,
	 * `budget_exhausted` and `budget_unavailable`, after which it goes on from the last completed step. E.g.
	 * n8n's execution id and item, or an idempotency key from the request.
	 */
	runKey?: string;
	/** Where `runKey`'s checkpoints are kept: RedisCheckpoints across processes and n8n workers; MemoryCheckpoints within this process. */
	checkpoints?: CheckpointStore;
	/**
	 * Where the definitions of `mcp_servers` tools are pinned (README "MCP tools"): RedisMcpPins across processes and
	 * n8n workers, MemoryMcpPins in this process. Without it only `mcp_servers[].pins` pin, and other tools run unpinned.
	 */
	mcpPins?: McpPinStore;
	/** Values never to appear in any output (e.g. the provider API key); secrets in tool settings are added. */
	secrets?: readonly string[];
	/**
	 * Told what happens as it happens (steps, tool calls, the final answer's text as the model writes it).
	 * With it the model is asked to stream its replies; without it no model call streams.
	 */
	onEvent?: AgentEventListener;
	/**
	 * When the final answer's text reaches `onEvent`. 'as-written' (default): as the model writes it, minus
	 * whatever could still turn into something redacted; a reply that turns out not to be an answer (an
	 * action, a protocol error such as a duplicate key after the answer) has its text voided by
	 * `answer_restart`. 'checked': only once the reply has closed and been checked as the answer, in one
	 * `answer_delta`, so no text of a reply that is not the answer is ever sent — for listeners that cannot
	 * take text back.
	 */
	streamAnswer?: 'as-written' | 'checked';
	/**
	 * Keeps the run in a PostgreSQL audit database once its answer is ready (see README "Audit and tracing"):
	 * the output's `audit` says whether the row was stored within `waitMs` (default 1000); a failed write is
	 * tried again later and never fails the run. `retentionDays` deletes older runs; `origin` says where the
	 * run came from (n8n's workflow and execution); `forkedFrom` names the audited run and step a fork started
	 * from (set by forkAuditedRun, covered by the record chain).
	 */
	audit?: {
		postgres: PostgresTarget;
		retentionDays?: number;
		waitMs?: number;
		origin?: AuditOrigin;
		forkedFrom?: ForkedFrom;
	};
	/** Gets a span for the run, each model call and each tool call (gen_ai.* attributes, redacted), after the run. */
	tracer?: Tracer;
	/**
	 * Lifecycle hooks (README "Hooks and guardrails"): each an object with any of beforeRun, beforeModel,
	 * afterModel, beforeTool, afterTool, afterRun and onFailure, run in the order given, then the built-in
	 * `guardrails`. A hook that throws, takes over 10 s or replies with anything but a decision ends the run `guardrail`.
	 */
	hooks?: readonly AgentHook[];
}

/** runAgent's option names (checkKnownOptions refuses any other); the type above and this list cannot drift apart. */
export const RUN_AGENT_OPTIONS = {
	model: true,
	config: true,
	prompt: true,
	messages: true,
	files: true,
	developerText: true,
	extraTools: true,
	sessionId: true,
	signal: true,
	fallbackModel: true,
	budgetLedger: true,
	stateSecret: true,
	runKey: true,
	checkpoints: true,
	mcpPins: true,
	secrets: true,
	onEvent: true,
	streamAnswer: true,
	audit: true,
	tracer: true,
	hooks: true,
} satisfies OptionNames<RunAgentOptions>;

/** Where an unknown run option belongs when it is a config key (`maxSteps`, `max_steps`): inside `config`. */
export function configKeyHint(name: string): string | undefined {
	const key = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/-/g, '_');
	return Object.prototype.hasOwnProperty.call(SETTINGS, key)
		? `a config key: give it as config.${key}`
		: undefined;
}

/**
 * Refuses, before anything is opened, an option `where` does not know (a typo is not a no-op; a config key is
 * pointed into `config`) and an audit target with a field the audit database does not take: the run would
 * otherwise answer first and only then fail to keep its record.
 */
export function checkRunOptions(
	where: 'runAgent' | 'resumeAgent',
	given: Partial<RunAgentOptions>,
	known: OptionNames<object>,
): void {
	checkKnownOptions(where, given, known, configKeyHint);
	if (given.audit) checkPostgresTarget(`${where} audit.postgres`, given.audit.postgres);
}
