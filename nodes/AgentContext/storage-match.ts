// Persist's check that it writes where its prepare reads: n8n cannot default one node's field from another's.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

interface Storage {
	storage: string;
	keyPrefix: string;
	scope: string;
}

const STORAGE_WORDS: Record<string, string> = { redis: 'Redis', memory: 'In-Memory' };
const SCOPE_WORDS: Record<string, string> = { shared: 'Shared', workflow: 'This Workflow' };

/**
 * Storage, Key Prefix and Conversation Scope as saved in the workflow (n8n leaves a field out when it holds its
 * default, and the scope's default is Shared up to version 2, This Workflow from version 3).
 */
function storageOf(parameters: IDataObject, typeVersion: number): Storage {
	const options = (parameters.options ?? {}) as IDataObject;
	const scope = parameters.contextScope;
	return {
		storage: typeof parameters.storage === 'string' ? parameters.storage : 'memory',
		keyPrefix: typeof options.keyPrefix === 'string' ? options.keyPrefix : '',
		scope: typeof scope === 'string' ? scope : typeVersion >= 3 ? 'workflow' : 'shared',
	};
}

/** Whether the two can be told apart without running expressions (an expression prefix is compared by neither). */
const differ = (a: Storage, b: Storage) =>
	a.storage !== b.storage ||
	a.scope !== b.scope ||
	(a.keyPrefix !== b.keyPrefix && !a.keyPrefix.startsWith('=') && !b.keyPrefix.startsWith('='));

function describe(node: string, where: Storage, withScope: boolean): string {
	const words = [STORAGE_WORDS[where.storage] ?? where.storage];
	if (where.keyPrefix) words.push(`Key Prefix "${where.keyPrefix}"`);
	if (withScope) words.push(`Conversation Scope ${SCOPE_WORDS[where.scope] ?? where.scope}`);
	return `"${node}" uses ${words.join(', ')}`;
}

const isPrepare = (node: { type: string; parameters?: IDataObject }) =>
	/(^|\.)agentContext$/.test(node.type) && (node.parameters?.operation ?? 'prepare') === 'prepare';

/** The nearest enabled prepare upstream (one level more each time), so two conversations in a row are checked pair by pair. */
function nearestPrepare(context: IExecuteFunctions, name: string) {
	for (let depth = 1, seen = -1; ; depth++) {
		const parents = context.getParentNodes(name, { includeNodeParameters: true, depth });
		const prepare = parents.find((node) => !node.disabled && isPrepare(node));
		if (prepare || parents.length === seen) return prepare;
		seen = parents.length;
	}
}

/**
 * A sentence when an Agent Context prepare upstream of this persist reads another store (Storage or Options →
 * Key Prefix): the turn persist saves is then never loaded again. Undefined when they agree or there is none.
 */
export function storageMismatch(context: IExecuteFunctions): string | undefined {
	const self = context.getNode();
	const own = storageOf(self.parameters, self.typeVersion);
	const prepare = nearestPrepare(context, self.name);
	if (!prepare) return undefined;
	const theirs = storageOf(prepare.parameters ?? {}, prepare.typeVersion);
	if (!differ(theirs, own)) return undefined;
	const withScope = theirs.scope !== own.scope;
	return (
		`${describe(prepare.name, theirs, withScope)} but ${describe(self.name, own, withScope)}: ` +
		'the turn saved here is not the history prepare loads next time. Set both to the same Storage, Key Prefix and Conversation Scope.'
	);
}
