// Durable-run test parts: a checkpoint store whose process "dies" after so many writes, and a tool that counts its runs.
import type { CheckpointStore } from '../../src/run-state/checkpoint-store';
import type { Tool } from '../../src/tools/tool';

/** A process dying: thrown by the store once `afterWrites` writes went through, or instead of the write after them. */
export class ProcessKilled extends Error {}

export function dyingStore(
	inner: CheckpointStore,
	afterWrites: number,
	when: 'after' | 'instead' = 'after',
): CheckpointStore & { writes: number } {
	const store = {
		writes: 0,
		claim: (runKey: string, attempt: string, run: string) => inner.claim(runKey, attempt, run),
		async write(runKey: string, attempt: string, record: string) {
			if (when === 'instead' && store.writes === afterWrites)
				throw new ProcessKilled('killed before the write');
			const written = await inner.write(runKey, attempt, record);
			store.writes++;
			if (when === 'after' && store.writes === afterWrites)
				throw new ProcessKilled('killed after the write');
			return written;
		},
		close: () => inner.close(),
	};
	return store;
}

/** A tool that records each run; `sideEffects` as given (absent: it writes). */
export function countingTool(name: string, sideEffects?: boolean): { tool: Tool; runs: unknown[] } {
	const runs: unknown[] = [];
	const tool: Tool = {
		name,
		description: `${name} for the test`,
		parameters: {
			type: 'object',
			properties: { value: { type: 'integer' } },
			required: ['value'],
			additionalProperties: false,
		},
		...(sideEffects === undefined ? {} : { sideEffects }),
		async execute(args) {
			runs.push(args);
			return { done: name, value: (args as { value: number }).value };
		},
	};
	return { tool, runs };
}
