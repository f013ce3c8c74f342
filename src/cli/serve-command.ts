// `sightline serve`: runs the whole platform in one process on the configured database.
import type { Command } from 'commander';
import { checkListenSafety, loadConfig, settings, type SettingName } from '../config/config.js';
import { collectorUrl } from '../identity/tenants/tenant-service.js';

import { addSettingOptions, settingValues } from './options.js';
import { workersAtDefaultYoungGeneration } from './node-flags.js';

/** Connections waiting to be accepted; Linux caps this at net.core.somaxconn (4096 by default). */
const LISTEN_BACKLOG = 4096;

const serveSettings = Object.keys(settings) as SettingName[];

export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description(
      'Run Sightline: the collector, the API and detection, in one process (or scale-out roles: --role, --queue)',
    );
  addSettingOptions(command, serveSettings).action(async (options: Record<string, unknown>) => {
    workersAtDefaultYoungGeneration();
    const config = loadConfig(settingValues(options, serveSettings));
    checkListenSafety(config);
    // Loaded here, not at the top: the server and everything it runs are the bulk of the code,
    // and every other command (tenant, token, user, …) starts without them.
    const { createSightline } = await import('../app/app.js');
    const sightline = await createSightline(config);
    const log = sightline.server.log;
    try {
      // A deep accept queue: many forwarders connecting at once while the event loop is busy
      // must wait in it, not be dropped and reset by the kernel (Linux caps it at somaxconn).
      await sightline.server.listen({ host: config.host, port: config.port, backlog: LISTEN_BACKLOG });
    } catch (error) {
      await sightline.close();
      throw new Error(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`, { cause: error });
    }
    const address = sightline.server.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const scheme = config.tlsCert ? 'https' : 'http';
    log.info(
      `Sightline listening on ${scheme}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port} (database: ${sightline.database.location})`,
    );
    log.info(
      `public URL ${sightline.collectorAddress.publicUrl}: collector addresses are ${collectorUrl(sightline.collectorAddress, '<code_name>')}/log_sink`,
    );
    if (sightline.firstTenant) {
      const url = collectorUrl(sightline.collectorAddress, sightline.firstTenant.codeName);
      log.info(
        `created tenant ${JSON.stringify(sightline.firstTenant.codeName)} on first start; its collector: ${url}/log_sink`,
      );
      log.info(
        `try: curl -i -H 'Content-Type: application/json' -d '{"message":"hello"}' ${scheme}://127.0.0.1:${port}/log_sink`,
      );
    }

    if (sightline.firstOperator) {
      const { user, generatedPassword } = sightline.firstOperator;
      log.info(
        `created the platform operator account ${user.email} on first start; sign in at ${scheme}://127.0.0.1:${port}/`,
      );
      // Printed once, to the terminal and never to the log: only the operator who started the
      // server sees it. It cannot be shown again; `sightline user create` makes more accounts.
      if (generatedPassword) {
        process.stderr.write(
          `\n  Operator sign-in: ${user.email}\n  Password (shown once, store it now): ${generatedPassword}\n\n`,
        );
      }
    }

    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info(`${signal} received: finishing accepted requests and closing`);
      sightline.close().then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, 'error while closing');
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
}
