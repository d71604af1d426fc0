import { describeMcpClientToolInN8n } from './support/mcp-client-tool-scenarios';

describeMcpClientToolInN8n(1);
