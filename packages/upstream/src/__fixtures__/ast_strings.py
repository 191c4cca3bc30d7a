"""Test oracle: what Python itself reads from a source file, as JSON on stdout.

For each file given: its module-level string constants (the value Python binds: `NAME = "..."` and
`NAME = "...".strip()`), and for each function its string expressions in source order (dict keys
left out; an f-string as its literal text with NUL where a field is, plus the fields' source).
"""
import ast
import json
import sys


def fstring_shape(node, source):
    text = ''
    fields = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            text += value.value
        else:
            text += '\x00'
            fields.append(ast.get_source_segment(source, value.value))
    return {'text': text, 'fields': fields}


def constant_value(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ('strip', 'lstrip', 'rstrip') and not node.args
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)):
        return getattr(node.func.value.value, node.func.attr)()
    return None


def function_strings(fn, source):
    keys = set()
    inside_fstring = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Dict):
            keys.update(id(k) for k in node.keys if k is not None)
        if isinstance(node, ast.JoinedStr):
            for sub in ast.walk(node):
                if sub is not node:
                    inside_fstring.add(id(sub))
    found = []
    body_nodes = [n for stmt in fn.body for n in ast.walk(stmt)]
    for node in body_nodes:
        if id(node) in keys or id(node) in inside_fstring:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.col_offset, {'text': node.value, 'fields': []}))
        elif isinstance(node, ast.JoinedStr):
            found.append((node.lineno, node.col_offset, fstring_shape(node, source)))
    found.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in found]


def main():
    out = {}
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8') as handle:
            source = handle.read()
        tree = ast.parse(source)
        constants = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                value = constant_value(stmt.value)
                if value is not None:
                    constants[stmt.targets[0].id] = value
                else:
                    constants.pop(stmt.targets[0].id, None)
        functions = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name not in functions:
                functions[node.name] = function_strings(node, source)
        out[path] = {'constants': constants, 'functions': functions}
    json.dump(out, sys.stdout)


main()
