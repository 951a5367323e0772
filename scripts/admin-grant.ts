// `npm run admin:grant -- <email>`: the operator, on the server, proves that an ADMIN_EMAILS address is
// theirs and gives its account the admin role (for deployments without SMTP_URL, where no verification
// link can prove it). Reads the same configuration as the server. On PGlite stop the server first: one
// process at a time may open DATA_DIR. On PostgreSQL it may run while the instances serve.
import { ConfigError, loadConfig } from '../src/config';
import { grantAdmin } from '../src/accounts/admin-role';
import { openDatabase } from '../src/db/client';

const fail = (message: string): never => {
  process.stderr.write(`admin:grant: ${message}\n`);
  process.exit(1);
};

const email = process.argv[2];
if (!email || process.argv.length > 3) fail('usage: npm run admin:grant -- <email>');

let config;
try {
  config = loadConfig().config;
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error));
}

// Checked before the database is opened: a mistyped address costs nothing (and on PGlite touches no files).
if (!config!.adminEmails.includes(email!.trim().toLowerCase())) {
  fail(`${email} is not in ADMIN_EMAILS: add it there first (the next login would take the role away otherwise)`);
}

const database = await openDatabase({ databaseUrl: config!.databaseUrl, dataDir: config!.dataDir, maxConnections: 1 });
let result;
try {
  result = await grantAdmin(database.db, config!.adminEmails, email!);
} catch (error) {
  await database.close();
  fail(
    `the database could not be updated (has the server been started once, to create its tables?): ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
  );
}
await database.close();

if (!result!.granted) {
  fail(
    result!.reason === 'not_listed'
      ? `${email} is not in ADMIN_EMAILS: add it there first (the next login would take the role away otherwise)`
      : `no account is registered with ${email}: register it in the dashboard first`,
  );
} else {
  const r = result!;
  process.stdout.write(
    `${r.alreadyAdmin ? 'already admin' : 'admin role granted'}: ${r.email} (account ${r.userId}, registered ${r.createdAt.toISOString()})\n` +
      "Make sure that registration was yours: whoever knows the account's password now has the admin role.\n",
  );
}
