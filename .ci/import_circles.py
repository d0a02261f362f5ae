#!/usr/bin/env python3
"""Fails when modules of a crate import each other in a circle, or a layer imports a layer above it.

Reads the crate's source itself, from its root file (lib.rs or main.rs) down through every
`mod NAME;` (honouring `#[path = "..."]`) and inline `mod NAME { ... }`. In each module it
collects every path that starts with `crate`, `super`, `self`, a child module or a name the
module imports: in `use` items (grouped `use a::{b, c::d}` too) and written inline in bodies,
types and expressions (`super::served::combine(...)`). Each path is resolved to the module that
defines its item, following `use` re-exports, else to the longest module prefix that exists.
Comments, string literals and items under `#[cfg(test)]` (test code imports freely) are not read.

A circle is a strongly connected set of two or more modules. A module and its own ancestors are
not a circle: a folder's mod.rs re-exporting its children while they use its types is how a Rust
folder is laid out. Every circle is printed with one file:line for each edge that makes it.

With `--layers DOC`, the crate's top-level modules must also follow the layer order of the table
under "## Inside `cli/src`" in DOC (docs/architecture.md): a module imports only modules of lower
layers. Every top-level module must have a layer, and every module the table names must exist.

Usage: import_circles.py [--layers docs/architecture.md] CRATE/src/lib.rs
       import_circles.py --self-test
"""
import os
import re
import sys
import tempfile

KEYWORDS = {
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "static", "struct", "trait", "true", "type", "union", "unsafe",
    "use", "where", "while", "Self", "macro_rules",
}
ITEM_KEYWORDS = {"fn", "struct", "enum", "trait", "type", "const", "static", "union"}
PATH_ROOTS = {"crate", "super", "self"}


# ---------------------------------------------------------------- tokens


class Token:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind: str, text: str, line: int):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self) -> str:
        return f"{self.text}@{self.line}"


IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RAW_STRING = re.compile(r'(?:br|cr|r)(#*)"')
NUMBER = re.compile(r"[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?")
CHAR = re.compile(r"'(?:\\(?:x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f]+\}|.)|[^\\'\n])'")


def tokens(text: str) -> list[Token]:
    """Identifiers and punctuation with their line; comments and literals are dropped."""
    out: list[Token] = []
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif (m := RAW_STRING.match(text, i)) and (i == 0 or not IDENT.match(text[i - 1])):
            close = '"' + m.group(1)
            end = text.find(close, m.end())
            end = n if end < 0 else end + len(close)
            line += text.count("\n", i, end)
            i = end
        elif c == '"' or (c in "bc" and text.startswith('"', i + 1)):
            i = text.index('"', i) + 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                line += text[i] == "\n"
                i += 1
            i += 1
        elif c == "'" or (c == "b" and text.startswith("'", i + 1)):
            m = CHAR.match(text, i + (c == "b"))
            if m:
                i = m.end()
            else:  # a lifetime or a label
                i += 1
                m = IDENT.match(text, i)
                i = m.end() if m else i
        elif m := IDENT.match(text, i):
            word = m.group(0)
            if word.startswith("r") and text.startswith("#", m.end()) and word == "r":
                raw = IDENT.match(text, m.end() + 1)
                if raw:
                    out.append(Token("id", raw.group(0), line))
                    i = raw.end()
                    continue
            out.append(Token("id", word, line))
            i = m.end()
        elif m := NUMBER.match(text, i):
            i = m.end()
        elif text.startswith("::", i):
            out.append(Token("p", "::", line))
            i += 2
        else:
            out.append(Token("p", c, line))
            i += 1
    return out


# ---------------------------------------------------------------- the module tree


class Module:
    def __init__(self, path: tuple[str, ...], file: str, parent: "Module | None"):
        self.path = path
        self.file = file
        self.parent = parent
        self.children: dict[str, Module] = {}
        self.items: set[str] = set()
        # name -> (path segments as written, the module they are written in)
        self.bindings: dict[str, tuple[list[str], Module]] = {}
        self.globs: list[list[str]] = []
        # (path segments as written, file, line)
        self.references: list[tuple[list[str], str, int]] = []

    @property
    def name(self) -> str:
        return "::".join(self.path)


