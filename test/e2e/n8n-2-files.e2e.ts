import { describeFilesInN8n } from './support/files-scenarios';

describeFilesInN8n();
