import {
	startScriptedServer,
	type ScriptedServer,
	type ScriptedServerOptions,
} from '../../src/demo/scripted-server';
import { createChatModel, type ProviderName } from '../../src/providers/create-model';
import type { ChatModel } from '../../src/providers/chat-model';
import type { Tool } from '../../src/tools/tool';

/** A model adapter (real SDK) pointed at the scripted server. */
export function modelFor(
	server: ScriptedServer,
	provider: ProviderName = 'openai',
	maxRetries = 0,
): ChatModel {
	return createChatModel({
		provider,
		apiKey: 'test-key',
		baseUrl: provider === 'gemini' ? server.geminiBaseUrl : server.openaiBaseUrl,
		maxRetries,
		maxConcurrentCalls: 64,
	});
}

/** Starts a scripted server for the enclosing describe block and closes it afterwards. */
export function useScriptedServer(options: ScriptedServerOptions = {}): () => ScriptedServer {
	let server: ScriptedServer | undefined;
	beforeAll(async () => {
		server = await startScriptedServer(options);
	});
	beforeEach(() => {
		// Each test reads requests from index 0.
		if (server) server.requests.length = 0;
	});
	afterAll(async () => {
		await server?.close();
	});
	return () => server!;
}

/**
 * For tests that start their own scripted servers, each with its own options: returns a starter, and
 * closes every server it started after each test.
 */
export function startsScriptedServers(): (
	options?: ScriptedServerOptions,
) => Promise<ScriptedServer> {
	const started: ScriptedServer[] = [];
	afterEach(async () => {
		await Promise.all(started.splice(0).map((server) => server.close()));
	});
	return async (options) => {
		const server = await startScriptedServer(options);
		started.push(server);
		return server;
	};
}

export const action = (tool: string, args: Record<string, unknown>) =>
	JSON.stringify({ type: 'action', tool, args });
export const final = (answer: string) => JSON.stringify({ type: 'final', answer });

/** A test tool that records every execution, so tests can prove a tool did or did not run. */
export function probeTool(
	name = 'probe',
	behaviour: (args: any, signal: AbortSignal) => Promise<unknown> = async (args) => ({
		echoed: args,
	}),
) {
	const calls: unknown[] = [];
	const tool: Tool = {
		name,
		description: 'Test probe: echoes its args.',
		parameters: {
			type: 'object',
			properties: { value: { type: 'integer', minimum: 0 } },
			required: ['value'],
			additionalProperties: false,
		},
		async execute(args, context) {
			calls.push(args);
			return behaviour(args, context.signal);
		},
	};
	return { tool, calls };
}

/** Text of the last user message the model received in a recorded request. */
export function lastUserMessage(server: ScriptedServer, requestIndex: number): string {
	const messages = server.requests[requestIndex].messages;
	return [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
}

/** A run's options as a resume takes them: without the run's input (resumeAgent goes on with the paused run's). */
export function withoutInput<T extends { prompt?: unknown; messages?: unknown }>(
	options: T,
): Omit<T, 'prompt' | 'messages'> {
	const { prompt, messages, ...rest } = options;
	return rest;
}
