"""Placeholder modules for the packages slime imports at module level but the device machine lacks (ray, sglang,
httpx, ...): `install()` adds a finder at the END of sys.meta_path, so every installed package (torch, numpy,
pyarrow, transformers) is the real one, and only a name of ABSENT_OK that nothing else can import becomes a
placeholder. A placeholder answers every attribute with a MagicMock, so `from ray.util.scheduling_strategies import
X` loads; the functions the device test runs never touch one (the test prints which names were placeheld).

Loaded as a pytest plugin (`pytest -p placeholders`) so that it is in place before slime's own test imports slime."""

import importlib.abc
import importlib.machinery
import sys
import types
from unittest import mock

# The only names that may become placeholders, and only when the machine cannot import them: what slime's modules
# import at module level for serving, tracking and RL rewards. Any other missing module stays an ImportError (a
# library's `try: import X` fallback must keep working; e.g. slime's accelerator probe for musa_patch).
ABSENT_OK = {"ray", "sglang", "sglang_router", "httpx", "aiohttp", "tqdm", "PIL", "wandb", "requests", "urllib3",
             "sympy", "pylatexenc", "pybase64", "uvicorn", "fastapi", "tensorboard"}
placeheld = []


class _Module(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = mock.MagicMock(name=f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        top = fullname.split(".")[0]
        if top not in ABSENT_OK:
            return None
        if top not in placeheld:
            placeheld.append(top)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        m = _Module(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


def _identity_decorator(*args, **kwargs):
    """ray.remote as the identity: @ray.remote and @ray.remote(num_gpus=...) leave the class a class."""
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda target: target


def install():
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
    try:
        import ray  # noqa: F401  (the real one, when the machine has it)
    except ImportError:
        pass
    if isinstance(sys.modules.get("ray"), _Module):
        ray = sys.modules["ray"]
        ray.remote = _identity_decorator
        ray.put = ray.get = lambda obj, *args, **kwargs: obj  # each DP rank's data stays readable


install()