class Crate:
    def __init__(self, root_file: str):
        self.root_dir = os.path.dirname(os.path.abspath(root_file))
        self.modules: dict[tuple[str, ...], Module] = {}
        self.root = self._module(("crate",), root_file, None)
        self._read_file(self.root, root_file, mod_rs=True)

    def _module(self, path, file, parent) -> Module:
        module = Module(path, file, parent)
        self.modules[path] = module
        if parent is not None:
            parent.children[path[-1]] = module
        return module

    def display(self, file: str) -> str:
        return os.path.relpath(file)

    def _read_file(self, module: Module, file: str, mod_rs: bool) -> None:
        with open(file, encoding="utf-8") as source:
            toks = tokens(source.read())
        # Where `mod NAME;` of this file looks for NAME.rs: beside a mod.rs, lib.rs or main.rs,
        # in the folder named after any other file.
        base = os.path.dirname(file)
        child_dir = base if mod_rs else os.path.join(base, os.path.splitext(os.path.basename(file))[0])
        FileReader(self, module, file, toks, base, child_dir).read()


def cfg_test(attr: list[Token]) -> bool:
    """`#[cfg(test)]`, `#[cfg(all(test, ...))]`; never `cfg(not(test))`."""
    words = [t.text for t in attr]
    return bool(words) and words[0] == "cfg" and "test" in words and "not" not in words


class FileReader:
    def __init__(self, crate, module, file, toks, base, child_dir):
        self.crate, self.file, self.toks = crate, file, toks
        self.base, self.child_dir = base, child_dir
        self.file_module = module
        self.source = open(file, encoding="utf-8").read()

    def at(self, i: int) -> str:
        return self.toks[i].text if i < len(self.toks) else ""

    def skip_item(self, i: int) -> int:
        """Index just after the item that starts at i: after its `;` or its closing `}`."""
        depth = 0
        while i < len(self.toks):
            t = self.at(i)
            if t in "([{":
                depth += 1
            elif t in ")]}":
                depth -= 1
                if depth == 0 and t == "}":
                    return i + 2 if self.at(i + 1) == ";" else i + 1
            elif t == ";" and depth == 0:
                return i + 1
            i += 1
        return i

    def attribute(self, i: int) -> tuple[list[Token], int]:
        """The tokens inside `#[...]` or `#![...]` that starts at i, and the index after it."""
        j = i + 1 + (self.at(i + 1) == "!")
        depth, start = 0, j + 1
        while j < len(self.toks):
            t = self.at(j)
            if t == "[":
                depth += 1
            elif t == "]":
                depth -= 1
                if depth == 0:
                    return self.toks[start:j], j + 1
            j += 1
        return self.toks[start:j], j

    def read(self) -> None:
        toks = self.toks
        # (module, brace depth inside it, folder of its `mod NAME;` files)
        stack = [(self.file_module, 0, self.child_dir)]
        depth = 0
        path_override = None
        i = 0
        while i < len(toks):
            module, module_depth, child_dir = stack[-1]
            t = toks[i]
            text = t.text
            if text == "#" and self.at(i + 1) in ("[", "!"):
                inner = self.at(i + 1) == "!"
                attr, after = self.attribute(i)
                if cfg_test(attr):
                    if inner and module is self.file_module:
                        # `#![cfg(test)]`: the whole file is test code.
                        module.references.clear()
                        return
                    i = self.skip_item(after)
                    path_override = None
                    continue
                words = [a.text for a in attr]
                if words[:2] == ["path", "="]:
                    # The literal was dropped with the other strings; read it from the line.
                    line = self.source.splitlines()[attr[0].line - 1]
                    m = re.search(r'#\s*\[\s*path\s*=\s*"([^"]+)"', line)
                    path_override = m.group(1) if m else None
                i = after
                continue
            if text == "{":
                depth += 1
            elif text == "}":
                depth -= 1
                if depth < module_depth:
                    stack.pop()
            elif text == "mod" and i + 1 < len(toks) and toks[i + 1].kind == "id":
                name = toks[i + 1].text
                if self.at(i + 2) == ";":
                    self.file_module_child(module, name, child_dir, path_override)
                    i += 3
                    path_override = None
                    continue
                if self.at(i + 2) == "{":
                    inline = self.crate._module(module.path + (name,), self.file, module)
                    depth += 1
                    stack.append((inline, depth, os.path.join(child_dir, name)))
                    i += 3
                    path_override = None
                    continue
            elif text == "use":
                i = self.use_item(module, i + 1)
                path_override = None
                continue
            elif text in ITEM_KEYWORDS and depth == module_depth and i + 1 < len(toks):
                following = toks[i + 1]
                if following.kind == "id" and following.text not in KEYWORDS:
                    module.items.add(following.text)
            elif text == "macro_rules" and self.at(i + 1) == "!" and i + 2 < len(toks):
                module.items.add(toks[i + 2].text)
            elif (
                t.kind == "id"
                and text not in KEYWORDS
                and self.at(i + 1) == "::"
                and (i == 0 or self.at(i - 1) != "::")
            ):
                segments, i = self.path(i)
                module.references.append((segments, self.file, t.line))
                continue
            if text in (";", "}"):
                path_override = None
            i += 1

    def path(self, i: int) -> tuple[list[str], int]:
        """`a::b::c` from i; stops before `::<`, `::{` and `::*`."""
        segments = [self.at(i)]
        i += 1
        while self.at(i) == "::" and i + 1 < len(self.toks) and self.toks[i + 1].kind == "id":
            segments.append(self.toks[i + 1].text)
            i += 2
        return segments, i

    def use_item(self, module: Module, i: int) -> int:
        line = self.toks[i].line if i < len(self.toks) else 0
        if self.at(i) == "::":  # `use ::extern_crate::...`
            return self.skip_item(i)
        end = self.use_tree(module, i, [], line)
        return end + 1 if self.at(end) == ";" else end

    def use_tree(self, module: Module, i: int, prefix: list[str], line: int) -> int:
        segments = list(prefix)
        while True:
            t = self.at(i)
            if t == "{":
                i += 1
                while self.at(i) != "}" and i < len(self.toks):
                    i = self.use_tree(module, i, segments, self.toks[i].line)
                    if self.at(i) == ",":
                        i += 1
                return i + 1
            if t == "*":
                module.globs.append(segments)
                module.references.append((segments, self.file, line))
                return i + 1
            if i < len(self.toks) and self.toks[i].kind == "id":
                segments.append(t)
                i += 1
                if self.at(i) == "::":
                    i += 1
                    continue
                name = segments[-1]
                if name == "self":
                    segments = segments[:-1]
                    name = segments[-1] if segments else name
                if self.at(i) == "as":
                    name = self.at(i + 1)
                    i += 2
                if name != "_" and segments:
                    module.bindings[name] = (segments, module)
                if segments:
                    module.references.append((segments, self.file, line))
                return i
            return i

    def file_module_child(self, module: Module, name: str, child_dir: str, override: str | None) -> None:
        if override is not None:
            # `#[path]` is relative to the folder of the file that declares the module.
            candidates = [(os.path.join(self.base if module is self.file_module else child_dir, override), True)]
        else:
            candidates = [
                (os.path.join(child_dir, name + ".rs"), False),
                (os.path.join(child_dir, name, "mod.rs"), True),
            ]
        for file, mod_rs in candidates:
            if os.path.isfile(file):
                child = self.crate._module(module.path + (name,), file, module)
                is_mod_rs = mod_rs and os.path.basename(file) == "mod.rs"
                self.crate._read_file(child, file, is_mod_rs)
                return
        raise SystemExit(f"import_circles: {self.crate.display(self.file)}: no file for `mod {name};`")


