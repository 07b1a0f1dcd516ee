// The process entry of the `flightstatus` command. The build bundles it into dist/main.js, which
// bin/flightstatus.js, `npm start` and the deploy units (`node dist/main.js serve`) run.
import { run } from './index.js';

run(process.argv.slice(2));
