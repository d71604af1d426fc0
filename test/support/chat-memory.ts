// A LangChain chat memory as n8n's Simple Memory supplies it, for tests of Agent Core's Memory input.
import { InMemoryChatMessageHistory } from '@langchain/core/chat_history';
import type { BaseMessage } from '@langchain/core/messages';

/**
 * The chat memory n8n's Simple Memory supplies (LangChain's BufferWindowMemory with returnMessages, memoryKey
 * chat_history, k turns), rebuilt on @langchain/core's InMemoryChatMessageHistory because langchain's memory classes
 * are not in node_modules: the methods n8n's AI Agent calls, doing what the real class does (last k*2 messages
 * loaded; saveContext adds the input as a HumanMessage and the output as an AIMessage).
 */
export class BufferWindowMemoryLike {
	readonly chatHistory = new InMemoryChatMessageHistory();
	readonly memoryKeys = ['chat_history'];
	saves = 0;
	constructor(private readonly k = 5) {}
	async loadMemoryVariables(): Promise<{ chat_history: BaseMessage[] }> {
		const messages = await this.chatHistory.getMessages();
		return { chat_history: messages.slice(-this.k * 2) };
	}
	async saveContext(input: { input: string }, output: { output: string }): Promise<void> {
		this.saves++;
		await this.chatHistory.addUserMessage(input.input);
		await this.chatHistory.addAIMessage(output.output);
	}
}
