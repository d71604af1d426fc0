// A LangChain chat memory as n8n's Simple Memory supplies it, for tests of Agent Core's Memory input.
import { InMemoryChatMessageHistory } from '@langchain/core/chat_history';
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';

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

/**
 * A chat memory whose history is keyed by a session read on every call, as n8n's Redis and Postgres Chat Memory supply
 * it (a BufferWindowMemory around LangChain's RedisChatMessageHistory / PostgresChatMessageHistory, which read
 * `this.sessionId` in getMessages and addMessage, built anew on each supplyData). `store` is the server: shared by
 * every instance, keyed by session.
 */
export class SessionChatMemoryLike {
	readonly memoryKeys = ['chat_history'];
	readonly chatHistory: { sessionId: string };
	constructor(
		private readonly store: Map<string, BaseMessage[]>,
		sessionId: string,
		private readonly k = 5,
	) {
		this.chatHistory = { sessionId };
	}
	private get messages(): BaseMessage[] {
		const key = this.chatHistory.sessionId;
		if (!this.store.has(key)) this.store.set(key, []);
		return this.store.get(key)!;
	}
	async loadMemoryVariables(): Promise<{ chat_history: BaseMessage[] }> {
		return { chat_history: this.messages.slice(-this.k * 2) };
	}
	async saveContext(input: { input: string }, output: { output: string }): Promise<void> {
		this.messages.push(new HumanMessage(input.input), new AIMessage(output.output));
	}
}
