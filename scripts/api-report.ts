// The API report: every name each public entry (package.json "exports") exports, with its kind and declared
// signature, written to api/<entry>.api.md. Committed, so a change to the public surface shows in review;
// test/unit/api-report.test.ts fails when the committed report differs from the sources. `npm run api` rewrites it.
//
// A small generator on the TypeScript compiler API rather than api-extractor: it reads the sources directly (no
// declaration build first) and takes a few seconds.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the reports live, relative to the repository root. */
export const API_DIR = 'api';

/** One public entry: its package specifier, its source file, and the report it is written to. */
export interface ApiEntry {
  specifier: string;
  source: string;
  report: string;
}

/** The entries package.json exports, each mapped from its built file back to its source (dist/src/x.js ← src/x.ts). */
export function apiEntries(root = ROOT): ApiEntry[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { default?: string }>;
  };
  return Object.entries(pkg.exports).flatMap(([subpath, target]) => {
    const built = typeof target === 'string' ? target : target.default;
    if (!built?.endsWith('.js')) return [];
    const name = subpath === '.' ? pkg.name : subpath.slice(2);
    return [
      {
        specifier: subpath === '.' ? pkg.name : `${pkg.name}/${name}`,
        source: join(root, built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')),
        report: join(API_DIR, `${name}.api.md`),
      },
    ];
  });
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
const TYPE_FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;

/** Prints a declaration node as one normalized line-per-member text, without comments or bodies. */
function print(node: ts.Node, file: ts.SourceFile): string {
  return printer.printNode(ts.EmitHint.Unspecified, node, file).replace(/\r\n/g, '\n');
}

function isPublicMember(member: ts.ClassElement): boolean {
  if (member.name && ts.isPrivateIdentifier(member.name)) return false;
  const flags = ts.getCombinedModifierFlags(member as ts.Declaration);
  return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
}

/** `async` says how a method is written, not what it returns (its declared type says that). */
function withoutAsync(modifiers: ts.NodeArray<ts.ModifierLike> | undefined): ts.ModifierLike[] | undefined {
  return modifiers?.filter((modifier) => modifier.kind !== ts.SyntaxKind.AsyncKeyword);
}

/** A class without its bodies, private members or initializers: what a caller (or subclass) can see. */
function classShape(node: ts.ClassDeclaration, file: ts.SourceFile, checker: ts.TypeChecker): string {
  const f = ts.factory;
  const members = node.members.filter(isPublicMember).flatMap((member): ts.ClassElement[] => {
    if (ts.isMethodDeclaration(member)) {
      return [
        f.updateMethodDeclaration(
          member,
          withoutAsync(member.modifiers),
          member.asteriskToken,
          member.name,
          member.questionToken,
          member.typeParameters,
          member.parameters,
          member.type,
          undefined,
        ),
      ];
    }
    if (ts.isConstructorDeclaration(member)) {
      return [f.updateConstructorDeclaration(member, member.modifiers, member.parameters, undefined)];
    }
    if (ts.isGetAccessorDeclaration(member)) {
      return [
        f.updateGetAccessorDeclaration(
          member,
          member.modifiers,
          member.name,
          member.parameters,
          member.type,
          undefined,
        ),
      ];
    }
    if (ts.isSetAccessorDeclaration(member)) {
      return [f.updateSetAccessorDeclaration(member, member.modifiers, member.name, member.parameters, undefined)];
    }
    if (ts.isPropertyDeclaration(member)) {
      // An undeclared property type is inferred from its initializer: say what it is, not how it is computed.
      const type =
        member.type ??
        f.createTypeReferenceNode(checker.typeToString(checker.getTypeAtLocation(member), node, TYPE_FLAGS));
      return [
        f.updatePropertyDeclaration(member, member.modifiers, member.name, member.questionToken, type, undefined),
      ];
    }
    if (ts.isIndexSignatureDeclaration(member)) return [member];
    return [];
  });
  const shape = f.updateClassDeclaration(
    node,
    node.modifiers,
    node.name,
    node.typeParameters,
    node.heritageClauses,
    members,
  );
  return print(shape, file);
}

/** The declared signature of one declaration, printed as TypeScript. */
function signatureOf(decl: ts.Declaration, checker: ts.TypeChecker): string {
  const file = decl.getSourceFile();
  if (ts.isFunctionDeclaration(decl))
    return print(
      ts.factory.updateFunctionDeclaration(
        decl,
        withoutAsync(decl.modifiers),
        decl.asteriskToken,
        decl.name,
        decl.typeParameters,
        decl.parameters,
        decl.type ??
          checker.typeToTypeNode(
            checker.getReturnTypeOfSignature(checker.getSignatureFromDeclaration(decl)!),
            decl,
            ts.NodeBuilderFlags.NoTruncation,
          ),
        undefined,
      ),
      file,
    );
  if (ts.isClassDeclaration(decl)) return classShape(decl, file, checker);
  if (ts.isVariableDeclaration(decl)) {
    const type = decl.type
      ? print(decl.type, file)
      : checker.typeToString(checker.getTypeAtLocation(decl), decl, TYPE_FLAGS);
    const list = decl.parent;
    const keyword = ts.isVariableDeclarationList(list) && list.flags & ts.NodeFlags.Const ? 'const' : 'let';
    return `${keyword} ${decl.name.getText(file)}: ${type};`;
  }
  return print(decl, file);
}

function kindOf(symbol: ts.Symbol): string {
  const kinds: [ts.SymbolFlags, string][] = [
    [ts.SymbolFlags.Class, 'class'],
    [ts.SymbolFlags.Function, 'function'],
    [ts.SymbolFlags.Enum, 'enum'],
    [ts.SymbolFlags.Variable, 'const'],
    [ts.SymbolFlags.Interface, 'interface'],
    [ts.SymbolFlags.TypeAlias, 'type'],
    [ts.SymbolFlags.Module, 'namespace'],
  ];
  return (
    kinds
      .filter(([flag]) => symbol.flags & flag)
      .map(([, kind]) => kind)
      .join(' + ') || 'unknown'
  );
}

/** True when `exported` is re-exported with `export type`, so callers can use it as a type only. */
function isTypeOnly(exported: ts.Symbol): boolean {
  return (exported.declarations ?? []).some((decl) => {
    if (ts.isExportSpecifier(decl)) return decl.isTypeOnly || decl.parent.parent.isTypeOnly;
    return ts.isExportDeclaration(decl) && decl.isTypeOnly;
  });
}

function renderEntry(entry: ApiEntry, program: ts.Program, root: string): string {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(entry.source);
  const moduleSymbol = file && checker.getSymbolAtLocation(file);
  if (!moduleSymbol) throw new Error(`${entry.source} is not a module the compiler could read`);
  const exports = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name, 'en'));
  const sections = exports.map((exported) => {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declarations = symbol.declarations ?? [];
    const from = declarations[0] ? relative(root, declarations[0].getSourceFile().fileName) : '?';
    const kind = `${isTypeOnly(exported) ? 'type-only ' : ''}${kindOf(symbol)}`;
    const body = declarations.map((decl) => signatureOf(decl, checker)).join('\n');
    const alias = symbol.name !== exported.name && symbol.name !== 'default' ? ` (as ${symbol.name})` : '';
    return `### ${exported.name}\n\n${kind}${alias}, from \`${from}\`\n\n\`\`\`ts\n${body}\n\`\`\`\n`;
  });
  const report = [
    `# API report: \`${entry.specifier}\``,
    '',
    '<!-- Generated by `npm run api` (scripts/api-report.ts) from the sources; do not edit. -->',
    '',
    `${exports.length} exports.`,
    '',
    ...sections,
  ].join('\n');
  // Inferred types name other modules by absolute path: make them relative, so the report reads the same anywhere.
  return report
    .replace(/import\("[^"]*\/node_modules\/([^"]+)"\)/g, 'import("$1")')
    .replaceAll(`import("${root}/`, 'import("./');
}

/** Renders every entry's report: report path (relative to the root) → its text. */
export function renderApiReports(root = ROOT): Map<string, string> {
  const entries = apiEntries(root);
  const configPath = join(root, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`cannot read ${configPath}`);
  // Only the entries and what they import: the whole project (tests, benches) would take several times longer.
  const program = ts.createProgram({
    rootNames: entries.map((entry) => entry.source),
    options: { ...config.options, noEmit: true },
  });
  return new Map(entries.map((entry) => [entry.report, renderEntry(entry, program, root)]));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [path, text] of renderApiReports()) {
    mkdirSync(dirname(join(ROOT, path)), { recursive: true });
    writeFileSync(join(ROOT, path), text);
    console.log(`wrote ${path}`);
  }
}
