// The baseline: a bare Hono JSON echo on @hono/node-server, served the way decide
// serves its app (createAdaptorServer + listen). POST /echo parses the JSON body and
// returns it. Prints `echo listening on <url>` first.
import { Hono } from 'hono';
import { createAdaptorServer } from '@hono/node-server';

const app = new Hono();
app.post('/echo', async (c) => c.json(await c.req.json()));

const server = createAdaptorServer({ fetch: app.fetch });
process.on('disconnect', () => process.exit(0)); // the bench went away: do not linger
process.on('SIGTERM', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`echo listening on http://127.0.0.1:${server.address().port}\n`);
});