# ---------------------------------------------------------------- resolving paths


def resolve(crate: Crate, segments: list[str], scope: Module, seen: int = 0) -> Module | None:
    """The module that defines what `segments`, written in `scope`, names; None outside the crate."""
    if seen > 32 or not segments:
        return None
    first, rest = segments[0], segments[1:]
    if first in ("crate", "$crate"):
        start = crate.root
    elif first == "self":
        start = scope
    elif first == "super":
        start = scope
        while segments and segments[0] == "super":
            start = start.parent or start
            segments = segments[1:]
        rest = segments
    else:
        if first in scope.children:
            return walk(crate, scope.children[first], rest, seen)
        if first in scope.bindings:
            written, where = scope.bindings[first]
            if written != [first] or where is not scope:  # not `use other_crate;`
                return resolve(crate, written + rest, where, seen + 1)
        for glob in scope.globs:
            target = resolve(crate, glob, scope, seen + 1)
            if target is not None and target is not scope and (
                first in target.children or first in target.bindings
            ):
                return resolve(crate, segments, target, seen + 1)
        # Any other name is another crate's, the prelude's or a local item's.
        return None
    return walk(crate, start, rest, seen)


def walk(crate: Crate, module: Module, rest: list[str], seen: int) -> Module:
    for index, segment in enumerate(rest):
        if segment in module.children:
            module = module.children[segment]
            continue
        if segment in module.items:
            return module
        if segment in module.bindings:
            written, where = module.bindings[segment]
            target = resolve(crate, written + rest[index + 1:], where, seen + 1)
            return target or module
        for glob in module.globs:
            target_module = resolve(crate, glob, module, seen + 1)
            if target_module is not None and target_module is not module and (
                segment in target_module.items
                or segment in target_module.children
                or segment in target_module.bindings
            ):
                return walk(crate, target_module, rest[index:], seen + 1)
        return module
    return module


