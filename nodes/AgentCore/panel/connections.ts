// The node's inputs and outputs as its `inputs`/`outputs` expressions build them: plain functions the editor runs as text.

/**
 * The node's inputs for a given Provider, Enable Fallback Model and Fallback From, as the `inputs` expression
 * builds them: the Fallback Model input exists unless the fallback is another model of the credential. Version 2
 * passes `withMemory` and gets the Memory input where n8n's AI Agent has it, between the chat models and Tool.
 */
export function agentCoreInputs(
	provider: string,
	needsFallback: boolean,
	fallbackSource: string | undefined,
	withMemory?: boolean,
) {
	const chatModel = (displayName: string) => ({
		type: 'ai_languageModel',
		displayName,
		required: true,
		maxConnections: 1,
	});
	const fallbackInput =
		needsFallback && (provider === 'connected' || fallbackSource !== 'credential');
	// 'main' as a string: n8n's editor evaluates this function on its own and has no NodeConnectionTypes there.
	return [
		'main',
		...(provider === 'connected' ? [chatModel('Chat Model')] : []),
		...(fallbackInput ? [chatModel('Fallback Model')] : []),
		...(withMemory === true
			? [{ type: 'ai_memory', displayName: 'Memory', required: false, maxConnections: 1 }]
			: []),
		{ type: 'ai_tool', displayName: 'Tool', required: false },
	];
}

/** Which chat-model inputs the node has for these settings: the same rule as the inputs n8n draws. */
export function chatModelInputs(
	provider: string,
	needsFallback: boolean,
	fallbackSource: string | undefined,
) {
	const names = agentCoreInputs(provider, needsFallback, fallbackSource).map((input) =>
		typeof input === 'string' ? input : input.displayName,
	);
	return { primary: names.includes('Chat Model'), fallback: names.includes('Fallback Model') };
}

/** The node's outputs for Require Approval, as the `outputs` expression builds them: calls that wait for a person leave by the second. */
export function agentCoreOutputs(needsApproval: boolean) {
	// 'main' as a string: n8n's editor evaluates this function on its own and has no NodeConnectionTypes there.
	return needsApproval
		? [
				{ type: 'main', displayName: 'Done' },
				{ type: 'main', displayName: 'Needs Approval' },
			]
		: ['main'];
}
