// Development/test entry: runs the TypeScript worker through tsx (the built app uses out/main/worker.js instead).
require('tsx/cjs/api').register()
require('./worker.ts')
