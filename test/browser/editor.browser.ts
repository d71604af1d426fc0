/**
 * `npx jest -c jest.browser.config.js`: the Agent Core panel in the real n8n editor, in Debian's Chromium.
 *
 * One n8n (line 1 = 1.123.x by default; AGENT_CORE_BROWSER_N8N=2, "1,2" or all for 2.41.x too) with the
 * packed package installed as a community package, the examples imported and the scripted demo model
 * standing in for OpenAI. In the browser: sign in, open examples/agent-core-webhook.json, open the Agent
 * Core panel and read its fields, run the workflow from the editor ("Execute workflow" + the request its
 * Webhook trigger waits for) and read final_answer in the output pane; run Agent Core on n8n's OpenAI Chat
 * Model sub-node and read the sub-node's model calls in the Logs panel. Screenshots go to
 * test-output/browser/n8n-<line>/; a failed step adds failure-*.png there and names itself in the error.
 */
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { readExampleWorkflows, REPO_FOLDER } from '../../scripts/n8n-local';
import { DEMO_PROMPT } from '../../src/demo/demo-model';
import { assertChromiumInstalled, launchBrowser, type BrowserSession } from './support/browser';
import * as editor from './support/editor';
import {
	CREDENTIAL,
	HEADER_CREDENTIAL,
	LISTED_MODELS,
	OWNER,
	runFolders,
	startN8nForEditor,
	type N8nForEditor,
} from './support/n8n-for-editor';
import { freshFolder, Steps } from './support/steps';
import {
	CHAT_MODEL_NODE,
	SUB_NODE_WEBHOOK_PATH,
	SUB_NODE_WORKFLOW,
} from './support/sub-node-workflow';

const EXAMPLE = readExampleWorkflows(['agent-core-webhook.json'])[0];
const HTTP_TOOL_EXAMPLE = readExampleWorkflows(['agent-core-http-tool.json'])[0];
const WEBHOOK_PATH = 'agent-core';
const NODE = 'Agent Core';
/** What the demo model answers to DEMO_PROMPT after its one json_transform call. */
const EXPECTED_ANSWER = 'In stock and under 50 EUR: Desk lamp and USB-C hub.';
/** Field labels the panel shows for the example's settings (Provider is handled apart: see the panel test). */
// The example's Agent Core is version 2 (issue #41): its settings show under Options, in n8n's names.
const MAIN_FIELDS = [
	'Model',
	'Input',
	'Prompt (User Message)',
	'Allowed Tools',
	'Options',
	'Max Iterations',
	'System Message',
	'Tool Settings (JSON)',
];
const PROVIDERS = ['OpenAI or OpenAI-Compatible', 'Google Gemini'];
const MINUTE = 60000;

function selectedLines(): Array<1 | 2> {
	const value = (process.env.AGENT_CORE_BROWSER_N8N ?? '1').trim();
	const lines = value === 'all' ? [1, 2] : value.split(',').map(Number);
	if (!lines.length || lines.some((line) => line !== 1 && line !== 2)) {
		throw new Error(`AGENT_CORE_BROWSER_N8N must be 1, 2, "1,2" or all (got "${value}")`);
	}
	return lines as Array<1 | 2>;
}

