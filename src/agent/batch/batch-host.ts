// What a batch needs from the run it belongs to (issue #42): the run's own parts, lent for one step.
import type { AgentConfig } from '../../settings/config';
import type { Tool } from '../../tools/tool';
import type { TraceStep } from '../../trace/types';
import type { FileInput, RunFile } from '../../files';
import type { ToolOutcome } from '../execute-tool';
import type { RepeatedCalls } from '../repeated-calls';
import type { StepOutcome } from '../step-outcome';
import type { BatchState } from './batch-state';

/** The run's own parts, lent to a batch for one step (AgentRun). */
export interface BatchHost {
	config: AgentConfig;
	tools: ReadonlyMap<string, Tool>;
	repeats: RepeatedCalls;
	/** Why the tool would refuse this call before it runs (egress, say; see Tool.refusalBeforeRun). */
	refusalBeforeRun(tool: Tool, name: string, args: Record<string, unknown>): string | undefined;
	/** Takes one of max_tool_calls' slots; false when none is left. */
	takeToolCall(): boolean;
	/** Runs one checked call under its own timeout (the run's runTool request). */
	callTool(
		tool: Tool,
		name: string,
		args: Record<string, unknown>,
		step: number,
	): Promise<ToolOutcome>;
	/** Counts a call that ran in used_tools. */
	countUse(name: string, ms: number, ok: boolean): void;
	/** The files a call returned, taken under the run's caps: its observation with notes, and the files that go with it. */
	takeFiles(
		observation: string,
		returned: readonly FileInput[],
	): { observation: string; files: RunFile[] };
	/** The listener's action and observation events for one call. */
	tellAction(step: number, tool: string, args: Record<string, unknown>): void;
	tellObservation(step: number, tool: string, ok: boolean, text: string): void;
	/** The step's one observation message, with the calls' files. */
	pushObservations(content: string, files: RunFile[]): void;
	/**
	 * A durable run's checkpoint of the batch as it stands, sealed now and written by the returned function;
	 * undefined when the run is not durable.
	 */
	sealBatch(step: number, batch: BatchState): (() => Promise<void>) | undefined;
	/** Ends the run `awaiting_approval` at call `at` of the batch, which is kept in the state to resume it with. */
	pauseBatch(entry: TraceStep, batch: BatchState, at: number, detail?: string): StepOutcome;
	/** The run's signal fired while the batch ran. */
	aborted(): StepOutcome;
	/** The files the caller gave a resumed run: the bytes of files that calls settled before a pause returned. */
	readonly givenFiles: readonly RunFile[];
}
