// The Node.js version check that runs before anything else of Parley loads. Older Node.js versions
// crash inside native modules (a segmentation fault on Node 20) instead of saying what is wrong,
// so this file is plain JavaScript that every Node.js version can parse, with no imports.

/**
 * package.json "engines": keep the two in step (a test compares them). 22.18: the first 22.x that
 * runs a project's parley.config.ts as it is (type stripping without a flag).
 */
export var REQUIRED_NODE = '22.18.0';

function parts(version) {
  var match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(String(version));
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** One line saying what is wrong with this Node.js version, or undefined when it will do. */
export function nodeVersionProblem(version) {
  var have = parts(version);
  var need = parts(REQUIRED_NODE);
  var wanted = `${need[0]}.${need[1]}`;
  if (!have) return `parley: cannot tell which Node.js this is ("${version}"); Parley needs Node.js ${wanted} or newer.`;
  for (let i = 0; i < 3; i++) {
    if (have[i] > need[i]) return undefined;
    if (have[i] < need[i]) {
      return (
        'parley: Node.js ' +
        wanted +
        ' or newer is required; this is Node.js ' +
        have.join('.') +
        '. Install a current Node.js (https://nodejs.org) and try again.'
      );
    }
  }
  return undefined;
}

/** Exits with status 1 and that line on an unsupported Node.js. */
export function requireSupportedNode() {
  var problem = nodeVersionProblem(process.versions.node);
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}
