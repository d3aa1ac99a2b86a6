/** A file's own name, without its folder (whichever separator the machine uses). */
export function baseName(name: string): string {
  return name.split(/[\\/]/).pop() ?? name
}

/** The file's name without its extension: the default name of the dataset it becomes. */
export function stripExtension(name: string): string {
  const base = baseName(name)
  return base.replace(/\.[^.]+$/, '') || base
}
