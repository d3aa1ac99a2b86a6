/** Contract methods of the datasets area (issue 6). Add each method here and to `datasetsMethodNames`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DatasetMethods {}

export const datasetsMethodNames: Record<keyof DatasetMethods, true> = {}
