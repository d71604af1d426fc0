// A sub-agent's call with a conversation of its own (issue #52): loaded before, saved exactly once after.
import type { ChatMessage } from '../../core/messages';
import type { AgentResult } from '../../trace/types';
import type { SubAgentMemory } from './agent-tool';

/**
 * Runs `start` on the conversation `memory` keeps (none: a fresh start), then saves the call's turns, once: after a
 * run that ended (not one waiting for a person that its parent can resume: its resumed call saves), with the task
 * alone and the error when the run threw (so a store that holds a session lets it go), then rethrows. A resumed call
 * loads nothing (its conversation is in its signed state) and saves when it ends. A save that fails is returned, not
 * thrown: the run happened, and its caller still counts what it cost.
 */
export async function rememberedRun(
	memory: SubAgentMemory | undefined,
	task: string,
	start: (history: ChatMessage[] | undefined) => Promise<AgentResult>,
	{ resumed = false, resumable = true }: { resumed?: boolean; resumable?: boolean } = {},
): Promise<{ result: AgentResult; unsaved?: Error }> {
	if (!memory) return { result: await start(undefined) };
	const history = resumed ? undefined : await memory.load(task);
	let result: AgentResult;
	try {
		result = await start(history?.length ? history : undefined);
	} catch (error) {
		if (!resumed)
			await memory.save([{ role: 'user', content: task }], { error }).catch(() => undefined);
		throw error;
	}
	if (result.finish_reason === 'awaiting_approval' && resumable) return { result };
	return await memory.save(result.messages, { result }).then(
		() => ({ result }),
		(error: Error) => ({ result, unsaved: error }),
	);
}
