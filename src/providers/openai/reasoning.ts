/** The reasoning OpenAI-compatible chat completions return beside the reply, read alike from a whole message and from stream deltas. */

/**
 * The reasoning field of a message or a stream delta: `reasoning_content` (DeepSeek, Z.ai, Qwen, Moonshot,
 * xAI, llama.cpp) or `reasoning` (Groq, OpenRouter, Cerebras, Ollama since v0.11.1, vLLM since #27752);
 * provider-behaviours.md §4 [OL-go], [VL-ro], [LC-readme]. A stream sends it in pieces, like the text, so a
 * piece is kept as it is (a lone space is part of the reasoning); '' when the holder has none.
 */
export function reasoningPiece(holder: object): string {
	const { reasoning_content: content, reasoning } = holder as {
		reasoning_content?: unknown;
		reasoning?: unknown;
	};
	if (typeof content === 'string' && content !== '') return content;
	return typeof reasoning === 'string' ? reasoning : '';
}

/**
 * The whole reasoning of a chat completion message (a plain reply's, or one joined from a stream by
 * collectChatCompletionStream), undefined when there is none or only whitespace. Realworld cases
 * `vercel:deepseek/chat:deepseek-json.json:protocol:plain`, `vercel:groq:groq-reasoning.json:protocol:plain`,
 * and streamed `vercel:xai:xai-text.chunks.txt:protocol:stream`, `pyd:test_zai/test_zai_thinking_stream#0:protocol:stream`.
 */
export function reasoningOf(message: object): string | undefined {
	const { reasoning_content: content, reasoning } = message as {
		reasoning_content?: unknown;
		reasoning?: unknown;
	};
	// A blank `reasoning_content` beside a real `reasoning` (a proxy that fills both) is no reasoning of its own.
	const text =
		typeof content === 'string' && content.trim() !== ''
			? content
			: typeof reasoning === 'string'
				? reasoning
				: '';
	return text.trim() === '' ? undefined : text;
}
