#!/usr/bin/env python3
"""Writes a training framework's own argument table, as its argparse parser defines it.

Two checks read these tables. `openrecipes build` checks a recipe's published command against the run's argument
dump (SPEC §5): the command's words are parsed with the framework's argument rules (option spellings, destinations,
store_true / store_false / BooleanOptionalAction forms, nargs, types, enum choices), mirrored from this table. And the
configuration check (SPEC §4.1) must class every argument the framework's parser defines: a test reads each table's
destinations against registry/rules/arguments.yaml. The tables are generated from the framework's source by building
its real parser, never typed by hand:

    python3 tools/framework_options.py megatron-lm <Megatron-LM checkout> > registry/rules/options/megatron-lm.json
    python3 tools/framework_options.py slime <slime checkout> --base registry/rules/options/megatron-lm.json \
        > registry/rules/options/slime.json
    python3 tools/framework_options.py miles <miles checkout> --base registry/rules/options/megatron-lm.json \
        > registry/rules/options/miles.json

Megatron-LM's parser needs its Python dependencies (it imports torch), so it runs in a training image; the bundled
table was made on the device machine (PyTorch 2.11) from Megatron-LM d98e8a64 (tests/run/device/options.sh).

slime and miles add their own arguments to Megatron's parser through an extra-arguments provider
(`get_slime_extra_args_provider` in slime/utils/arguments.py, `get_miles_extra_args_provider` in
miles/utils/arguments.py). Their table lists what that provider adds, run on a parser that already holds Megatron's
options from --base (so their `reset_arg` calls find Megatron's options and only change defaults, as in a real run);
the defaults they change are listed under "megatron_defaults". slime's four flow arguments (`_pre_parse_mode`:
--train-backend, --debug-rollout-only, --debug-train-only, --load-debug-rollout-data) are parsed apart and merged
into the same namespace, so they are listed too. Third-party modules these files import (torch, ray, sglang,
transformers, ...) are not needed to build the parser and are replaced by inert stand-ins while it is built; the
table names them under "stubbed_modules". What a stand-in cannot enumerate is named under "external_sources": the
arguments miles copies from SGLang's ServerArgs (renamed --sglang-*) and sglang-router's RouterArgs (--router-*),
which the rules class by those prefixes. Runs with the Python standard library and PyYAML (python3 3.11 here).

Output is deterministic: options sorted by destination, then by first spelling.
"""
import argparse
import contextlib
import enum
import io
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


