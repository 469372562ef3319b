#!/usr/bin/env python3
"""Writes a training framework's own argument table, as its argparse parser defines it, for the command check.

`openrecipes build` checks a recipe's published command against the run's argument dump (SPEC §5): the command's
words are parsed with the framework's argument rules (option spellings, destinations, store_true / store_false /
BooleanOptionalAction forms, nargs, types, enum choices), mirrored from this table. The table is generated from the
framework's source by building its real parser, never typed by hand:

    python3 tools/framework_options.py megatron-lm <Megatron-LM checkout> > registry/rules/options/megatron-lm.json

It needs the framework's Python dependencies (Megatron-LM imports torch), so it runs in a training image; the
bundled table was made on the device machine (PyTorch 2.11) from Megatron-LM d98e8a64 (tests/run/device/options.sh).
Output is deterministic: options sorted by destination, then by first spelling.
"""
import argparse
import enum
import json
import os
import platform
import subprocess
import sys


def type_name(t):
    if t is None or t is str:
        return "str"
    if t is int:
        return "int"
    if t is float:
        return "float"
    if t is bool:
        return "bool"  # argparse calls bool(word): any non-empty word is True
    return "other:" + getattr(t, "__name__", type(t).__name__)


def action_name(a):
    names = {
        argparse._StoreAction: "store",
        argparse._StoreTrueAction: "store_true",
        argparse._StoreFalseAction: "store_false",
        argparse._StoreConstAction: "store_const",
        argparse._AppendAction: "append",
        argparse._AppendConstAction: "append_const",
        argparse._CountAction: "count",
        argparse.BooleanOptionalAction: "boolean_optional",
    }
    for cls, name in names.items():
        if type(a) is cls:
            return name
    return "other:" + type(a).__name__


def describe(a):
    entry = {
        "flags": list(a.option_strings),
        "dest": a.dest,
        "action": action_name(a),
        "nargs": a.nargs,
        "type": type_name(a.type),
        "const": None if a.const is None else str(a.const),
        "default": repr(a.default),
    }
    if a.choices is not None:
        choices = list(a.choices)
        if entry["type"].startswith("other:") and all(isinstance(c, enum.Enum) for c in choices):
            # An enum read by name (Megatron's ArgumentGroupFactory: `config_type[word]`): the word a command gives,
            # and what the argument dump prints for it (str of the member).
            entry["type"] = "enum"
            entry["values"] = {c.name: str(c) for c in choices}
        else:
            entry["choices"] = [str(c) for c in choices]
    return entry


def megatron_parser():
    from megatron.training.arguments import add_megatron_arguments

    parser = argparse.ArgumentParser(description="Megatron-LM Arguments", allow_abbrev=False)
    return add_megatron_arguments(parser)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("megatron-lm",):
        sys.exit("usage: framework_options.py megatron-lm <checkout>")
    framework, checkout = sys.argv[1], os.path.abspath(sys.argv[2])
    sys.path.insert(0, checkout)
    parser = megatron_parser()
    commit = subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    options = [describe(a) for a in parser._actions if a.option_strings and a.dest != "help"]
    options.sort(key=lambda o: (o["dest"], o["flags"][0]))
    try:
        import torch

        torch_version = torch.__version__
    except Exception:  # noqa: BLE001 - the table does not depend on it
        torch_version = "not importable"
    out = {
        "format_version": 1,
        "framework": framework,
        "commit": commit,
        "generated_by": "python3 tools/framework_options.py %s <checkout> (Python %s, torch %s)"
        % (framework, platform.python_version(), torch_version),
        "allow_abbrev": parser.allow_abbrev,
        "options": options,
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
