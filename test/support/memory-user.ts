// A root node with a Memory input, as Agent Core version 2 has: loads each item's memory, then saves the scripted run.
import {
	NodeConnectionTypes,
	type IConnections,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
} from 'n8n-workflow';
import type { AgentResult } from '../../src';
import type { MemoryInput } from '../../nodes/shared/memory-input';
import { isAgentContextMemory } from '../../nodes/AgentCore/execute/inputs/connected-memory';

/** One item's scripted run: the prompt, and the answer, or a failure, or no save at all (the run died). */
export interface ScriptedTurn extends IDataObject {
	prompt: string;
	answer?: string;
	fail?: boolean;
	noSave?: boolean;
	/** Agent Core's messages output of a run that compacted the history: a summary first. */
	summary?: IDataObject;
}

export const resultOf = (turn: ScriptedTurn): AgentResult =>
	({
		final_answer: turn.answer,
		finish_reason: 'final',
		trace: [{ step: 1, final: { answer: turn.answer }, elapsed_ms: 3 }],
		messages: [
			...(turn.summary ? [turn.summary] : []),
			{ role: 'user', content: turn.prompt },
			{ role: 'assistant', content: turn.answer },
		],
	}) as unknown as AgentResult;

/**
 * The root node a Memory input has: for each item, the memory from its ai_memory input, loaded with the prompt,
 * then saved with the run's result (or the failure). `loadAllFirst` loads every item before saving any, as two
 * executions answering the same session at once do.
 */
export class MemoryUser implements INodeType {
	description = {
		displayName: 'Memory User',
		name: 'memoryUser',
		group: ['transform' as const],
		version: 1,
		description: 'test root node with a Memory input',
		defaults: { name: 'Memory User' },
		inputs: [
			NodeConnectionTypes.Main,
			{ type: NodeConnectionTypes.AiMemory, displayName: 'Memory', maxConnections: 1 },
		],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{
				displayName: 'Load All First',
				name: 'loadAllFirst',
				type: 'boolean' as const,
				default: false,
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const loadAllFirst = this.getNodeParameter('loadAllFirst', 0) as boolean;
		const out: IDataObject[] = items.map(() => ({}));
		const memories: Array<MemoryInput | undefined> = [];
		const load = async (itemIndex: number) => {
			const memory = (await this.getInputConnectionData(
				NodeConnectionTypes.AiMemory,
				itemIndex,
			)) as MemoryInput;
			out[itemIndex].branded = isAgentContextMemory(memory);
			try {
				const { messages } = await memory.load({
					prompt: items[itemIndex].json.prompt as string,
					itemIndex,
				});
				out[itemIndex].messages = messages as unknown as IDataObject[];
				memories[itemIndex] = memory;
			} catch (error) {
				out[itemIndex].error = (error as Error).message;
			}
		};
		const save = async (itemIndex: number) => {
			const turn = items[itemIndex].json as ScriptedTurn;
			if (!memories[itemIndex] || turn.noSave) return;
			await memories[itemIndex].save(
				turn.fail
					? { itemIndex, error: new Error('model failed') }
					: { itemIndex, result: resultOf(turn) },
			);
		};
		if (loadAllFirst) {
			for (const index of items.keys()) await load(index);
			for (const index of items.keys()) await save(index);
		} else {
			for (const index of items.keys()) {
				await load(index);
				await save(index);
			}
		}
		return [out.map((json, item) => ({ json, pairedItem: { item } }))];
	}
}

/** The input node `Chat` into `User`, and the sub-node `Memory` on its Memory input. */
export const MEMORY_TO_USER: IConnections = {
	Chat: { main: [[{ node: 'User', type: 'main', index: 0 }]] },
	Memory: { ai_memory: [[{ node: 'User', type: 'ai_memory', index: 0 }]] },
};
