// Forking an audited run (issue #33): its steps up to N taken again from the record, step N's observation optionally edited, then live.
import { questionWithFiles } from './record-files';
import type { FileInput } from '../files';
import type { AuditRecord, ForkedFrom } from '../audit/record';
import { AgentCoreError } from '../core/agent-core-error';
import { checkKnownOptions, type OptionNames } from '../core/known-options';
import type { ChatModel, ChatRequest, ChatResponse } from '../providers/chat-model';
import { ToolRegistry } from '../tools/registry';
import type { Tool } from '../tools/tool';
import type { AgentResult } from '../trace/types';
import { resolveConfig } from '../settings/config';
import { trustRecord, type RecordTrustOptions } from './record-trust';
import { recordedTools } from './recorded-tools';
import { RecordedTurns } from './recorded-turns';
import { AgentRun } from '../agent/run-agent';
import type { RunAgentOptions } from '../agent/base/run-options';

/** A fork that cannot start: the step is not in the record, or has no observation to edit. `field` is the option at fault. */
export class ForkError extends AgentCoreError {
	override readonly name = 'ForkError';
	constructor(message: string, field: 'step' | 'observation' | 'config', fix: string) {
		super(message, { field, fix });
	}
}

/** What a fork needs: the audited run, the step to start from, and the model (and config) that goes on from there. */
export interface ForkOptions
	extends Pick<
			RunAgentOptions,
			'fallbackModel' | 'audit' | 'secrets' | 'signal' | 'onEvent' | 'tracer'
		>,
		RecordTrustOptions {
	record: AuditRecord;
	/** The recorded step number N: steps up to N are taken from the record, the model is asked from step N + 1 on. */
	step: number;
	/** Replaces step N's observation (step N must be a tool call): what the model sees instead of what the tool returned. */
	observation?: string;
	/** The model that goes on after step N. */
	model: ChatModel;
	/** The fork's config (its tool settings with their secrets, say); absent: the recorded config (redacted). */
	config?: Record<string, unknown>;
	/** Real tools beyond the built-ins that calls after step N may reach. */
	tools?: readonly Tool[];
	/** The files the audited run was given, again (its row keeps their references): matched by SHA-256. */
	files?: readonly FileInput[];
}

/** forkAuditedRun's option names; `satisfies` keeps them and ForkOptions from drifting apart. */
const FORK_OPTIONS = {
	record: true,
	step: true,
	observation: true,
	model: true,
	config: true,
	tools: true,
	files: true,
	unverified: true,
	fallbackModel: true,
	audit: true,
	secrets: true,
	signal: true,
	onEvent: true,
	tracer: true,
} satisfies OptionNames<ForkOptions>;

/** A fork's result: the new run's, with the run and step it was forked from. */
export type ForkResult = AgentResult & { forked_from: ForkedFrom };

/** The model of a fork: the recorded replies for the first `upTo` model turns (no call), then the live model. */
function forkModel(turns: RecordedTurns, upTo: number, live: ChatModel): ChatModel {
	let turn = 0;
	return {
		provider: live.provider,
		modelName: live.modelName,
		secrets: live.secrets,
		async generate(request: ChatRequest): Promise<ChatResponse> {
			if (turn >= upTo) {
				turn++;
				return live.generate(request);
			}
			return turns.response(++turn);
		},
		get turn() {
			return turn;
		},
	} as ChatModel & { turn: number };
}

/**
 * Starts a new run from step N of an audited run: the record's question, its steps up to N answered from the
 * record (replies and observations, so nothing runs twice), step N's observation replaced when `observation`
 * is given, then the model goes on live with real tools. With `audit`, the new row names the original run and
 * step (`forked_from`), covered by the record chain (chain version 4). The record chain is verified first:
 * a run that does not verify throws UnverifiedRecordError, before any model is asked or tool runs, unless
 * `unverified` is given, and then `forked_from` says `verified: false` and the part (issue #38). Throws ForkError
 * for a step the record does not have, or an observation for a step that made no tool call; ConfigError for a
 * config today's checks refuse.
 */
