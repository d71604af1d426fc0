/**
 * What an SDK sent to the scripted server, read into the neutral message form: OpenAI chat messages
 * (`developer` counts as system), Gemini contents with their system instruction, or the request of a
 * format with its own file (Anthropic, OpenAI Responses, Ollama).
 */
import type { ChatMessage } from '../core/messages';
import { parseAnthropicCall } from './scripted-anthropic';
import { parseOllamaCall } from './scripted-ollama';
import { parseResponsesCall } from './scripted-responses';
import type { ParsedCall, Provider } from './scripted-types';
export type { ParsedCall } from './scripted-types';

const OPENAI_ROLES: Record<string, ChatMessage['role']> = {
	system: 'system',
	developer: 'system',
	user: 'user',
	assistant: 'assistant',
};

/** The request body as a model call, or the problem the real API would answer HTTP 400 for. */
export function parseModelCall(
	provider: Provider,
	rawBody: string,
	geminiModel?: string,
): ParsedCall | { problem: string } {
	let body: any;
	try {
		body = JSON.parse(rawBody);
	} catch (error) {
		return { problem: `the request body is not valid JSON (${(error as Error).message})` };
	}
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		return { problem: 'the request body must be a JSON object' };
	}
	if (provider === 'anthropic') return parseAnthropicCall(body);
	if (provider === 'openai-responses') return parseResponsesCall(body);
	if (provider === 'ollama') return parseOllamaCall(body);
	if (provider === 'openai') {
		if (!Array.isArray(body.messages))
			return { problem: "Missing required parameter: 'messages'." };
		const messages = body.messages.map((message: any) => ({
			role: OPENAI_ROLES[message?.role] ?? 'user',
			content: joinText(message?.content),
		}));
		return { model: String(body.model ?? ''), messages, body };
	}
	if (!Array.isArray(body.contents))
		return { problem: 'GenerateContentRequest.contents: contents is not specified' };
	const messages: ChatMessage[] = [];
	const systemText = systemInstructionText(body.systemInstruction);
	if (systemText !== undefined) messages.push({ role: 'system', content: systemText });
	for (const content of body.contents) {
		messages.push({
			role: content?.role === 'model' ? 'assistant' : 'user',
			content: joinText(content?.parts),
		});
	}
	return { model: decodeURIComponent(geminiModel ?? ''), messages, body };
}

/** Gemini accepts the system instruction as a Content, a list of Parts, one Part or a bare string. */
function systemInstructionText(instruction: any): string | undefined {
	if (instruction === undefined || instruction === null) return undefined;
	if (typeof instruction === 'string' || Array.isArray(instruction)) return joinText(instruction);
	if (Array.isArray(instruction.parts)) return joinText(instruction.parts);
	return typeof instruction.text === 'string' ? instruction.text : '';
}

/** Text of a string, or of the text parts of an OpenAI content array or a Gemini parts array. */
function joinText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return '';
	return content
		.map((part: any) =>
			typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '',
		)
		.join('');
}
