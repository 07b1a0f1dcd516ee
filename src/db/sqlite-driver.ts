// Which build of better-sqlite3 this Node runs. Two majors are installed because neither runs on
// both of the Node lines we support:
// - 12.x wraps its objects in node::ObjectWrap. Built against Node 24.19+ headers, every statement
//   the garbage collector finalises outside a JavaScript context aborts the process
//   (`Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook; nodejs/node#65446).
// - 13.x is a Node-API module with prebuilt binaries inside the package (no download, no compiler),
//   but declares Node >= 22 and crashes on Node 20.
// So Node 20 loads 12.x (`better-sqlite3`) and Node 22 and later load 13.x (`better-sqlite3-napi`,
// an npm alias). Their JavaScript API is the same. The alias is an optional dependency, so npm
// skips it quietly on Node 20 (no EBADENGINE warning, the lockfile unchanged) and installs it on 22+.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The package this Node loads. */
export const SQLITE_DRIVER = NODE_MAJOR >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

/** Resolved path of the driver, for worker threads that open their own connection. */
export const SQLITE_DRIVER_PATH = require.resolve(SQLITE_DRIVER);

export const Database: typeof BetterSqlite3 = require(SQLITE_DRIVER);
