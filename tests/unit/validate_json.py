#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Validate a JSON document (stdin) against docs/hcbsctl-schema.json.

Uses python3-jsonschema (Draft 2020-12) when installed; otherwise a small
checker of the keywords the schema uses (type, const, enum, required,
properties, additionalProperties, unevaluatedProperties with allOf, items,
minItems, minimum, maximum, oneOf, allOf, $ref).  Prints one line on error
and exits 1.
"""
import json
import sys


def fallback(schema, doc):
    root = schema

    def resolve(s):
        while "$ref" in s:
            ref = s["$ref"]
            assert ref.startswith("#/"), ref
            s = root
            for part in ref[2:].split("/"):
                s = s[part]
        return s

    def typeok(t, v):
        if t == "null":
            return v is None
        if t == "boolean":
            return isinstance(v, bool)
        if t == "integer":
            return isinstance(v, int) and not isinstance(v, bool)
        if t == "number":
            return isinstance(v, (int, float)) and not isinstance(v, bool)
        if t == "string":
            return isinstance(v, str)
        if t == "array":
            return isinstance(v, list)
        if t == "object":
            return isinstance(v, dict)
        raise ValueError(t)

    def props_of(s):
        s = resolve(s)
        names = set(s.get("properties", {}))
        for sub in s.get("allOf", []):
            names |= props_of(sub)
        return names

    def check(s, v, path):
        s = resolve(s)
        if "type" in s:
            ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(typeok(t, v) for t in ts):
                return "%s: %r is not of type %s" % (path, v, ts)
        if "const" in s and v != s["const"]:
            return "%s: %r is not %r" % (path, v, s["const"])
        if "enum" in s and v not in s["enum"]:
            return "%s: %r is not one of %r" % (path, v, s["enum"])
        num = isinstance(v, (int, float)) and not isinstance(v, bool)
        if num and "minimum" in s and v < s["minimum"]:
            return "%s: %r < minimum %r" % (path, v, s["minimum"])
        if num and "maximum" in s and v > s["maximum"]:
            return "%s: %r > maximum %r" % (path, v, s["maximum"])
        for sub in s.get("allOf", []):
            e = check(sub, v, path)
            if e:
                return e
        if "oneOf" in s:
            n = [check(sub, v, path) for sub in s["oneOf"]].count(None)
            if n != 1:
                return "%s: matches %d of oneOf, not exactly 1" % (path, n)
        if isinstance(v, dict):
            for r in s.get("required", []):
                if r not in v:
                    return "%s: missing %r" % (path, r)
            known = props_of(s)
            closed = s.get("additionalProperties") is False or \
                s.get("unevaluatedProperties") is False
            for k, x in v.items():
                if k in s.get("properties", {}):
                    e = check(s["properties"][k], x, path + "." + k)
                    if e:
                        return e
                elif closed and k not in known:
                    return "%s: unexpected property %r" % (path, k)
        if isinstance(v, list):
            if len(v) < s.get("minItems", 0):
                return "%s: fewer than %d items" % (path, s["minItems"])
            if "items" in s:
                for i, x in enumerate(v):
                    e = check(s["items"], x, "%s[%d]" % (path, i))
                    if e:
                        return e
        return None

    return check(schema, doc, "$")


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    text = sys.stdin.read()
    try:
        doc = json.loads(text)
    except ValueError as e:
        print("not JSON: %s" % e)
        return 1
    force_fallback = len(sys.argv) > 2 and sys.argv[2] == "--fallback"
    try:
        if force_fallback:
            raise ImportError
        import jsonschema
        v = jsonschema.Draft202012Validator(schema)
        errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
        if errs:
            print("invalid: %s at %s" % (errs[0].message, list(errs[0].path)))
            return 1
        print("valid (jsonschema %s)" % getattr(jsonschema, "__name__", ""))
    except ImportError:
        e = fallback(schema, doc)
        if e:
            print("invalid: " + e)
            return 1
        print("valid (built-in checker)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
