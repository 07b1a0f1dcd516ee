// The process entry of the `flightstatus` command: bin/flightstatus.js, `npm start` and the deploy
// units (`node dist/main.js serve`) run this file. The commands themselves live in src/cli/.
import { run } from './cli/index.js';

run(process.argv.slice(2));
