/**
 * Exports that nothing uses: for every exported name of the source trees (src-main, src-worker, src-renderer), whether
 * any other file of either TypeScript project (tests and benchmarks included) imports or re-exports it, and whether its
 * own file uses it. Prints one line per export used by nothing; exits 1 when there is one.
 *
 *   node --import tsx test/support/dead-exports.ts [--json]
 *
 * An export only its own file uses is listed with "(used in its file only: drop the export keyword)". Compile-time checks
 * (`export const x: Check<A, B> = true`) are not listed. A name reached some other way (a string, a dynamic property)
 * is listed too: confirm with `git grep` before removing.
 */
import ts from 'typescript'
import { dirname, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const SOURCE = /^(src-main|src-worker|src-renderer)\//
/** Entry points: their exports are used by the runtime (bundler, Electron, Node), not by an import. */
const ENTRY = /^(src-main\/(cli|server|index|main|worker-entry)\.ts|src-worker\/worker\.ts|src-main\/electron\/.*|src-renderer\/src\/main\.tsx)$/

function programOf(config: string): ts.Program {
  const file = ts.readConfigFile(resolve(root, config), ts.sys.readFile)
  const parsed = ts.parseJsonConfigFileContent(file.config, ts.sys, root)
  return ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true })
}

interface Export {
  file: string
  name: string
  line: number
  usedElsewhere: boolean
  usedInFile: boolean
}

const exportsByKey = new Map<string, Export>()
const key = (file: string, name: string) => `${file}#${name}`

for (const config of ['tsconfig.node.json', 'tsconfig.web.json']) {
  const program = programOf(config)
  const checker = program.getTypeChecker()
  const files = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !f.fileName.includes('/node_modules/'))
  const rel = (f: ts.SourceFile) => relative(root, f.fileName)
  /** The file and name a symbol was declared under (following aliases). */
  const origin = (symbol: ts.Symbol): { file: string; name: string } | null => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
    const decl = target.declarations?.[0]
    if (!decl) return null
    return { file: rel(decl.getSourceFile()), name: target.getName() }
  }
  for (const f of files) {
    if (!SOURCE.test(rel(f)) || ENTRY.test(rel(f))) continue
    const moduleSymbol = checker.getSymbolAtLocation(f)
    if (!moduleSymbol) continue
    for (const s of checker.getExportsOfModule(moduleSymbol)) {
      const o = origin(s)
      if (!o || o.file !== rel(f)) continue // a re-export: counted where it is declared
      const decl = (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).declarations![0]
      // A compile-time check (`export const x: Check<A, B> = true`) is there for the compiler, not for an import.
      if (ts.isVariableDeclaration(decl) && decl.type && decl.initializer?.kind === ts.SyntaxKind.TrueKeyword) continue
      const k = key(o.file, o.name)
      if (!exportsByKey.has(k))
        exportsByKey.set(k, {
          file: o.file,
          name: o.name,
          line: f.getLineAndCharacterOfPosition(decl.getStart()).line + 1,
          usedElsewhere: false,
          usedInFile: false
        })
    }
  }
  for (const f of files) {
    const here = rel(f)
    const mark = (s: ts.Symbol, node: ts.Node, declaring = false) => {
      const o = origin(s)
      const e = o && exportsByKey.get(key(o.file, o.name))
      if (!e) return
      if (here !== e.file) e.usedElsewhere = true
      else if (!declaring) e.usedInFile = true
      void node
    }
    const visit = (node: ts.Node): void => {
      // `const { name } = await import('./module')` or `= namespace`: the property is the module's export.
      if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const name = node.propertyName ?? node.name
        if (ts.isIdentifier(name)) {
          const prop = checker.getTypeAtLocation(node.parent).getProperty(name.text)
          if (prop) mark(prop, node)
        }
      }
      if (ts.isIdentifier(node)) {
        const s = checker.getSymbolAtLocation(node)
        if (s) {
          const o = origin(s)
          const e = o && exportsByKey.get(key(o.file, o.name))
          if (e) {
            const declaring = (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).declarations?.some(
              (d) => (ts.getNameOfDeclaration(d) as ts.Node | undefined) === node
            )
            if (here !== e.file) e.usedElsewhere = true
            else if (!declaring) e.usedInFile = true
          }
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(f)
  }
}

const dead = [...exportsByKey.values()].filter((e) => !e.usedElsewhere).sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(dead, null, 2) + '\n')
else
  for (const e of dead)
    process.stdout.write(
      `${e.file}:${e.line} ${e.name}${e.usedInFile ? ' (used in its file only: drop the export keyword)' : ' (used by nothing)'}\n`
    )
process.exitCode = dead.length ? 1 : 0
