/**
 * Which LangChain chat model class an n8n sub-node handed over, read from the object itself (never by
 * `instanceof`: it comes from n8n's own copy of LangChain).
 */

/** The fields of a class that say what it is. */
export interface ClassLike {
	_llmType?(): string;
	lc_id?: unknown;
}

/** `_llmType()` when the object has it and it answers with a string; a wrapper may lack it or throw. */
export function safeLlmType(model: ClassLike): string | undefined {
	try {
		const type = typeof model._llmType === 'function' ? model._llmType() : undefined;
		return typeof type === 'string' && type !== '' ? type : undefined;
	} catch {
		return undefined;
	}
}

/** LangChain's llm type in the names the engine's own adapters use, so traces read the same either way. */
export function normaliseProvider(llmType: string | undefined): string {
	if (llmType === undefined) return 'langchain';
	const type = llmType.toLowerCase();
	if (type === 'openai') return 'openai';
	if (type.includes('anthropic')) return 'anthropic';
	if (type.includes('google') || type.includes('gemini') || type.includes('genai')) return 'gemini';
	if (type.includes('ollama')) return 'ollama';
	return llmType;
}

/** ChatOpenAI or a subclass (Azure, and every OpenAI-compatible sub-node built on it): it takes `response_format`. */
export function isOpenAiClass(model: ClassLike): boolean {
	if (safeLlmType(model) === 'openai') return true;
	const id = model.lc_id;
	return (
		Array.isArray(id) && id.some((part) => typeof part === 'string' && part.includes('ChatOpenAI'))
	);
}
