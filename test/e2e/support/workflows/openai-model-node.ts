// n8n's OpenAI Chat Model sub-node as the e2e workflows use it: the scripted model's credential, a model by id.

/** An OpenAI Chat Model node named `name` asking for `model`; the caller adds an id and a position where it needs them. */
export const openAiModelNode = (
	name: string,
	model: string,
	extra: Record<string, unknown> = {},
) => ({
	parameters: { model: { __rl: true, mode: 'id', value: model }, options: {}, ...extra },
	name,
	type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
	typeVersion: 1.3,
	credentials: { openAiApi: { id: 'openAiApi1', name: 'OpenAI account' } },
});