class _StubMeta(type):
    """A stand-in class for anything a third-party module defines: attributes, calls, subscripts, unions and
    arithmetic all give stand-ins again, a stand-in is false, empty, zero and never greater or less than anything, and
    a stand-in called with one function (a decorator) gives the function back."""

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub_class(cls.__name__ + "." + name)

    def __getitem__(cls, item):
        return cls

    def __or__(cls, other):
        return cls

    def __ror__(cls, other):
        return cls

    def __iter__(cls):
        return iter(())

    def __bool__(cls):  # "is the GPU there?" and the like: no
        return False

    def __len__(cls):
        return 0

    def __lt__(cls, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __int__(cls):
        return 0

    __index__ = __int__

    def __float__(cls):
        return 0.0

    def __add__(cls, other):
        return cls

    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __add__

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return _stub_class(cls.__name__ + "()")


def _stub_class(name):
    return _StubMeta(name, (), {})


class _StubModule(type(sys)):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _stub_class(self.__name__ + "." + name)
        setattr(self, name, value)
        return value


class _StubFinder:
    """Last on sys.meta_path: a module no real finder has (torch, ray, sglang, ...), imported by the framework's own
    source, becomes a _StubModule. Never one of the framework's own packages (a missing one is an error, as in a real
    run), and never for an import made outside the checkout (a library probing for an optional module must see it
    missing)."""

    def __init__(self, own_packages, checkout):
        self.own = own_packages
        self.checkout = checkout.rstrip("/") + "/"
        self.stubbed = set()

    def _imported_by_checkout(self):
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename.startswith(self.checkout)

    def find_spec(self, name, path=None, target=None):
        import importlib.machinery

        if name.split(".")[0] in self.own or not self._imported_by_checkout():
            return None
        self.stubbed.add(name.split(".")[0])
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


_UNCHANGED = object()  # the default of every --base option until the provider resets it


def base_parser(table):
    """A parser holding the options of a table (--base) with their spellings and actions: what the framework's
    provider sees when it runs on Megatron's parser."""
    parser = argparse.ArgumentParser(allow_abbrev=table["allow_abbrev"], add_help=False)
    actions = {
        "store_true": "store_true",
        "store_false": "store_false",
        "count": "count",
        "boolean_optional": argparse.BooleanOptionalAction,
    }
    for o in table["options"]:
        kwargs = {"dest": o["dest"]}
        action = actions.get(o["action"])
        if action is not None:
            kwargs["action"] = action
        elif o["nargs"] is not None and o["nargs"] != 0:
            kwargs["nargs"] = o["nargs"]
        parser.add_argument(*o["flags"], **kwargs)
    return parser


# What each framework adds to Megatron-LM's parser, as "module:function" in its source: the extra-arguments provider
# (run on a parser holding Megatron's options); the functions that build parsers of their own whose results are merged
# into the same namespace (slime's flow arguments, parsed first by `_pre_parse_mode`; slime's SGLang parser, parsed
# apart unless --debug-train-only); and the sources of arguments that the framework's source does not spell out.
FRAMEWORKS = {
    "slime": {
        "provider": "slime.utils.arguments:get_slime_extra_args_provider",
        "separate": [
            "slime.utils.arguments:_pre_parse_mode",
            "slime.backends.sglang_utils.arguments:add_sglang_arguments",
        ],
        "external_sources": [
            {
                "prefix": "sglang_",
                "source": "SGLang's ServerArgs.add_cli_args, each option renamed --sglang-<name> by "
                "slime/backends/sglang_utils/arguments.py add_sglang_arguments (a parser of its own, skipped under "
                "--debug-train-only)",
            },
            {
                "prefix": "router_",
                "source": "sglang-router's RouterArgs.add_cli_args(use_router_prefix=True), called by "
                "slime/backends/sglang_utils/arguments.py add_sglang_router_arguments",
            },
        ],
    },
    "miles": {
        "provider": "miles.utils.arguments:get_miles_extra_args_provider",
        "separate": [],
        "external_sources": [
            {
                "prefix": "sglang_",
                "source": "SGLang's ServerArgs.add_cli_args, each option renamed --sglang-<name> by "
                "miles/backends/sglang_utils/arguments.py add_sglang_arguments",
            },
            {
                "prefix": "router_",
                "source": "sglang-router's RouterArgs.add_cli_args(use_router_prefix=True), called by "
                "miles/utils/arguments.py add_router_arguments",
            },
        ],
    },
}


def _function(spec):
    import importlib

    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


def _separate_parser(spec):
    """The parser a function of the framework builds: one that takes a parser is given a fresh one; one that builds
    its own and parses the command line has it captured at its parse (given no words)."""
    fn = _function(spec)
    if fn.__code__.co_argcount == 1:
        parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
        return fn(parser) or parser
    captured = []
    original = argparse.ArgumentParser.parse_known_args

    def capture(self, args=None, namespace=None):
        captured.append(self)
        return original(self, [], namespace)

    argparse.ArgumentParser.parse_known_args = capture
    try:
        fn()
    finally:
        argparse.ArgumentParser.parse_known_args = original
    return captured[0]


def extension_actions(framework, checkout, base_table):
    """Builds `framework`'s parsers (FRAMEWORKS) from its source, its provider on a parser holding `base_table`'s
    options. Returns the options it adds (argparse actions), the parser, the base options whose default it resets
    (dest -> repr of the new default), and the third-party modules stood in for."""
    finder = _StubFinder({framework, framework + "_plugins"}, checkout)
    sys.meta_path.append(finder)
    os.environ.pop("MILES_USE_LEGACY_ROLLOUT_V1", None)
    spec = FRAMEWORKS[framework]
    parser = base_parser(base_table)
    base = {a.dest: a for a in parser._actions}
    for a in base.values():
        a.default = _UNCHANGED
    # miles' provider ends by parsing the command line to let the rollout functions a run names add arguments of their
    # own (add_user_provided_function_arguments); with no command line argparse prints a usage error that miles
    # catches. That text is not ours to show.
    with contextlib.redirect_stderr(io.StringIO()):
        parser = _function(spec["provider"])()(parser) or parser
    actions = [a for a in parser._actions if a.option_strings and a.dest not in base and a.dest != "help"]
    seen = {f for a in actions for f in a.option_strings}
    for separate in spec["separate"]:
        for a in _separate_parser(separate)._actions:
            if a.option_strings and a.dest != "help" and not seen.intersection(a.option_strings):
                actions.append(a)
                seen.update(a.option_strings)
    defaults = {d: repr(a.default) for d, a in base.items() if a.option_strings and a.default is not _UNCHANGED}
    return actions, parser, dict(sorted(defaults.items())), sorted(finder.stubbed)


def git_head(checkout):
    return subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def main():
    cli = argparse.ArgumentParser(description="Writes a framework's argument table (JSON) to standard output.")
    cli.add_argument("framework", choices=["megatron-lm", "slime", "miles"])
    cli.add_argument("checkout", help="the framework's source checkout at the commit to table")
    cli.add_argument("--commit", help="the checkout's commit, when it is not a git work tree")
    cli.add_argument("--base", help="slime, miles: the Megatron-LM table their provider extends")
    opts = cli.parse_args()
    framework, checkout = opts.framework, os.path.abspath(opts.checkout)
    commit = opts.commit or git_head(checkout)
    if not commit:
        sys.exit("framework_options.py: %s is not a git checkout; give --commit" % checkout)
    sys.path.insert(0, checkout)
    extra = {}
    if framework == "megatron-lm":
        parser = megatron_parser()
        actions = [a for a in parser._actions if a.option_strings and a.dest != "help"]
        generated_by = "python3 tools/framework_options.py megatron-lm <checkout>"
    else:
        if not opts.base:
            sys.exit("framework_options.py: %s extends Megatron-LM's parser; give --base <megatron-lm.json>" % framework)
        with open(opts.base) as f:
            base_table = json.load(f)
        sys.argv = [sys.argv[0]]  # the functions that parse a command line see none of ours
        actions, parser, defaults, stubbed = extension_actions(framework, checkout, base_table)
        extra = {
            "extends": {"framework": base_table["framework"], "commit": base_table["commit"]},
            "megatron_defaults": defaults,
            "stubbed_modules": stubbed,
            "external_sources": FRAMEWORKS[framework]["external_sources"],
        }
        generated_by = "python3 tools/framework_options.py %s <checkout> --base registry/rules/options/%s.json" % (
            framework,
            base_table["framework"],
        )
    options = [describe(a) for a in actions]
    options.sort(key=lambda o: (o["dest"], o["flags"][0]))
    try:
        import torch

        torch_version = torch.__version__
        if isinstance(torch_version, type):
            torch_version = "stubbed"
    except Exception:  # noqa: BLE001 - the table does not depend on it
        torch_version = "not importable"
    out = {
        "format_version": 1,
        "framework": framework,
        "commit": commit,
        "generated_by": "%s (Python %s, torch %s)" % (generated_by, platform.python_version(), torch_version),
        "allow_abbrev": parser.allow_abbrev,
    }
    out.update(extra)
    out["options"] = options
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
