// Long-connection mode: the SDK's WSClient feeding the adapter's EventDispatcher. `start()` of the
// SDK returns before it connects, so this waits for onReady / onError. After a network cut the SDK
// reconnects by itself; nothing is lost (Feishu pushes unacknowledged events again) and the
// adapter de-duplicates what comes twice.
import { type EventDispatcher, LoggerLevel, WSClient } from '@larksuiteoapi/node-sdk';
import type { CoreLogger } from '../../src/core/types.ts';
import type { FeishuConfig } from './config.ts';
import { FeishuApiError } from './errors.ts';
import { sdkLogger } from './sdk-support.ts';

const START_TIMEOUT_MS = 30_000;

export async function openLongConnection(
  config: FeishuConfig,
  dispatcher: EventDispatcher,
  log: CoreLogger,
  secrets: readonly string[],
): Promise<WSClient> {
  let client: WSClient | undefined;
  let ready = false;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new FeishuApiError(`could not open the Feishu long connection at ${config.baseUrl} within 30 s`, { kind: 'transient' })),
        START_TIMEOUT_MS,
      );
      timer.unref();
      client = new WSClient({
        appId: config.appId,
        appSecret: config.appSecret,
        domain: config.baseUrl,
        logger: sdkLogger(log, secrets),
        loggerLevel: LoggerLevel.warn,
        autoReconnect: true,
        onReady: () => {
          ready = true;
          clearTimeout(timer);
          resolve();
        },
        onError: (error: Error) => {
          if (ready) {
            log.error({}, `the Feishu long connection failed for good: ${error.message}; restart Parley`);
            return;
          }
          clearTimeout(timer);
          reject(
            new FeishuApiError(
              `the Feishu long connection was refused: ${error.message} (check FEISHU_APP_ID / FEISHU_APP_SECRET, and enable "Receive events through persistent connection" under Events and callbacks)`,
              { kind: 'auth' },
            ),
          );
        },
        onReconnected: () => log.info({}, 'Feishu long connection restored'),
        onReconnecting: () => log.warn({}, 'Feishu long connection lost; reconnecting'),
      });
      void client.start({ eventDispatcher: dispatcher });
    });
  } catch (error) {
    client?.close({ force: true });
    throw error;
  }
  return client!;
}
