// The scripted model's plans for the plan-mode suites of this folder: `{"type":"plan","steps":[…]}` as a model writes it.

/** Plan steps numbered from 1, each described as "step n uses <tool>". */
export const planSteps = (steps: Array<[string, Record<string, unknown>]>) =>
	steps.map(([tool, args], index) => ({
		step: index + 1,
		description: `step ${index + 1} uses ${tool}`,
		tool,
		args,
	}));

/** A plan reply of those steps. */
export const plan = (steps: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'plan', steps: planSteps(steps) });

/** json_transform's args: `expression` over `data`. */
export const transform = (data: unknown, expression: string) => ({ data, expression });
