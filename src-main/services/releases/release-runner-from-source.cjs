// Development/test entry of the release runner: runs the TypeScript source through tsx (the built app uses
// out/main/release-runner.js instead).
require('tsx/cjs/api').register()
require('./release-runner.ts')