export async function forkAuditedRun(options: ForkOptions): Promise<ForkResult> {
	checkKnownOptions('forkAuditedRun', options, FORK_OPTIONS);
	const { record, step } = options;
	const mismatch = trustRecord(record, options.unverified);
	const position = record.steps.findIndex((entry) => entry.step.step === step) + 1;
	const numbers = record.steps.map((entry) => entry.step.step);
	if (!Number.isInteger(step) || position === 0) {
		throw new ForkError(
			`run ${record.run_id} has no step ${step} (its steps: ${numbers.join(', ') || 'none'})`,
			'step',
			"Give the number of one of the run's recorded steps.",
		);
	}
	const forkedStep = record.steps[position - 1].step;
	if (options.observation !== undefined && forkedStep.calls) {
		throw new ForkError(
			`step ${step} of run ${record.run_id} is a batch of ${forkedStep.calls.length} tool calls ("actions"), ` +
				'whose observations cannot be replaced by one',
			'observation',
			'Fork from a step with a single tool call, or leave out the observation.',
		);
	}
	if (
		options.observation !== undefined &&
		(!forkedStep.action || (forkedStep.observation === undefined && !forkedStep.error))
	) {
		throw new ForkError(
			`step ${step} of run ${record.run_id} made no tool call, so it has no observation to replace`,
			'observation',
			'Fork from a step that called a tool, or leave out the observation.',
		);
	}
	const forkedFrom: ForkedFrom = {
		run_id: record.run_id,
		step,
		...(mismatch ? { verified: false as const, mismatch: mismatch.part } : {}),
	};
	const { shared_budget: _budget, ...base } = options.config ?? record.config;
	// The steps up to N must not ask for approval again (nothing runs there), and after N a fork has no one to
	// approve: so a config that asks for approval is refused, never quietly run without it. An operator who wants
	// the fork anyway gives a config without approval_required, which the fork's own audit row then records.
	const approval = Array.isArray(base.approval_required)
		? (base.approval_required as unknown[])
		: [];
	if (base.approve_plan === true)
		throw new ForkError(
			'the config asks for approval of the plan (approve_plan), and a fork goes on live with no one to approve',
			'config',
			'Give the fork a config without approve_plan (its audit row records the config it ran with).',
		);
	if (approval.length > 0) {
		throw new ForkError(
			`the config asks for approval before ${approval.join(', ')}, and a fork goes on live with no one to approve`,
			'config',
			'Give the fork a config without approval_required (its audit row records the config it ran with).',
		);
	}
	const config = { ...base, approval_required: [] } as unknown as RunAgentOptions['config'];
	// A plan's steps took no model turn: the turns up to step N are those of the steps up to it.
	const turns = new RecordedTurns(record);
	const model = forkModel(turns, turns.turnsIn(position), options.model) as ChatModel & {
		turn: number;
	};
	const { tools } = recordedTools({
		record,
		mode: {
			kind: 'fork',
			step: position,
			...(options.observation !== undefined ? { observation: options.observation } : {}),
		},
		extraNames: Array.isArray(config.allowed_tools) ? config.allowed_tools : [],
		realTools: options.tools,
		currentTurn: () => model.turn,
	});
	const registry = new ToolRegistry(tools);
	const resolved = resolveConfig(config, registry);
	const allowed = new Map(resolved.allowed_tools.map((name) => [name, registry.get(name)!]));
	const {
		record: _record,
		step: _step,
		observation: _observation,
		tools: _tools,
		config: _config,
		unverified: _unverified,
		files: _files,
		...rest
	} = options;
	const runOptions: RunAgentOptions = {
		...rest,
		model,
		config,
		...(options.audit ? { audit: { ...options.audit, forkedFrom } } : {}),
	};
	const user = questionWithFiles(record, options.files, resolved);
	const result = await new AgentRun(runOptions, resolved, allowed, [user], user).run();
	return { ...result, forked_from: forkedFrom };
}
