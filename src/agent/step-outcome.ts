// What one step of the loop came to: the three-way outcome AgentRun acts on.
import type { FinishReason, StepError } from '../trace/types';
import type { RepairReason } from './failure-streak';
import type { RunAnswer } from './run-result';

/**
 * What one step came to: go on with the observation the step added, repair (the model sees the error and
 * gets one more turn), or finish the run. Every way a run ends is a `finish` that the loop acts on.
 */
export type StepOutcome =
  | { next: 'continue' }
  | { next: 'repair'; error: StepError; reason: RepairReason }
  | { next: 'finish'; reason: FinishReason; detail?: string; answer?: RunAnswer; paused?: Record<string, unknown> };