def related(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Same module, or one holds the other."""
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def module_graph(crate: Crate, with_kin: bool = False) -> dict[str, dict[str, tuple[str, int]]]:
    """user -> used -> one file:line where user names something of used; a module's own
    ancestors and descendants only `with_kin`."""
    edges: dict[str, dict[str, tuple[str, int]]] = {}
    for module in crate.modules.values():
        edges.setdefault(module.name, {})
        for segments, file, line in module.references:
            target = resolve(crate, segments, module)
            if target is None or target is module:
                continue
            if not with_kin and related(module.path, target.path):
                continue
            edges[module.name].setdefault(target.name, (crate.display(file), line))
    return edges


# ---------------------------------------------------------------- circles


def circles(edges: dict[str, dict[str, tuple[str, int]]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iteratively (graphs can be deep)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for next_node in successors:
                if next_node not in index:
                    index[next_node] = low[next_node] = len(index)
                    stack.append(next_node)
                    on_stack.add(next_node)
                    work.append((next_node, iter(sorted(edges[next_node]))))
                    advanced = True
                    break
                if next_node in on_stack:
                    low[node] = min(low[node], index[next_node])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def describe_circle(component: list[str], edges) -> list[str]:
    members = set(component)
    lines = [f"circle of {len(component)} modules: {', '.join(component)}"]
    for user in component:
        for used, (file, line) in sorted(edges[user].items()):
            if used in members:
                lines.append(f"  {user} -> {used}  ({file}:{line})")
    return lines


# ---------------------------------------------------------------- layers


LAYER_HEADING = "## Inside `cli/src`"
LAYER_ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]*)\|")
NAME = re.compile(r"`([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*)/?`")


def read_layers(doc: str) -> dict[str, int]:
    """Module -> layer, from the table `| N | `module`, `module::child` | ... |` under
    LAYER_HEADING. A module named with its path (`run::attempt`) takes its own layer, apart
    from the folder around it."""
    with open(doc, encoding="utf-8") as source:
        text = source.read()
    start = text.find(LAYER_HEADING)
    if start < 0:
        raise SystemExit(f"import_circles: {doc} has no heading {LAYER_HEADING!r}")
    section = text[start + len(LAYER_HEADING):]
    following = section.find("\n## ")
    section = section if following < 0 else section[:following]
    layers: dict[str, int] = {}
    for row in section.splitlines():
        m = LAYER_ROW.match(row.strip())
        if not m:
            continue
        for name in NAME.findall(m.group(2)):
            if name in layers:
                raise SystemExit(f"import_circles: {doc} puts `{name}` in two layers")
            layers[name] = int(m.group(1))
    if not layers:
        raise SystemExit(f"import_circles: no layer table under {LAYER_HEADING!r} in {doc}")
    return layers


def layer_of(module: str, layers: dict[str, int]) -> tuple[str, int] | None:
    """The longest prefix of `module` (`crate::a::b`) the table names, and its layer."""
    parts = module.split("::")[1:]
    for length in range(len(parts), 0, -1):
        name = "::".join(parts[:length])
        if name in layers:
            return name, layers[name]
    return None


def layer_breaks(crate: Crate, layers: dict[str, int], doc: str) -> list[str]:
    problems = []
    for name in sorted(crate.root.children):
        if name not in layers:
            problems.append(f"module `{name}` has no layer in {doc}")
    for name in sorted(layers):
        if ("crate",) + tuple(name.split("::")) not in crate.modules:
            problems.append(f"{doc} gives a layer to `{name}`, which the crate does not have")
    edges = module_graph(crate, with_kin=True)
    for user in sorted(edges):
        for used, (file, line) in sorted(edges[user].items()):
            a, b = layer_of(user, layers), layer_of(used, layers)
            if a is None or b is None or a[0] == b[0]:
                continue
            if a[1] <= b[1]:
                problems.append(
                    f"layer break: {user} (layer {a[1]}) -> {used} (layer {b[1]})  ({file}:{line})"
                )
    return problems


# ---------------------------------------------------------------- main


def check(root_file: str, doc: str | None) -> tuple[int, list[str]]:
    crate = Crate(root_file)
    edges = module_graph(crate)
    report: list[str] = []
    found = circles(edges)
    for component in found:
        report.extend(describe_circle(component, edges))
    problems = layer_breaks(crate, read_layers(doc), doc) if doc else []
    report.extend(problems)
    count = sum(len(used) for used in edges.values())
    summary = f"{crate.display(root_file)}: {len(crate.modules)} modules, {count} imports between them, {len(found)} circle(s)"
    if doc:
        summary += f", {len(problems)} layer problem(s)"
    report.append(summary)
    return (1 if found or problems else 0), report


SELF_TEST_FILES = {
    "src/main.rs": "mod a;\nmod b;\nmod c;\nfn main() { a::f(); }\n",
    # a (layer 1) names c (layer 3) inline: a layer break; the comment, the string and the
    # test module name b, which must not count.
    "src/a.rs": (
        "// crate::b::x::g() in a comment\n"
        "pub fn f() {\n"
        '    let _ = "crate::b::y::h";\n'
        "    crate::c::z();\n"
        "}\n"
        "#[cfg(test)]\n"
        "mod tests {\n"
        "    use crate::b::x::g;\n"
        "}\n"
    ),
    "src/b/mod.rs": "pub mod x;\npub mod y;\npub use y::h;\n",
    # x and y name each other: x inline in a body, y in a grouped `use` and through a
    # re-export of its parent.
    "src/b/x.rs": "pub fn g() -> u8 {\n    super::y::h()\n}\npub fn k() {}\n",
    "src/b/y.rs": "use super::{x::{g, k}, h as _};\npub fn h() -> u8 {\n    k();\n    0\n}\n",
    "src/c.rs": "pub fn z() {}\n",
    "docs/architecture.md": (
        "# x\n\n## Inside `cli/src`\n\n| Layer | Modules |\n|---|---|\n"
        "| 1 | `a` |\n| 2 | `b/` |\n| 3 | `c` |\n\n## Next\n\n| 4 | `d` |\n"
    ),
}
SELF_TEST_EXPECTED = [
    "circle of 2 modules: crate::b::x, crate::b::y",
    "  crate::b::x -> crate::b::y  (src/b/x.rs:2)",
    "  crate::b::y -> crate::b::x  (src/b/y.rs:1)",
    "layer break: crate::a (layer 1) -> crate::c (layer 3)  (src/a.rs:4)",
]


# The same crate without the two faults: it must pass, so the check is not failing everything.
SELF_TEST_CLEAN = {
    "src/a.rs": "pub fn f() {}\n",
    "src/b/x.rs": "pub fn g() -> u8 {\n    0\n}\npub fn k() {}\n",
    "src/c.rs": "pub fn z() {\n    crate::a::f();\n    super::b::x::k();\n}\n",
}


def self_test() -> int:
    here = os.getcwd()
    results = []
    for overrides in ({}, SELF_TEST_CLEAN):
        with tempfile.TemporaryDirectory() as folder:
            for name, text in {**SELF_TEST_FILES, **overrides}.items():
                os.makedirs(os.path.join(folder, os.path.dirname(name)), exist_ok=True)
                with open(os.path.join(folder, name), "w", encoding="utf-8") as out:
                    out.write(text)
            os.chdir(folder)
            try:
                results.append(check("src/main.rs", "docs/architecture.md"))
            finally:
                os.chdir(here)
    (status, report), (clean_status, clean_report) = results
    if status == 1 and report[:-1] == SELF_TEST_EXPECTED and clean_status == 0:
        print("import_circles self-test: the fabricated circle and layer break are reported")
        return 0
    print(
        "import_circles self-test FAILED; expected:",
        *SELF_TEST_EXPECTED,
        "got:",
        *report,
        "and, without them, nothing; got:",
        *clean_report,
        sep="\n",
        file=sys.stderr,
    )
    return 1


def main(argv: list[str]) -> int:
    if argv == ["--self-test"]:
        return self_test()
    doc = None
    if len(argv) == 3 and argv[0] == "--layers":
        doc, argv = argv[1], argv[2:]
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    status, report = check(argv[0], doc)
    stream = sys.stderr if status else sys.stdout
    print(*report, sep="\n", file=stream)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
