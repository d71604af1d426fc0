/**
 * One real n8n for the editor test: the packed package installed as a community package (by the e2e
 * global set-up, which also stops everything on Ctrl-C), the scripted demo model standing in for OpenAI,
 * its credentials, the example workflows and the sub-node workflow of the Logs panel test imported, and the owner account set up through n8n's REST API
 * as the first visit of the editor would.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureN8n, type N8nInstallation } from '../../../scripts/n8n-cache';
import {
	createN8nInstance,
	readExampleWorkflows,
	useCredential,
	type CredentialImport,
	type N8nInstance,
} from '../../../scripts/n8n-local';
import { demoModel } from '../../../src/demo/demo-model';
import { startScriptedServer, type ScriptedServer } from '../../../src/demo/scripted-server';
import { OPENAI_CREDENTIAL, SUB_NODE_WORKFLOW } from './sub-node-workflow';

export const CREDENTIAL: Omit<CredentialImport, 'data'> = {
	id: 'agentCoreBrowserCred',
	name: 'Agent Core (browser test)',
	type: 'agentCoreOpenAiApi',
};

/** The API header credential of examples/agent-core-http-tool.json, which the panel should offer. */
export const HEADER_CREDENTIAL: CredentialImport = {
	id: 'agentCoreBrowserHeader',
	name: 'API header (browser test)',
	type: 'agentCoreHttpHeaderApi',
	data: {
		headerName: 'X-Api-Key',
		headerSecret: 'browser-test-secret',
		allowedDomains: 'api.example.com',
	},
};

/** The examples imported: the two the editor test runs, the HTTP tool example for its credential, the chat example the node creator test starts from. */
export const EXAMPLE_FILES = [
	'agent-core-webhook.json',
	'agent-core-webhook-strict-limits.json',
	'agent-core-http-tool.json',
	'agent-core-simple-chat.json',
];

/** The models the scripted server lists at GET /v1/models, i.e. what the panel's model list shows. */
export const LISTED_MODELS = ['gpt-4o-mini', 'demo-model'];

export const OWNER = {
	email: 'owner@example.com',
	firstName: 'Olive',
	lastName: 'Owner',
	password: 'Browser-Test-1',
};

export interface N8nForEditor {
	installation: N8nInstallation;
	n8n: N8nInstance;
	model: ScriptedServer;
	baseUrl: string;
	/** Stops n8n and the model server; each is stopped even when the other fails. Idempotent. */
	stop(): Promise<void>;
}

/** Where things go: AGENT_CORE_E2E_RUN_FOLDER and AGENT_CORE_E2E_NODES_FOLDER come from the e2e global set-up. */
export function runFolders(): { runFolder: string; nodesFolder: string } {
	const runFolder = process.env.AGENT_CORE_E2E_RUN_FOLDER;
	const nodesFolder = process.env.AGENT_CORE_E2E_NODES_FOLDER;
	if (!runFolder || !nodesFolder) {
		throw new Error(
			'AGENT_CORE_E2E_RUN_FOLDER/AGENT_CORE_E2E_NODES_FOLDER are not set: run with `npx jest -c jest.browser.config.js`, whose global set-up packs the package',
		);
	}
	return { runFolder, nodesFolder };
}

/**
 * Starts everything, stopping what already started when a later part fails. `onStarted` receives the
 * stop function as soon as there is anything to stop, so the caller's afterAll can stop a half-started set.
 */
export async function startN8nForEditor(
	line: 1 | 2,
	onStarted: (stop: () => Promise<void>) => void,
): Promise<N8nForEditor> {
	const { runFolder, nodesFolder } = runFolders();
	const installation = await ensureN8n(line);
	let model: ScriptedServer | undefined;
	let n8n: N8nInstance | undefined;
	let stopping: Promise<void> | undefined;
	const stop = () =>
		(stopping ??= (async () => {
			const results = await Promise.allSettled([n8n?.stop(), model?.close()]);
			const failed = results.find(
				(result): result is PromiseRejectedResult => result.status === 'rejected',
			);
			if (failed) throw failed.reason;
		})());
	onStarted(stop);

	model = await startScriptedServer({ script: demoModel, models: LISTED_MODELS });
	const credential: CredentialImport = {
		...CREDENTIAL,
		data: { apiKey: 'browser-test', url: model.openaiBaseUrl },
	};
	const openAiCredential: CredentialImport = {
		...OPENAI_CREDENTIAL,
		data: { apiKey: 'browser-test', url: model.openaiBaseUrl },
	};
	const workflows = readExampleWorkflows(EXAMPLE_FILES).map((workflow) =>
		useCredential(
			useCredential(workflow, CREDENTIAL.type, credential),
			HEADER_CREDENTIAL.type,
			HEADER_CREDENTIAL,
		),
	);
	const userFolder = fs.mkdtempSync(path.join(runFolder, `n8n-${line}-`));
	n8n = await createN8nInstance({
		installation,
		nodesFolder,
		credentials: [credential, HEADER_CREDENTIAL, openAiCredential],
		workflows: [...workflows, SUB_NODE_WORKFLOW],
		userFolder,
	});
	await n8n.start({ webhookPaths: ['agent-core'], timeoutMs: 240000 });
	await setUpOwner(n8n);
	return { installation, n8n, model, baseUrl: n8n.baseUrl, stop };
}

/** POST /rest/owner/setup: accepted once, on an instance without an owner (n8n 1.123 and 2.41 alike). */
async function setUpOwner(n8n: N8nInstance): Promise<void> {
	const response = await fetch(`${n8n.baseUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(OWNER),
		signal: AbortSignal.timeout(30000),
	});
	if (response.status !== 200) {
		throw new Error(
			`POST /rest/owner/setup answered HTTP ${response.status}: ${(await response.text()).slice(0, 1000)}\n--- n8n log (tail) ---\n${n8n.logTail(3000)}`,
		);
	}
}
