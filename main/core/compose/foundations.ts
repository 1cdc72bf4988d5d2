import { join } from 'node:path';
import { StatusBoard } from '../app';
import { AuditLog } from '../audit';
import type { CoreConfig } from '../config';
import type { CoreModule } from '../core-module';
import { EventBus } from '../events';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { openStore } from '../store';

/** What every module is built on: redaction, the log, events, status, the database and its audit log. */
export function buildFoundations(config: CoreConfig, dataDir: string) {
  const redactor = new Redactor();
  redactor.addEnvSecrets(process.env);
  const log = createLogger({ file: join(dataDir, 'logs', 'nexus.log'), stderr: config.logToStderr, redactor });
  const events = new EventBus(redactor, log);
  const status = new StatusBoard(events);
  const db = openStore(join(dataDir, 'nexus.db'));
  const audit = new AuditLog(db);
  const module: CoreModule = {
    name: 'foundations',
    dispose: () => {
      audit.close();
      db.close();
    },
  };
  return { redactor, log, events, status, db, audit, module };
}
export type Foundations = ReturnType<typeof buildFoundations>;
