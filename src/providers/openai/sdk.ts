/** The openai SDK, loaded when the first client is made (see loadOnce): the adapter and its stream reader share it. */
import { loadOnce } from '../../core/load-once';

export const openAiSdk = loadOnce(() => (require('openai') as typeof import('openai')).default);
