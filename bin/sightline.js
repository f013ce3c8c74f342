#!/usr/bin/env -S node --max-semi-space-size=32
// Entry point of the `sightline` command: runs the CLI compiled by `npm install` (npm run build).
import '../dist/cli/run.js';
