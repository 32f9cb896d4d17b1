"""The Python environment generated code runs in: its own virtual environment, not the harness's.

``scripts/setup.sh`` creates ``.venv-sandbox`` next to the checkout's ``.venv`` with exactly the
pins of ``solver_stack.txt``; the harness's packages (openai, pytest, hypothesis, syrupy, the
``benchmark`` package itself) are not installed there, so generated code cannot import them and
what it can import is what the prompt promises. Of the base installation the venv was made from,
the sandbox sees only the interpreter, ``libpython`` and the standard library, never its
``site-packages``. When that environment is missing the sandbox falls
back to the harness's interpreter and says so in the manifest (``dedicated: false``).
"""

from __future__ import annotations

import os
import re
import site
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

STACK_FILE = Path(__file__).with_name("solver_stack.txt")
SANDBOX_VENV_DIR = ".venv-sandbox"
#: Overrides where the sandbox environment lives (a virtual environment's directory).
VENV_ENV_VAR = "OPTBENCH_SANDBOX_VENV"
_CHECKOUT = Path(__file__).resolve().parents[2]
_LINE = re.compile(r"^(?P<req>(?P<name>[A-Za-z0-9_.-]+)==(?P<version>\S+))\s+#\s*import\s+(?P<imp>[\w.]+);\s*"
                   r"(?P<kind>prompt|harness)\s+(?P<text>.+?)\s*$")  # fmt: skip


class StackFileError(ValueError):
    """solver_stack.txt has a line that is not a pinned requirement with its annotation."""


@dataclass(frozen=True)
class StackPackage:
    """One pinned package of the solver stack."""

    name: str
    version: str
    import_name: str
    prompt: str | None  # how the prompt names it; None when installed only for the harness's scripts


def solver_stack(path: Path = STACK_FILE) -> tuple[StackPackage, ...]:
    """The packages of ``solver_stack.txt``, in file order."""
    out: list[StackPackage] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise StackFileError(
                f"{path}:{number}: expected 'NAME==VERSION  # import MODULE; prompt|harness TEXT', "
                f"got {raw!r}"
            )
        prompt = match["text"] if match["kind"] == "prompt" else None
        out.append(StackPackage(match["name"], match["version"], match["imp"], prompt))
    return tuple(out)


def prompt_libraries(path: Path = STACK_FILE) -> tuple[str, ...]:
    """The libraries the prompt lists as available, generated from the pinned stack."""
    return tuple(p.prompt for p in solver_stack(path) if p.prompt is not None)


@dataclass(frozen=True)
class PythonEnvironment:
    """An interpreter for generated code and the host directories it needs to run."""

    python: Path
    prefix: Path
    mounts: tuple[Path, ...]
    site_packages: tuple[Path, ...]
    dedicated: bool
    #: Folders inside ``mounts`` the sandbox must not see (the base installation's site-packages).
    covered: tuple[Path, ...] = ()

    def package_versions(self) -> dict[str, str]:
        """Installed distributions of this environment, read from its metadata without running it."""
        found: dict[str, str] = {}
        for dist in metadata.distributions(path=[str(p) for p in self.site_packages]):
            name = dist.name  # None for a distribution without metadata
            if name:
                found.setdefault(str(name), dist.version)
        return dict(sorted(found.items(), key=lambda kv: kv[0].lower()))

    def describe(self) -> dict[str, object]:
        info: dict[str, object] = {
            "python": str(self.python),
            "prefix": str(self.prefix),
            "dedicated": self.dedicated,
            "packages": self.package_versions(),
        }
        if not self.dedicated:
            info["note"] = (
                f"no {SANDBOX_VENV_DIR} (run scripts/setup.sh): generated code runs with the harness's own "
                "interpreter and packages"
            )
        return info


def _venv_home(venv: Path) -> Path | None:
    """The base installation's prefix from pyvenv.cfg (``home`` is its bin directory)."""
    try:
        text = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return Path(os.path.realpath(value.strip())).parent
    return None


def _dedicated(venv: Path) -> PythonEnvironment | None:
    """The venv with exactly what its interpreter needs from the base installation: the chain of
    links to the binary, the binary, ``libpython``, and the standard library with the base's own
    ``site-packages`` covered; the rest of the base prefix (its packages, headers, shared data)
    stays out of the sandbox."""
    python = venv / "bin" / "python"
    home = _venv_home(venv)
    if not python.exists() or home is None:
        return None
    real_venv = Path(os.path.realpath(venv))
    mounts = {real_venv, *_link_chain(python)}
    stdlib = sorted(d for d in home.glob("lib/python3*") if (d / "os.py").is_file())
    mounts.update(stdlib)
    mounts.update(p for p in home.glob("lib/libpython3*") if p.is_file() or p.is_symlink())
    covered = tuple(d / n for d in stdlib for n in ("site-packages", "dist-packages") if (d / n).is_dir())
    site_packages = tuple(sorted(real_venv.glob("lib/python*/site-packages")))
    return PythonEnvironment(
        python, real_venv, tuple(sorted(mounts)), site_packages, dedicated=True, covered=covered
    )


def _link_chain(path: Path) -> list[Path]:
    """Every path from ``path`` to the file it finally names, links included, with absolute parents."""
    chain: list[Path] = []
    current = Path(os.path.abspath(path))
    for _ in range(40):  # the kernel's own limit on nested links
        current = Path(os.path.realpath(current.parent)) / current.name
        chain.append(current)
        if not current.is_symlink():
            break
        target = Path(os.readlink(current))
        current = target if target.is_absolute() else current.parent / target
    return chain


def _harness() -> PythonEnvironment:
    raw = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages()]
    mounts = {Path(os.path.realpath(p)) for p in raw if os.path.isdir(p)}
    packages = tuple(Path(p) for p in site.getsitepackages() if os.path.isdir(p))
    return PythonEnvironment(Path(sys.executable), Path(sys.prefix), tuple(sorted(mounts)), packages, False)


def sandbox_environment(venv: Path | None = None) -> PythonEnvironment:
    """The dedicated sandbox environment when it exists, else the harness's own interpreter.

    ``venv`` names another virtual environment to run generated code with (a suite whose code
    needs a different pinned stack, say); without it, ``$OPTBENCH_SANDBOX_VENV`` or the checkout's
    ``.venv-sandbox``. Pass the result to ``create_sandbox(..., environment=...)``."""
    if venv is None:
        override = os.environ.get(VENV_ENV_VAR)
        venv = Path(override) if override else _CHECKOUT / SANDBOX_VENV_DIR
    return _dedicated(venv) or _harness()
