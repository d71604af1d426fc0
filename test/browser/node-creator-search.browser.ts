/**
 * `npx jest -c jest.browser.config.js node-creator-search`: both nodes are found the natural way (issue #28).
 * From the output "+" of a Chat Trigger (examples/agent-core-simple-chat.json with its Agent Core and Simple Memory removed),
 * n8n's node creator searched for "agent" lists Agent Core and Agent Context: it drops every AI node not filed
 * under "Root Nodes" from that search (filterOutAiNodes in n8n's nodeCreator/composables/useViewStacks.ts).
 * Same lines as editor.browser.ts (AGENT_CORE_BROWSER_N8N); screenshots in test-output/browser/n8n-<line>/.
 */
import * as path from 'node:path';
import { REPO_FOLDER } from '../../scripts/n8n-local';
import { launchBrowser, type BrowserSession } from './support/browser';
import * as editor from './support/editor';
import { OWNER, runFolders, startN8nForEditor, type N8nForEditor } from './support/n8n-for-editor';
import { Steps } from './support/steps';

const CHAT_WORKFLOW = 'Agent Core chat (Chat Trigger, no Redis)';
const TRIGGER = 'When chat message received';
const MINUTE = 60000;

const value = (process.env.AGENT_CORE_BROWSER_N8N ?? '1').trim();
const lines = (value === 'all' ? [1, 2] : value.split(',').map(Number)).filter(
	(line): line is 1 | 2 => line === 1 || line === 2,
);

for (const line of lines) {
	describe(`the node creator's search from a Chat Trigger's + (n8n line ${line}, Chromium)`, () => {
		let instance: N8nForEditor | undefined;
		let stopN8n: (() => Promise<void>) | undefined;
		let browser: BrowserSession | undefined;
		const steps = new Steps({
			screenshotFolder: path.join(REPO_FOLDER, 'test-output', 'browser', `n8n-${line}`),
			diagnostics: () =>
				instance
					? `--- n8n log ${instance.n8n.logPath} (tail) ---\n${instance.n8n.logTail(2500)}`
					: '',
		});
		afterAll(async () => {
			await browser?.close();
			await stopN8n?.();
		}, 2 * MINUTE);

		it(
			'lists Agent Core and Agent Context for "agent", and Agent Core for "agent core"',
			async () => {
				instance = await startN8nForEditor(line, (stop) => (stopN8n = stop));
				browser = await launchBrowser(path.join(runFolders().runFolder, `chromium-search-${line}`));
				const { page } = browser;
				await steps.run('sign in and open the chat example', async () => {
					await editor.signIn(page, instance!.baseUrl, OWNER);
					await editor.openWorkflow(
						page,
						instance!.baseUrl,
						await editor.workflowIdByName(page, CHAT_WORKFLOW),
						TRIGGER,
					);
				});
				await steps.run('remove Agent Core, so that the trigger’s output shows its +', async () => {
					await editor.canvasNode(page, 'Agent Core').click();
					await page.keyboard.press('Delete');
					await editor.canvasNode(page, 'Agent Core').waitFor({ state: 'detached' });
					// The example's Simple Memory goes too: the trigger's output is then the canvas's only +.
					await editor.canvasNode(page, 'Simple Memory').click();
					await page.keyboard.press('Delete');
					await editor.canvasNode(page, 'Simple Memory').waitFor({ state: 'detached' });
				});
				const search = page
					.locator('[data-test-id="node-creator-search-bar"] input, input[placeholder^="Search"]')
					.first();
				const listed = async (term: string) => {
					await search.fill(term);
					// The list is filtered as the user types; wait until it settled on a result for this term.
					await page
						.locator('[data-test-id="node-creator-item-name"]')
						.first()
						.waitFor({ state: 'visible' });
					await page.waitForTimeout(500);
					return page.locator('[data-test-id="node-creator-item-name"]').allInnerTexts();
				};
				await steps.run('click the + on the trigger’s output and search "agent"', async () => {
					await page.locator('[data-test-id="canvas-handle-plus"]').first().click();
					await search.waitFor({ state: 'visible' });
					expect(await listed('agent')).toEqual(
						expect.arrayContaining(['Agent Core', 'Agent Context']),
					);
					await page.screenshot({
						path: path.join(
							REPO_FOLDER,
							'test-output',
							'browser',
							`n8n-${line}`,
							'node-creator-search-agent.png',
						),
					});
				});
				await steps.run('search "agent core"', async () => {
					expect(await listed('agent core')).toContain('Agent Core');
				});
			},
			6 * MINUTE,
		);
	});
}
