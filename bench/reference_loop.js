// The reference consumer for bench/run.py, scenario (e): `normalizeFixtureFile` of the
// contract's reference normalizer on every file of a listing, one JSON line per case.
//
//   node reference_loop.js NORMALIZER REPO_ROOT LISTING
'use strict';

const fs = require('node:fs');
const { normalizeFixtureFile } = require(process.argv[2]);

const repoRoot = process.argv[3];
const files = fs.readFileSync(process.argv[4], 'utf8').split('\n').filter(Boolean);
for (const filePath of files) {
  const cases = normalizeFixtureFile({ repoRoot, filePath });
  if (cases.length) fs.writeSync(1, cases.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
}
