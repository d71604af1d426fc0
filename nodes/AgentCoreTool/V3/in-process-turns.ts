// A sub-agent's turns beside an in-process chat memory (n8n's Simple Memory), whose session key n8n keeps to itself.
import type { AgentResult, ChatMessage } from '../../../src/run-path';
import type { MemoryInput } from '../../shared/memory-input';

/**
 * Each sub-agent's turns by the memory buffer they belong to: Simple Memory keeps one buffer per workflow and session
 * in this n8n process, so a sub-agent's conversation lives exactly as long and as far as its parent's (n8n drops a
 * buffer an hour after its last use; the turns go with it). Like Simple Memory, nothing here reaches another worker.
 */
const turnsByBuffer = new WeakMap<object, Map<string, ChatMessage[]>>();

/** The sub-agent `name`'s turns kept beside `buffer`: the last `window` question-and-answer pairs, as Simple Memory keeps. */
export function inProcessTurns(
	buffer: object,
	name: string,
	window: number,
): Pick<MemoryInput, 'load' | 'save'> {
	const kept = () => {
		const byName = turnsByBuffer.get(buffer) ?? new Map<string, ChatMessage[]>();
		turnsByBuffer.set(buffer, byName);
		return byName;
	};
	return {
		async load({ prompt }) {
			return { messages: [...(kept().get(name) ?? []), { role: 'user', content: prompt }] };
		},
		// As n8n's AI Agent saves to Simple Memory: only a turn that got an answer.
		async save({ result }: { result?: AgentResult }) {
			if (result?.finish_reason !== 'final') return;
			const turns = [...(kept().get(name) ?? []), ...result.messages];
			kept().set(name, turns.slice(-Math.max(1, window) * 2));
		},
	};
}