for (const line of selectedLines()) {
	describe(`the Agent Core panel in the n8n editor (n8n line ${line}, Chromium)`, () => {
		const screenshotFolder = path.join(REPO_FOLDER, 'test-output', 'browser', `n8n-${line}`);
		let instance: N8nForEditor | undefined;
		let stopN8n: (() => Promise<void>) | undefined;
		let browser: BrowserSession | undefined;
		let workflowId: string | undefined;
		const steps = new Steps({
			screenshotFolder,
			diagnostics: () =>
				instance
					? `--- n8n log ${instance.n8n.logPath} (tail) ---\n${instance.n8n.logTail(2500)}`
					: '',
		});

		/** The page, once sign-in succeeded; later tests fail with this message instead of a confusing one. */
		function signedInPage(): Page {
			if (!browser || !workflowId)
				throw new Error(
					'not signed in with the example workflow found: see the first test of this block',
				);
			return browser.page;
		}

		/** The example's canvas with no panel open. */
		async function onCanvas(page: Page): Promise<void> {
			await steps.run('back on the example workflow canvas', async () => {
				if (!page.url().endsWith(`/workflow/${workflowId}`))
					await editor.openWorkflow(page, instance!.baseUrl, workflowId!, NODE);
				await editor.closeNodePanel(page);
			});
		}

		/**
		 * Clicks "Execute workflow", posts the demo prompt to the test webhook the trigger waits on, checks the
		 * answer, and sees Agent Core succeed after the demo model's two calls (a json_transform action, the answer).
		 */
		async function runDemoFromEditor(page: Page, webhookPath: string): Promise<void> {
			const callsBefore = instance!.model.requests.length;
			await steps.run(
				'click "Execute workflow" and send the request the Webhook trigger waits for',
				async () => {
					const response = await editor.executeWorkflowThroughTestWebhook(
						page,
						instance!.baseUrl,
						webhookPath,
						{ prompt: DEMO_PROMPT },
					);
					if (response.status !== 200)
						throw new Error(
							`the test webhook answered HTTP ${response.status}: ${response.text.slice(0, 1000)}`,
						);
					expect(JSON.parse(response.text).final_answer).toBe(EXPECTED_ANSWER);
				},
				2 * MINUTE,
			);
			await steps.run('see Agent Core succeed on the canvas', async () => {
				await editor.waitForNodeSuccess(page, NODE);
				expect(instance!.model.requests.length - callsBefore).toBe(2);
			});
		}

		beforeAll(async () => {
			freshFolder(screenshotFolder);
			await steps.run('find Chromium', async () => assertChromiumInstalled());
			// A cold cache installs n8n first (several minutes); a warm one starts in well under a minute.
			instance = await steps.run(
				'start n8n with the package, the examples and the demo model',
				() => startN8nForEditor(line, (stop) => (stopN8n = stop)),
				50 * MINUTE,
			);
			const version = instance.installation.version;
			process.stdout.write(
				`\n[browser] n8n ${version} at ${instance.baseUrl}, screenshots in ${path.relative(REPO_FOLDER, screenshotFolder)}/\n`,
			);
			browser = await steps.run(
				'start Chromium',
				() => launchBrowser(path.join(runFolders().runFolder, `chromium-profile-n8n-${line}`)),
				2 * MINUTE,
			);
			steps.page = browser.page;
		}, 55 * MINUTE);

		afterAll(async () => {
			const problems: string[] = [];
			await browser?.close().catch((error) => problems.push(`closing Chromium: ${error.message}`));
			await stopN8n?.().catch((error) =>
				problems.push(`stopping n8n or the model server: ${error.message}`),
			);
			process.stdout.write(`\n[browser] n8n line ${line} steps:\n${steps.summary()}\n`);
			if (problems.length) throw new Error(problems.join('\n'));
		}, 2 * MINUTE);

		test('signs in as the owner and opens the example workflow with Agent Core on the canvas', async () => {
			if (!browser || !instance)
				throw new Error('n8n or Chromium did not start: see the beforeAll error');
			const { page } = browser;
			await steps.run('sign in as the owner', () => editor.signIn(page, instance!.baseUrl, OWNER));
			await steps.run(`see "${EXAMPLE.name}" in the workflow list`, () =>
				page
					.getByText(EXAMPLE.name, { exact: true })
					.first()
					.waitFor({ state: 'visible', timeout: 30000 }),
			);
			await steps.screenshot('01-signed-in.png');
			const id = await steps.run('find the example workflow id through the REST API', () =>
				editor.workflowIdByName(page, EXAMPLE.name),
			);
			await steps.run('open the example workflow', () =>
				editor.openWorkflow(page, instance!.baseUrl, id, NODE),
			);
			workflowId = id;
			await steps.screenshot('02-canvas.png');
		});

		test('the panel shows the main fields with the example settings', async () => {
			const page = signedInPage();
			await onCanvas(page);
			const panel = await steps.run('open the Agent Core panel by double-clicking the node', () =>
				editor.openNodePanel(page, NODE),
			);
			await steps.screenshot('03-panel-open.png');
			await steps.run('see the main field labels', async () => {
				const labels = await editor.visibleParameterLabels(panel);
				const missing = MAIN_FIELDS.filter((field) => !labels.includes(field));
				if (missing.length)
					throw new Error(`the panel lacks ${missing.join(', ')}; it shows: ${labels.join(' | ')}`);
			});
			await steps.run('see the example settings in the fields', async () => {
				expect(await panel.locator('[data-test-id="rlc-input"]').first().inputValue()).toBe(
					'gpt-4o-mini',
				);
				const credential = await panel
					.locator('[data-test-id="node-credentials-select"]')
					.first()
					.evaluate((element: any) =>
						[
							element.innerText,
							...[...element.querySelectorAll('input')].map((input: any) => input.value),
						].join(' '),
					);
				expect(credential).toContain(CREDENTIAL.name);
				expect(
					await panel.locator('[data-test-id="parameter-input-allowedTools"]').innerText(),
				).toContain('json_transform');
				// Version 2 (the examples' since issue #41) keeps Max Iterations (maxSteps) under Options.
				const maxSteps = EXAMPLE.nodes.find((node) => node.name === NODE)!.parameters.options
					.maxSteps;
				expect(
					await panel.locator('[data-test-id="parameter-input-maxSteps"] input').inputValue(),
				).toBe(String(maxSteps));
			});
			await steps.run('scroll to the last field', () =>
				panel.getByText('Tool Settings (JSON)', { exact: true }).first().scrollIntoViewIfNeeded(),
			);
			await steps.screenshot('04-panel-scrolled.png');
			await steps.run('close the panel', () => editor.closeNodePanel(page));
		});

		test('runs the example from the editor and shows final_answer in the output pane', async () => {
			const page = signedInPage();
			await onCanvas(page);
			await runDemoFromEditor(page, WEBHOOK_PATH);
			await steps.screenshot('05-run-finished.png');

			const panel = await steps.run('open the Agent Core panel after the run', () =>
				editor.openNodePanel(page, NODE),
			);
			await steps.run('see final_answer in the output table', () =>
				editor.outputPaneText(panel, 'table', EXPECTED_ANSWER),
			);
			await steps.screenshot('06-output-table.png');
			await steps.run('see final_answer and finish_reason in the output JSON', async () => {
				const json = await editor.outputPaneText(panel, 'json', 'final_answer');
				expect(json).toMatch(
					/"?final_answer"?\s*:\s*"In stock and under 50 EUR: Desk lamp and USB-C hub\."/,
				);
				expect(json).toMatch(/"?finish_reason"?\s*:\s*"final"/);
			});
			await steps.screenshot('07-output-json.png');
			await steps.run('close the panel', () => editor.closeNodePanel(page));
		});

		test("the panel lists the endpoint's models and offers both providers", async () => {
			const page = signedInPage();
			await onCanvas(page);
			const panel = await steps.run('open the Agent Core panel', () =>
				editor.openNodePanel(page, NODE),
			);
			await steps.run("see the endpoint's models in the Model list (From list mode)", async () => {
				expect(await editor.listedModels(page, panel)).toEqual(
					expect.arrayContaining(LISTED_MODELS),
				);
				// Close the open model list (it covers the fields just below it) by clicking outside it, on a label.
				await panel.getByText('Input', { exact: true }).first().click();
				await page
					.getByText('demo-model', { exact: true })
					.waitFor({ state: 'hidden', timeout: 10000 });
			});
			// n8n takes a parameter that only selects the credential type (here Provider) out of the panel and offers
			// the choice in the credential dialog instead; a visible Provider field would do as well.
			await steps.run(
				'see both providers offered (Provider field, or the "Create new credential" dialog)',
				async () => {
					if ((await editor.visibleParameterLabels(panel)).includes('Provider')) return;
					const providers = await editor.providersInCredentialDialog(page, panel, () =>
						steps.screenshot('08-provider-choice.png'),
					);
					expect(providers).toEqual(expect.arrayContaining(PROVIDERS));
				},
			);
			await steps.run('close the panel', () => editor.closeNodePanel(page));
		});

		test('the HTTP tool example offers its optional API header credential in the panel', async () => {
			const page = signedInPage();
			const id = await steps.run('find the HTTP tool example through the REST API', () =>
				editor.workflowIdByName(page, HTTP_TOOL_EXAMPLE.name),
			);
			await steps.run('open the HTTP tool example', () =>
				editor.openWorkflow(page, instance!.baseUrl, id, NODE),
			);
			const panel = await steps.run('open its Agent Core panel', () =>
				editor.openNodePanel(page, NODE),
			);
			await steps.run(
				'see the API header credential chosen beside the model credential',
				async () => {
					const chosen = await panel
						.locator('[data-test-id="node-credentials-select"]')
						.evaluateAll((elements: any[]) =>
							elements.map((element) =>
								[
									element.innerText,
									...[...element.querySelectorAll('input')].map((input: any) => input.value),
								].join(' '),
							),
						);
					expect(chosen.join(' | ')).toContain(HEADER_CREDENTIAL.name);
					expect(chosen.join(' | ')).toContain(CREDENTIAL.name);
				},
			);
			await steps.screenshot('09-http-tool-credentials.png');
			await steps.run('close the panel', () => editor.closeNodePanel(page));
		});
		test("the Logs panel shows the OpenAI Chat Model sub-node's two model calls under Agent Core, with token counts", async () => {
			const page = signedInPage();
			const id = await steps.run('find the sub-node workflow through the REST API', () =>
				editor.workflowIdByName(page, SUB_NODE_WORKFLOW.name),
			);
			await steps.run('open the sub-node workflow', () =>
				editor.openWorkflow(page, instance!.baseUrl, id, CHAT_MODEL_NODE),
			);
			// Through the sub-node too, the demo model answers one json_transform action, then the final answer.
			await runDemoFromEditor(page, SUB_NODE_WEBHOOK_PATH);
			const logs = await steps.run('open the Logs panel', () => editor.openLogsPanel(page));
			await steps.run(
				`see two ${CHAT_MODEL_NODE} entries right under Agent Core, each with its token count`,
				async () => {
					const entries = await editor.logEntries(logs);
					const listing = entries.map((entry) => `${entry.depth}: ${entry.text}`).join('\n');
					const agent = entries.findIndex((entry) => entry.text.startsWith(NODE));
					const after = entries.slice(agent + 1);
					const nextSibling = after.findIndex((entry) => entry.depth <= entries[agent]?.depth);
					const children = nextSibling < 0 ? after : after.slice(0, nextSibling);
					if (
						agent < 0 ||
						children.length !== 2 ||
						!children.every(
							(entry) => entry.text.startsWith(CHAT_MODEL_NODE) && /\d+ Tokens/i.test(entry.text),
						)
					) {
						throw new Error(
							`expected two ${CHAT_MODEL_NODE} entries with "N Tokens" one level under ${NODE}; the Logs panel lists (depth: text):\n${listing}`,
						);
					}
				},
			);
			await steps.screenshot(`10-logs-panel-sub-node-n8n-${line}.png`);
		});
	});
}
