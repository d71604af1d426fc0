// Tools answered from an audit record (issue #33): the layer counterfactual replay and fork put between the loop and the real tools.
import type { AuditRecord, AuditTool } from '../audit/record';
import { checkKnownOptions, type OptionNames } from '../core/known-options';
import { builtInTools } from '../tools/registry';
import type { Tool, ToolContext } from '../tools/tool';
import { callRan } from '../trace/readable-step';
import { canonicalJson } from '../validation/canonical-json';
import { RecordedTurns, type RecordedOutcome } from './recorded-turns';

/** A tool call the replayed run made that the record did not have. */
export interface UnrecordedCall {
	step: number;
	tool: string;
	args: Record<string, unknown>;
	/** Why it was not run (absent for a read-only call that ran with `runReadOnly`). */
	reason?: string;
}

/** What the layer did with the calls it was asked for. */
export interface RecordedCallLedger {
	/** Calls answered with a recorded observation or error: nothing ran. */
	answeredFromRecord: number;
	/** Read-only calls the record did not have, run for real (only with `runReadOnly`). */
	ranReadOnly: UnrecordedCall[];
	/** Calls the record did not have that were refused, with an observation telling the model so. */
	refused: UnrecordedCall[];
}

/** How the layer answers: every call from the record where it matches (counterfactual), or the record up to a step and real tools after it (fork). */
export type RecordedToolsMode =
	| { kind: 'counterfactual'; runReadOnly: boolean }
	| { kind: 'fork'; step: number; observation?: string };

export interface RecordedToolsOptions {
	record: AuditRecord;
	mode: RecordedToolsMode;
	/** Tool names offered beyond the recorded ones (a candidate config's `allowed_tools`): built-in or `realTools` only. */
	extraNames?: readonly string[];
	/** The real tools a call may reach (read-only calls with `runReadOnly`; a fork's calls after its step): the built-ins and these. */
	realTools?: readonly Tool[];
	/**
	 * Settings of the tools that really run (`tool_settings`), handed to them in place of the replay config's
	 * empty ones; absent: the config's own, checked against the real tools' settings schemas (a fork).
	 */
	settings?: Record<string, Record<string, unknown>>;
	/** The position (1-based) of the model turn being taken: the step a call belongs to. */
	currentTurn: () => number;
}

/** recordedTools' option names; `satisfies` keeps them and RecordedToolsOptions from drifting apart. */
const RECORDED_TOOLS_OPTIONS = {
	record: true,
	mode: true,
	extraNames: true,
	realTools: true,
	settings: true,
	currentTurn: true,
} satisfies OptionNames<RecordedToolsOptions>;

/**
 * Whether a call changes anything: the real tool's own rule (http_request by its method, an MCP tool by its
 * read_only), which the recorded `side_effects` can only narrow — a recorded "has side effects" stays, a
 * recorded "none" is ignored where the real rule says otherwise, as a row may have been changed (issue #38).
 * A tool with no real definition here never runs, so its recorded flag only decides how repeats are answered.
 */
export function sideEffectsRule(
	recorded: AuditTool['side_effects'] | undefined,
	real: Tool | undefined,
): Tool['sideEffects'] {
	if (recorded === true) return true;
	if (real) return real.sideEffects ?? true;
	return recorded !== false;
}

const callKey = (tool: string, args: unknown) => `${tool}\n${canonicalJson(args)}`;

/** The calls the record says ran (or were answered), by tool and canonical args, oldest first. */
function recordedCalls(record: AuditRecord): Map<string, RecordedOutcome[]> {
	const calls = new Map<string, RecordedOutcome[]>();
	const add = (tool: string, args: unknown, outcome: RecordedOutcome) => {
		const key = callKey(tool, args);
		calls.set(key, [...(calls.get(key) ?? []), outcome]);
	};
	for (const { step } of record.steps) {
		// A batch ("actions"): each call that ran, in call order, answered with its recorded observation or error.
		for (const call of step.calls ?? [])
			if (callRan(step, call))
				add(
					call.tool,
					call.args,
					call.error ? { error: call.error.message } : { observation: call.observation! },
				);
		// A repeat the loop breaker answered ran nothing; the candidate's own loop breaker answers its repeats.
		if (!step.action || step.repeat_of !== undefined) continue;
		// A call refused before it ran (unknown tool, invalid args) is refused again by the loop's own checks.
		const outcome =
			step.observation !== undefined
				? { observation: step.observation }
				: step.tool_ms !== undefined && step.error
					? { error: step.error.message }
					: undefined;
		if (outcome) add(step.action.tool, step.action.args, outcome);
	}
	return calls;
}

function answer(outcome: RecordedOutcome): string {
	if ('observation' in outcome) return outcome.observation;
	throw new Error(outcome.error);
}

/**
 * Stand-ins for the record's tools (and `extraNames`), with their recorded schemas, whose calls never reach
 * a real tool unless the mode allows it. Counterfactual: a call whose tool and canonical args the record has
 * is answered with the recorded observation or error (each recorded call once; a read-only call again as
 * often as asked); a read-only call it lacks runs only with `runReadOnly`; any other is refused, the model
 * told so. Fork: calls up to `step` are answered from the record step by step (step `step` with the edited
 * observation), later calls run the real tools.
 */
