import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/** The Feishu / Lark custom bot Agent Core's feishu_bot tool posts to: its webhook address and signing secret. */
export class AgentCoreFeishuBotApi implements ICredentialType {
	name = 'agentCoreFeishuBotApi';

	displayName = 'Agent Core: Feishu / Lark Bot API';

	icon = 'file:feishu-bot.svg' as const;

	documentationUrl = 'https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot';

	properties: INodeProperties[] = [
		{
			displayName: 'Webhook URL',
			name: 'webhookUrlWithToken',
			type: 'string',
			// The address carries the bot's token: whoever has it can post as the bot.
			typeOptions: { password: true },
			required: true,
			default: '',
			placeholder: 'https://open.feishu.cn/open-apis/bot/v2/hook/…',
			description: 'From the group’s bot settings (Lark: open.larksuite.com)',
		},
		{
			displayName: 'Signing Secret',
			name: 'signingSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Only when the bot’s security settings have signature verification on',
		},
	];
}
