/** Anomaly identification under sensitive privacy: public surface of the engine module. */
export * from './metric'
export * from './records'
export * from './ball-count'
export * from './mechanism'
export * from './queries'
export * from './simulate'
export * from './release'
export * from './person-bound'
