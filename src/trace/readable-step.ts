import type { TraceStep } from './types';

/** The same step with its fields in reading order: what was asked, what came of it, then timings. */
export function readableStep(entry: TraceStep): TraceStep {
  const { step, provider, model, action, final, observation, error, repair, elapsed_ms, model_ms, tool_ms, usage, ...rest } = entry;
  return {
    step,
    ...(provider !== undefined ? { provider } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(action ? { action } : {}),
    ...(final ? { final } : {}),
    ...(observation !== undefined ? { observation } : {}),
    ...(error ? { error } : {}),
    repair,
    elapsed_ms,
    model_ms,
    ...(tool_ms !== undefined ? { tool_ms } : {}),
    ...(usage ? { usage } : {}),
    ...rest,
  };
}