export function recordedTools(options: RecordedToolsOptions): {
	tools: Tool[];
	ledger: RecordedCallLedger;
} {
	checkKnownOptions('recordedTools', options, RECORDED_TOOLS_OPTIONS);
	const { record, mode, currentTurn } = options;
	const ledger: RecordedCallLedger = { answeredFromRecord: 0, ranReadOnly: [], refused: [] };
	const real = new Map(
		[...builtInTools, ...(options.realTools ?? [])].map((tool) => [tool.name, tool]),
	);
	const remaining = recordedCalls(record);
	const lastAnswer = new Map<string, RecordedOutcome>();

	const runReal = (tool: Tool, args: Record<string, unknown>, context: ToolContext) =>
		tool.execute(
			args,
			options.settings ? { ...context, settings: options.settings[tool.name] ?? {} } : context,
		);

	function counterfactual(
		name: string,
		rule: Tool['sideEffects'],
		args: Record<string, unknown>,
		context: ToolContext,
	): Promise<unknown> | string {
		const key = callKey(name, args);
		const readOnly = typeof rule === 'function' ? !rule(args) : rule === false;
		const queue = remaining.get(key);
		const recorded = queue?.shift() ?? (readOnly ? lastAnswer.get(key) : undefined);
		if (recorded) {
			lastAnswer.set(key, recorded);
			ledger.answeredFromRecord++;
			return answer(recorded);
		}
		const call = { step: currentTurn(), tool: name, args };
		const realTool = real.get(name);
		if (readOnly && mode.kind === 'counterfactual' && mode.runReadOnly && realTool) {
			ledger.ranReadOnly.push(call);
			return runReal(realTool, args, context);
		}
		const reason = !readOnly
			? lastAnswer.has(key) ||
				record.steps.some(
					({ step }) =>
						step.action?.tool === name && canonicalJson(step.action.args) === canonicalJson(args),
				)
				? 'it has side effects and the record has it fewer times'
				: 'it has side effects and is not in the record'
			: realTool
				? 'it is read-only but not in the record, and new read-only calls run only with --run-read-only'
				: 'it is read-only but not in the record, and this tool is not available outside its run';
		ledger.refused.push({ ...call, reason });
		return (
			`This ${name} call was not run: ${reason}. This is a replay of a recorded run, which never changes ` +
			`anything. Answer without this call, or with a call the run made.`
		);
	}

	// A fork answers by model turn: a plan's steps ran in the turn that sent the plan (see RecordedTurns).
	const turns = new RecordedTurns(record);
	function fork(
		step: number,
		observation: string | undefined,
		name: string,
		args: Record<string, unknown>,
		context: ToolContext,
	): Promise<unknown> | string {
		const turn = currentTurn();
		const span = turns.span(turn);
		if (span.length > 0 && span[0] < step) {
			// The recorded calls of this turn in steps up to N (positions below `step`), each answered once.
			const recorded = turns.take(turn, name, args, step);
			if (recorded) {
				ledger.answeredFromRecord++;
				if (recorded.position === step - 1 && observation !== undefined) return observation;
				return answer(recorded.outcome);
			}
			// A plan whose steps run past step N goes on live; any other call up to N must be the record's.
			if (span[span.length - 1] < step)
				throw new Error(
					`fork: step ${record.steps[span[0]].step.step} called ${name} ${JSON.stringify(args)}, which the record does not have`,
				);
		}
		const realTool = real.get(name);
		if (!realTool)
			throw new Error(
				`${name} is not available outside its run (only built-in tools and the tools given run in a fork)`,
			);
		return runReal(realTool, args, context);
	}

	const names = [
		...record.tools.map((tool) => tool.name),
		...(options.extraNames ?? []).filter(
			(name) => !record.tools.some((tool) => tool.name === name) && real.has(name),
		),
	];
	const tools = names.map((name): Tool => {
		const recorded = record.tools.find((tool) => tool.name === name);
		const realTool = real.get(name);
		const rule = sideEffectsRule(recorded?.side_effects, realTool);
		return {
			name,
			description: realTool?.description ?? `${name} (answered from the audit record)`,
			parameters: recorded?.schema ?? realTool!.parameters,
			sideEffects: rule,
			...(realTool?.canonicalCall ? { canonicalCall: realTool.canonicalCall } : {}),
			// The real tool's settings rules, so a fork's config is checked (and its secrets found) as a run's would be.
			...(realTool
				? {
						settingsSchema: realTool.settingsSchema,
						checkSettings: realTool.checkSettings?.bind(realTool),
						secretsIn: realTool.secretsIn?.bind(realTool),
					}
				: {}),
			async execute(args: Record<string, unknown>, context: ToolContext) {
				return mode.kind === 'fork'
					? fork(mode.step, mode.observation, name, args, context)
					: counterfactual(name, rule, args, context);
			},
		};
	});
	return { tools, ledger };
}
