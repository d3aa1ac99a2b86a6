// Development/test entry of the alarm runner: runs the TypeScript source through tsx (the built app uses
// out/main/alarm-runner.js instead).
require('tsx/cjs/api').register()
require('./alarm-runner.ts')
