/** Contract methods of the experiments area (issue 7). Add each method here and to `experimentsMethodNames`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ExperimentMethods {}

export const experimentsMethodNames: Record<keyof ExperimentMethods, true> = {}
