// Issue #41's browser check of the Memory input: a memory sub-node added under Agent Core's Memory input in the real
// editor makes the chat's second message see the first (the demo model says "I can see 1 earlier turn; …").
import type { Page } from 'playwright-core';
import * as editor from './editor';
import { looksLikeJson } from './chat';
import { pickNodeCreatorItem, searchNodeCreator } from './node-creator';
import type { Steps } from './steps';

const MINUTE = 60000;

export interface MemoryWalk {
	steps: Steps;
	page: Page;
	/** The memory sub-node as the node creator lists it: n8n's own, or this package's. */
	memory: 'Simple Memory' | 'Agent Context Memory';
	/** Sends a chat message and returns the reply's text. */
	send: (message: string) => Promise<string>;
	/** The Agent Core node's name on the canvas. */
	agent: string;
}

/** Adds `memory` under the agent's Memory input with its defaults, chats twice, then deletes it again. */
export async function rememberThroughMemory({
	steps,
	page,
	memory,
	send,
	agent,
}: MemoryWalk): Promise<void> {
	await steps.run(`click "+" under ${agent}'s Memory input and add ${memory}`, async () => {
		const handle = page.locator(
			'[data-test-id="canvas-node-input-handle"][data-connection-type="ai_memory"]',
		);
		await editor.canvasNode(page, agent).hover();
		await handle.locator('[data-test-id="canvas-handle-plus"]').first().click();
		const names = await searchNodeCreator(page, memory, memory);
		if (!names.includes(memory))
			throw new Error(`the Memory "+" lists no ${memory}; it lists: ${names.join(' | ')}`);
		await pickNodeCreatorItem(page, memory);
		// n8n 2.x shows a community node's details first, with "Add to workflow".
		const parameters = editor.nodePanel(page).locator('[data-test-id="node-parameters"]');
		const addToWorkflow = page.getByRole('button', { name: 'Add to workflow' }).first();
		await parameters.or(addToWorkflow).first().waitFor({ state: 'visible', timeout: 30000 });
		if (await addToWorkflow.isVisible()) await addToWorkflow.click();
		await parameters.waitFor({ state: 'visible', timeout: 30000 });
	});
	const slug = memory.toLowerCase().replace(/\s+/g, '-');
	await steps.screenshot(`first-agent-09-${slug}-panel.png`);
	await steps.run('close the panel', () => editor.closeNodePanel(page));

	const first = `Remember the colour blue (${memory}).`;
	await steps.run(
		`chat twice through ${memory}: the second message sees the first`,
		async () => {
			const opening = await send(first);
			if (looksLikeJson(opening)) throw new Error(`the chat shows JSON: ${opening}`);
			if (/earlier turn/.test(opening))
				throw new Error(
					`the first message through a new ${memory} already saw history: ${opening}`,
				);
			const second = await send('Which colour did I ask you to remember?');
			if (!second.includes(`I can see 1 earlier turn; your previous message was "${first}"`))
				throw new Error(`the second message did not see the first through ${memory}: ${second}`);
		},
		4 * MINUTE,
	);
	await steps.screenshot(`first-agent-10-${slug}-second-message.png`);

	await steps.run(`delete ${memory} from the canvas`, async () => {
		const node = editor.canvasNode(page, memory);
		await node.click();
		await page.keyboard.press('Delete');
		await node.waitFor({ state: 'detached', timeout: 15000 });
	});
}
